//! Stopping a running call from another thread, at no cost to code that is
//! never interrupted.
//!
//! Compiled code contains no check for it. Instead, [`InterruptState::interrupt`]
//! marks the store's state and sends a signal ([`SIGNAL`]) to the thread
//! running the store's outermost call. The handler unwinds that call with
//! [`TrapCode::Interrupted`] when the signal lands in compiled wasm code;
//! anywhere else it does nothing and one of these catches the request:
//!
//! - a host function called from wasm checks it on its way back into wasm
//!   (`func::host_call`), so a guest blocked in a host call stops as soon
//!   as the call returns;
//! - a call starting on a store with a request pending stops at once;
//! - otherwise (the thread was in a builtin such as `memory.fill`, in the
//!   runtime's own code, or the code registry was locked) a helper thread
//!   sends the signal again every [`RETRY`] until the call stops, except
//!   while the thread is inside a host function, which the check above
//!   covers without waking it.
//!
//! A request is consumed by the trap it causes in the store's outermost
//! call; one made while nothing runs stops the next call at its start.
//! Stores without an interrupt handle never create this state: their only
//! cost is a null check on entering wasm and on returning from the host.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Condvar, Mutex, Once, OnceLock};
use std::time::Duration;
use std::{mem, ptr};

use super::code_registry;
use super::unwind::{self, UnwindReason};
use crate::trap::TrapCode;

/// The signal that interrupts compiled code. SIGURG: ignored by default,
/// used by no C library and rarely by programs (Go preempts goroutines with
/// it for the same reasons); a host handler for it still gets every SIGURG
/// that is not ours.
pub const SIGNAL: libc::c_int = libc::SIGURG;

/// How often the helper thread signals again a thread that has not stopped.
const RETRY: Duration = Duration::from_micros(50);

/// A store's interruption state, shared by the store and its interrupt
/// handles (which may outlive it).
#[derive(Default)]
pub struct InterruptState {
    /// An interrupt was asked for and has not yet stopped a call.
    requested: AtomicBool,
    /// `pthread_t` of the thread running the store's outermost call, 0
    /// when no call runs.
    thread: AtomicU64,
    /// Senders between reading `thread` and signalling it; a thread leaving
    /// its call waits for them, so no signal targets a thread that may be
    /// gone.
    sending: AtomicUsize,
    /// The store's innermost activation is inside a host function, which
    /// checks `requested` when it returns: no signal is needed.
    in_host: AtomicBool,
}

/// What [`enter`] saw and [`leave`] restores.
pub struct Entered {
    outermost: bool,
    in_host: bool,
}

impl InterruptState {
    /// Asks the store's running call (or, if none runs, its next call) to
    /// stop with [`TrapCode::Interrupted`].
    pub fn interrupt(self: &Arc<Self>) {
        self.requested.store(true, SeqCst);
        if self.signal() {
            retry_later(self.clone());
        }
    }

    /// Whether an interrupt is pending.
    pub fn requested(&self) -> bool {
        self.requested.load(SeqCst)
    }

    /// Signals the thread running the store's call, if one runs and is not
    /// in a host function; returns whether a call runs (and so may need
    /// another signal later).
    fn signal(&self) -> bool {
        self.sending.fetch_add(1, SeqCst);
        let thread = self.thread.load(SeqCst);
        if thread != 0 && !self.in_host.load(SeqCst) {
            // SAFETY: `thread` is running the store's call and cannot exit
            // before `sending` drops back (see `leave`), so the id is live.
            unsafe { libc::pthread_kill(thread as libc::pthread_t, SIGNAL) };
        }
        self.sending.fetch_sub(1, SeqCst);
        thread != 0
    }

    /// Marks a host function of the store's innermost activation as
    /// running (`true`) or returned; returns whether an interrupt is
    /// pending, for the check on the way back into wasm.
    #[inline]
    pub fn set_in_host(&self, in_host: bool) -> bool {
        self.in_host.store(in_host, SeqCst);
        !in_host && self.requested.load(SeqCst)
    }
}

/// Records that this thread enters wasm of the store (`outermost` when no
/// call of it runs yet). Returns what [`leave`] needs, and whether an
/// interrupt is already pending (the call must not start).
///
/// The thread is published before the request is read, and `interrupt`
/// sets the request before it reads the thread, so either this sees the
/// request or the requester sees the thread and signals it.
pub fn enter(state: &InterruptState, outermost: bool) -> (Entered, bool) {
    if outermost {
        // SAFETY: pthread_self has no preconditions.
        state.thread.store(unsafe { libc::pthread_self() } as u64, SeqCst);
    }
    // A call from a host function back into wasm runs wasm again until it
    // returns.
    let in_host = state.in_host.swap(false, SeqCst);
    (Entered { outermost, in_host }, state.requested.load(SeqCst))
}

/// Undoes [`enter`] when the call returns; `interrupted` says whether it
/// ended with [`TrapCode::Interrupted`], which consumes the request once
/// the outermost call returns.
pub fn leave(state: &InterruptState, entered: Entered, interrupted: bool) {
    state.in_host.store(entered.in_host, SeqCst);
    if entered.outermost {
        state.thread.store(0, SeqCst);
        while state.sending.load(SeqCst) != 0 {
            std::hint::spin_loop();
        }
        if interrupted {
            state.requested.store(false, SeqCst);
        }
    }
}

/// Installs the handler of [`SIGNAL`], once per process, before the first
/// interrupt handle exists.
pub fn install_handler() {
    static INSTALL: Once = Once::new();
    // SAFETY: a plain sigaction with a zeroed struct we own; `PREVIOUS` is
    // written only here, before the handler can run.
    INSTALL.call_once(|| unsafe {
        let mut action: libc::sigaction = mem::zeroed();
        // NODEFER: the handler may leave by unwinding, without sigreturn.
        // RESTART: system calls of host code it lands in carry on.
        action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK | libc::SA_RESTART;
        action.sa_sigaction = handler as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(SIGNAL, &action, ptr::addr_of_mut!(PREVIOUS).cast()) != 0 {
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
    let Some(activation) = unwind::current() else { return forward(sig, info, context) };
    let interrupt = (*activation.vm).interrupt;
    if interrupt.is_null() || !(*interrupt).requested() {
        return forward(sig, info, context);
    }
    let uc = &*(context as *const libc::ucontext_t);
    let pc = uc.uc_mcontext.gregs[libc::REG_RIP as usize] as usize;
    let fp = uc.uc_mcontext.gregs[libc::REG_RBP as usize] as usize;
    // Only compiled code can be left at any instruction. If the registry is
    // locked this thread may hold the lock: try again later.
    if code_registry::try_is_wasm_pc(pc) == Some(true) {
        // Wasm code holds no lock, so waiting for the registry is safe now.
        activation.record_frames(pc, fp, code_registry::is_wasm_pc);
        activation.unwind(UnwindReason::Wasm(TrapCode::Interrupted));
    }
}

/// Hands a [`SIGNAL`] that is not ours to the handler installed before.
///
/// # Safety
/// As for [`handler`], whose arguments these are.
unsafe fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
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
fn retry(pending: &Pending) -> ! {
    let mut states = pending.states.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        states.retain(|s| s.requested() && s.thread.load(SeqCst) != 0);
        if states.is_empty() {
            states = pending.wake.wait(states).unwrap_or_else(|e| e.into_inner());
            continue;
        }
        drop(states);
        std::thread::sleep(RETRY);
        states = pending.states.lock().unwrap_or_else(|e| e.into_inner());
        for s in states.iter() {
            if s.requested() {
                s.signal();
            }
        }
    }
}
