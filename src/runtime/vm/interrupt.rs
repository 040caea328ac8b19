//! Stopping a running call from another thread, at no cost to code that is
//! never stopped: the mechanism behind interrupt handles and epoch
//! deadlines.
//!
//! Compiled code contains no check for it. Instead, [`InterruptState::request`]
//! marks the store's state and sends a signal ([`SIGNAL`]) to the thread
//! running the store's outermost call. The handler unwinds that call with
//! the request's trap code when the signal lands in compiled wasm code;
//! anywhere else it does nothing and one of these catches the request:
//!
//! - a host function called from wasm checks it on its way back into wasm
//!   (`func::host_call`), so a guest blocked in a host call stops as soon
//!   as the call returns;
//! - builtins that can run long (bulk memory and table operations, growth)
//!   check it first;
//! - a call starting on a store with a request pending stops at once;
//! - otherwise (the thread was in the runtime's own code, or the code
//!   registry was locked) a helper thread sends the signal again every
//!   [`RETRY`] until the call stops, except while the thread is inside a
//!   host function, which the check above covers without waking it.
//!
//! A request is consumed by the trap it causes in the store's outermost
//! call; one made while nothing runs stops the next call at its start.
//!
//! Epoch deadlines use the same path: [`EpochWatch`] keeps the stores that
//! have a deadline, and the engine's `increment_epoch` requests a stop of
//! those running past theirs (a call starting past its deadline stops at
//! once). Stores with neither an interrupt handle nor a deadline never
//! create this state: their only cost is a null check on entering wasm and
//! on returning from the host.

use std::sync::atomic::{
    compiler_fence, fence, AtomicBool, AtomicI32, AtomicU64, AtomicU8,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};
use std::sync::{Arc, Condvar, Mutex, Once, OnceLock, Weak};
use std::time::Duration;
use std::{mem, ptr};

use super::code_registry;
use super::os;
use super::thread::ThreadState;
use super::unwind::{self, UnwindReason};
use crate::environ::trap::TrapCode;

/// The signal that interrupts compiled code. SIGURG: ignored by default,
/// used by no C library and rarely by programs (Go preempts goroutines with
/// it for the same reasons); a host handler for it still gets every SIGURG
/// that is not ours.
pub const SIGNAL: libc::c_int = libc::SIGURG;

/// Whether [`heavy_fence`] can make every thread of the process execute a
/// fence (Linux's `membarrier`), so that entering wasm needs only a
/// compiler fence: set once, before the first interruption state exists.
static ASYMMETRIC_FENCES: AtomicBool = AtomicBool::new(false);

/// The requester's side of the handshake with [`enter`]: after it, the
/// requester sees the thread a call published before the fence, or that
/// call sees what the requester stored before it.
fn heavy_fence() {
    if ASYMMETRIC_FENCES.load(Relaxed) {
        // Registered in `install_handler`.
        os::process_fence();
    } else {
        fence(SeqCst);
    }
}

/// The entering thread's side: free when [`heavy_fence`] fences every
/// thread for it.
#[inline]
fn light_fence() {
    if ASYMMETRIC_FENCES.load(Relaxed) {
        compiler_fence(SeqCst);
    } else {
        fence(SeqCst);
    }
}

/// How often the helper thread signals again a thread that has not stopped
/// (with the 1 ns timer slack `retry` asks for, the sleep is this long):
/// short against the 1 ms goal, long enough that a thread in the runtime's
/// own code is not kept busy in the handler.
const RETRY: Duration = Duration::from_micros(50);

/// The interruption state that store context `vm` points at, if the store
/// has one.
///
/// # Safety
/// `vm` must be a live store context, whose `interrupt` is null or the
/// address of the store's `InterruptState` (which lives as long as the
/// store).
#[inline]
pub(crate) unsafe fn of_store<'a>(vm: *const crate::environ::vmctx::VMStoreContext) -> Option<&'a InterruptState> {
    // SAFETY: as the caller promises.
    unsafe { (*vm).interrupt.cast::<InterruptState>().as_ref() }
}

/// A store's interruption state, shared by the store, its interrupt
/// handles (which may outlive it) and the engine's [`EpochWatch`].
pub struct InterruptState {
    /// A stop was asked for and has not yet stopped a call.
    requested: AtomicBool,
    /// What the request traps with: [`TrapCode::Interrupt`] or
    /// [`TrapCode::EpochDeadline`], as an index in [`REASONS`].
    reason: AtomicU8,
    /// Kernel thread id of the thread running the store's outermost call,
    /// 0 when no call runs. Signals go to it with `tgkill`, which is safe
    /// even after the thread is gone: it fails, or, should the id be
    /// reused, reaches a thread whose handler finds no request of its own
    /// and passes the signal on.
    thread: AtomicI32,
    /// The store's innermost activation is inside a host function, which
    /// checks `requested` when it returns: no signal is needed.
    in_host: AtomicBool,
    /// The store's epoch deadline; `u64::MAX` for none.
    deadline: AtomicU64,
    /// Whether the engine's [`EpochWatch`] knows this store.
    watched: AtomicBool,
}

/// The trap codes a request can carry.
const REASONS: [TrapCode; 2] = [TrapCode::Interrupt, TrapCode::EpochDeadline];

impl Default for InterruptState {
    fn default() -> InterruptState {
        InterruptState {
            requested: AtomicBool::new(false),
            reason: AtomicU8::new(0),
            thread: AtomicI32::new(0),
            in_host: AtomicBool::new(false),
            deadline: AtomicU64::new(u64::MAX),
            watched: AtomicBool::new(false),
        }
    }
}

/// What [`enter`] saw and [`leave`] restores.
pub struct Entered {
    outermost: bool,
    in_host: bool,
}

impl InterruptState {
    /// Asks the store's running call (or, if none runs, its next call) to
    /// stop with `code` ([`TrapCode::Interrupt`] or
    /// [`TrapCode::EpochDeadline`]).
    pub fn request(self: &Arc<Self>, code: TrapCode) {
        let reason = REASONS.iter().position(|c| *c == code).expect("a stop reason");
        self.reason.store(reason as u8, Relaxed);
        self.requested.store(true, Release);
        heavy_fence();
        // A thread parked in `memory.atomic.wait` runs no code to signal.
        super::parking_lot::interrupted(self);
        // Nor does one blocked in a host function that waits.
        super::blocking::interrupted(self);
        if self.signal() {
            retry_later(self.clone());
        }
    }

    /// Withdraws a pending stop with `code` that no call has used up yet.
    pub fn withdraw(&self, code: TrapCode) {
        if self.pending() == Some(code) {
            self.requested.store(false, SeqCst);
        }
    }

    /// Whether a stop is pending.
    pub fn requested(&self) -> bool {
        self.requested.load(Acquire)
    }

    /// The trap code of the pending stop, if one is pending.
    #[inline]
    pub fn pending(&self) -> Option<TrapCode> {
        self.requested().then(|| REASONS[self.reason.load(Relaxed) as usize])
    }

    /// Signals the thread running the store's call, if one runs and is not
    /// in a host function; returns whether a call runs (and so may need
    /// another signal later).
    fn signal(&self) -> bool {
        let thread = self.thread.load(Relaxed);
        if thread != 0 && !self.in_host.load(Relaxed) {
            // A stale id fails or reaches a thread that ignores the signal
            // (see `thread`).
            os::signal_thread(thread, SIGNAL);
        }
        thread != 0
    }

    /// Marks a host function of the store's innermost activation as
    /// running (`true`) or returned; on return, gives the pending stop, for
    /// the check on the way back into wasm.
    ///
    /// No fence: a requester that saw the thread in the host and did not
    /// signal it has put the request in first, and should this thread miss
    /// it here, the helper thread signals it once it is back in wasm.
    #[inline]
    pub fn set_in_host(&self, in_host: bool) -> Option<TrapCode> {
        self.in_host.store(in_host, Release);
        if in_host {
            None
        } else {
            self.pending()
        }
    }

    /// Sets the store's epoch deadline, `now` being the engine's epoch:
    /// a running call past it is stopped, and a pending stop for an
    /// earlier deadline is withdrawn when the new one is later.
    pub fn set_deadline(self: &Arc<Self>, deadline: u64, now: u64, watch: &EpochWatch) {
        self.deadline.store(deadline, SeqCst);
        if !self.watched.swap(true, SeqCst) {
            watch.add(Arc::downgrade(self));
        }
        watch.lower(deadline);
        if deadline <= now {
            if self.thread.load(Relaxed) != 0 {
                self.request(TrapCode::EpochDeadline);
            }
        } else if self.pending() == Some(TrapCode::EpochDeadline) {
            self.requested.store(false, SeqCst);
        }
    }
}

/// The stores with an epoch deadline of one engine, for its
/// `increment_epoch`.
pub struct EpochWatch {
    stores: Mutex<Vec<Weak<InterruptState>>>,
    /// No store's deadline is below this: `increment_epoch` looks at the
    /// stores only once the epoch reaches it.
    next: AtomicU64,
}

impl Default for EpochWatch {
    fn default() -> EpochWatch {
        EpochWatch { stores: Mutex::default(), next: AtomicU64::new(u64::MAX) }
    }
}

impl EpochWatch {
    fn add(&self, state: Weak<InterruptState>) {
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        // Forget dropped stores now and then, so the list stays the size of
        // the live ones.
        if stores.len() >= 64 && stores.len().is_power_of_two() {
            stores.retain(|s| s.strong_count() > 0);
        }
        stores.push(state);
    }

    fn lower(&self, deadline: u64) {
        self.next.fetch_min(deadline, SeqCst);
    }

    /// The engine's epoch became `now`: stops the running calls of stores
    /// whose deadline it reached. One atomic load unless some deadline is
    /// reached.
    #[inline]
    pub fn advanced(&self, now: u64) {
        if now >= self.next.load(SeqCst) {
            self.reached(now);
        }
    }

    #[cold]
    fn reached(&self, now: u64) {
        let mut stores = self.stores.lock().unwrap_or_else(|e| e.into_inner());
        // Deadlines still ahead decide when to look again; stores past
        // theirs are stopped if running, and otherwise stop at their next
        // call's start (see `enter`, whose fence this pairs with).
        heavy_fence();
        self.next.store(u64::MAX, SeqCst);
        stores.retain(|weak| {
            let Some(state) = weak.upgrade() else { return false };
            let deadline = state.deadline.load(SeqCst);
            if deadline > now {
                self.lower(deadline);
            } else if state.thread.load(Relaxed) != 0 && !state.requested() {
                state.request(TrapCode::EpochDeadline);
            }
            true
        });
    }
}

/// Records that this thread enters wasm of the store (`outermost` when no
/// call of it runs yet). Returns what [`leave`] needs, and the trap code if
/// the call must not start: a stop is pending, or the store's deadline
/// (checked against the engine's epoch, which `epoch` gives) has passed.
///
/// The thread is published before the request and the epoch are read, and
/// requesters set the request (or advance the epoch) before they read the
/// thread, so either this sees the request or the requester sees the
/// thread and signals it.
///
/// This is all an interruptible store pays per call, so the common case is
/// one relaxed store of the thread id (cached per thread), a compiler fence
/// and two byte loads that find no request and no deadline; in_host is only
/// touched by nested calls (an outermost call cannot be inside one of its
/// own host functions), and the epoch is read only with a deadline.
#[inline]
pub fn enter<'e>(
    state: &InterruptState,
    outermost: bool,
    thread: &ThreadState,
    epoch: impl FnOnce() -> &'e AtomicU64,
) -> (Entered, Option<TrapCode>) {
    let in_host = if outermost {
        // The publication must come before the reads below (a requester
        // does the reverse), which `light_fence` ensures with
        // `heavy_fence`.
        state.thread.store(thread.tid(), Relaxed);
        light_fence();
        false
    } else {
        // A call from a host function back into wasm runs wasm again until
        // it returns. Only this thread writes `in_host`.
        let in_host = state.in_host.load(Relaxed);
        if in_host {
            state.in_host.store(false, Relaxed);
        }
        in_host
    };
    let attention = state.requested.load(Acquire) | state.watched.load(Relaxed);
    let stop = if attention { entry_stop(state, epoch()) } else { None };
    (Entered { outermost, in_host }, stop)
}

/// Why a call on a store with a request or a deadline must not start.
#[inline(never)]
fn entry_stop(state: &InterruptState, epoch: &AtomicU64) -> Option<TrapCode> {
    state.pending().or_else(|| (state.deadline.load(Relaxed) <= epoch.load(Relaxed)).then_some(TrapCode::EpochDeadline))
}

/// Undoes [`enter`] when the call returns; `stopped` gives the trap code it
/// ended with, if any (asked only while a stop is pending): the outermost
/// call ending with the pending stop's code uses the request up.
#[inline]
pub fn leave(state: &InterruptState, entered: Entered, stopped: impl FnOnce() -> Option<TrapCode>) {
    if entered.outermost {
        state.thread.store(0, Release);
        if state.requested.load(Relaxed) {
            let stopped = stopped();
            if stopped.is_some() && stopped == state.pending() {
                state.requested.store(false, Relaxed);
            }
        }
    } else if entered.in_host {
        state.in_host.store(true, Relaxed);
    }
}

/// Installs the handler of [`SIGNAL`], once per process, before the first
/// interrupt handle exists.
pub fn install_handler() {
    static INSTALL: Once = Once::new();
    // SAFETY: plain membarrier and sigaction calls with a zeroed struct we
    // own; `PREVIOUS` is written only here, before the handler can run.
    INSTALL.call_once(|| unsafe {
        // Without membarrier (old kernels, valgrind), entries fence.
        let registered = os::register_process_fence();
        ASYMMETRIC_FENCES.store(registered, Relaxed);
        let mut action: libc::sigaction = mem::zeroed();
        // Not NODEFER: the helper thread re-signals every few tens of
        // microseconds, and a handler waiting for the code registry would
        // otherwise stack one signal frame (kilobytes of register state)
        // per signal on the alternate stack until it overflowed. Blocked
        // during the handler, repeats wait as one pending signal; the
        // handler unblocks it itself before leaving by unwinding, which
        // skips the sigreturn that would restore the mask.
        // RESTART: system calls of host code it lands in carry on.
        action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
        action.sa_sigaction = handler as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        // The previous handler is read before ours is installed: ours may
        // run as soon as it is.
        if libc::sigaction(SIGNAL, ptr::null(), ptr::addr_of_mut!(PREVIOUS).cast()) != 0
            || libc::sigaction(SIGNAL, &action, ptr::null_mut()) != 0
        {
            panic!("cannot install the handler for signal {SIGNAL}");
        }
    });
}

/// The disposition of [`SIGNAL`] before ours.
static mut PREVIOUS: mem::MaybeUninit<libc::sigaction> = mem::MaybeUninit::uninit();

/// The handler of [`SIGNAL`].
///
/// # Safety
/// Called by the kernel only, on the signalled thread.
unsafe extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: called by the kernel on the signalled thread; it unwinds only
    // at a pc of compiled code, whose frames own nothing with a
    // destructor.
    unsafe {
        let Some(activation) = unwind::current() else { return forward(sig, info, context) };
        let Some(code) = of_store(activation.vm).and_then(InterruptState::pending) else {
            return forward(sig, info, context);
        };
        let (pc, fp) = super::arch::context_pc_fp(context);
        // Only compiled code can be left at any instruction. If the registry is
        // locked this thread may hold the lock: try again later.
        if code_registry::try_is_wasm_pc(pc) == Some(true) {
            // Wasm code holds no lock, so waiting for the registry is safe now.
            activation.record_frames(pc, fp, code_registry::is_wasm_pc);
            unblock_signal();
            activation.unwind(UnwindReason::Wasm(code));
        }
    }
}

/// Unblocks [`SIGNAL`], blocked while its handler runs, for a handler
/// about to leave by unwinding. A repeat that arrived meanwhile is
/// delivered at once, on top of this frame: it finds the thread in the
/// handler, not in wasm code, and returns.
fn unblock_signal() {
    // SAFETY: sigemptyset/sigaddset on a set we own, and pthread_sigmask,
    // which is async-signal-safe.
    unsafe {
        let mut set: libc::sigset_t = mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, SIGNAL);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, ptr::null_mut());
    }
}

/// Hands a [`SIGNAL`] that is not ours to the handler installed before.
///
/// # Safety
/// As for [`handler`], whose arguments these are.
unsafe fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: `PREVIOUS` was written before the handler was installed; the
    // arguments are the kernel's (caller).
    unsafe {
        let prev = &*ptr::addr_of!(PREVIOUS).cast::<libc::sigaction>();
        if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
            // SIGURG's default is to ignore it.
        } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
            let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                mem::transmute(prev.sa_sigaction);
            f(sig, info, context)
        } else {
            let f: unsafe extern "C" fn(libc::c_int) = mem::transmute(prev.sa_sigaction);
            f(sig)
        }
    }
}

/// Requests whose call has not stopped yet, for the helper thread.
struct Pending {
    states: Mutex<Vec<Arc<InterruptState>>>,
    wake: Condvar,
}

/// Hands `state` to the helper thread (started on first use), which
/// signals its thread again until the call stops.
fn retry_later(state: Arc<InterruptState>) {
    static PENDING: OnceLock<Option<Arc<Pending>>> = OnceLock::new();
    let pending = PENDING.get_or_init(|| {
        let pending = Arc::new(Pending { states: Mutex::default(), wake: Condvar::new() });
        let shared = pending.clone();
        let spawned = std::thread::Builder::new().name("cranewasm-interrupt".into()).spawn(move || retry(&shared));
        // Without the thread, the first signal and the checks at host
        // returns and call entries still stop most calls.
        spawned.ok().map(|_| pending)
    });
    if let Some(p) = pending {
        p.states.lock().unwrap_or_else(|e| e.into_inner()).push(state);
        p.wake.notify_one();
    }
}

/// The helper thread: re-signals every pending request's thread each
/// [`RETRY`] until its call stops or returns.
///
/// Its sleeps ask for a 1 ns timer slack (the default, 50 us, would double
/// [`RETRY`]), and it signals with the list's lock released, so that a
/// requester adding a state never waits behind a system call.
fn retry(pending: &Pending) -> ! {
    os::fine_timer_slack();
    let mut to_signal: Vec<Arc<InterruptState>> = Vec::new();
    loop {
        {
            let mut states = pending.states.lock().unwrap_or_else(|e| e.into_inner());
            states.retain(|s| s.requested() && s.thread.load(Relaxed) != 0);
            while states.is_empty() {
                states = pending.wake.wait(states).unwrap_or_else(|e| e.into_inner());
                states.retain(|s| s.requested() && s.thread.load(Relaxed) != 0);
            }
        }
        std::thread::sleep(RETRY);
        to_signal.extend(pending.states.lock().unwrap_or_else(|e| e.into_inner()).iter().cloned());
        for s in to_signal.drain(..) {
            if s.requested() {
                s.signal();
            }
        }
    }
}
