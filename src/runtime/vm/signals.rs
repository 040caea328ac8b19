//! Turning hardware faults in compiled code into traps.
//!
//! Out-of-bounds accesses hit guard pages (SIGSEGV/SIGBUS) and explicit
//! traps execute `ud2` (SIGILL); divisions check their divisor first, and
//! SIGFPE is handled only in case a division faults anyway. The
//! handler checks that the faulting thread is running wasm and that the
//! faulting instruction is a trap site of compiled code; if so it records
//! the trap and unwinds to the activation's entry. Every other fault goes
//! to whichever handler was installed before ours, so a host's own handlers
//! (or its default crash) keep working.
//!
//! Handlers run on an alternate signal stack, which each thread gets when
//! it first enters wasm, so that a fault near the end of the stack can
//! still be handled.

use std::cell::Cell;
use std::mem;
use std::ptr;
use std::sync::Once;

use super::code_registry;
use super::fault_regions;
use super::thread::ThreadState;
use super::unwind::{self, UnwindReason};

const SIGNALS: [libc::c_int; 4] = [libc::SIGSEGV, libc::SIGBUS, libc::SIGILL, libc::SIGFPE];

/// The handlers that were installed before ours, indexed like `SIGNALS`.
static mut PREVIOUS: [mem::MaybeUninit<libc::sigaction>; 4] = [const { mem::MaybeUninit::uninit() }; 4];
static INSTALL: Once = Once::new();

/// Installs the fault handlers, once per process.
pub fn install_handlers() {
    // SAFETY: plain sigaction calls with zero-initialised structs we own;
    // `handler` is async-signal-safe up to the unwind it may perform, and
    // `PREVIOUS` is written only here (see below).
    INSTALL.call_once(|| unsafe {
        for (i, &sig) in SIGNALS.iter().enumerate() {
            let mut action: libc::sigaction = mem::zeroed();
            // NODEFER: unwinding leaves the handler without sigreturn, so the
            // signal must not stay blocked. ONSTACK: survive stack overflow.
            action.sa_flags = libc::SA_SIGINFO | libc::SA_NODEFER | libc::SA_ONSTACK;
            action.sa_sigaction = handler as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            // The previous handler is read before ours is installed: ours
            // may run on another thread as soon as it is.
            // SAFETY: written once here, under `INSTALL`, before our handler
            // can run; only read afterwards.
            let prev = ptr::addr_of_mut!(PREVIOUS[i]);
            if libc::sigaction(sig, ptr::null(), (*prev).as_mut_ptr()) != 0
                || libc::sigaction(sig, &action, ptr::null_mut()) != 0
            {
                panic!("cannot install the handler for signal {sig}");
            }
        }
    });
}

/// The fault handler.
///
/// # Safety
/// Called by the kernel only, with the `siginfo_t` and `ucontext_t` of the
/// fault on the faulting thread.
unsafe extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes the fault's `siginfo_t` and `ucontext_t`;
    // unwinding from here is sound at a trap site of compiled code, whose
    // frames own nothing with a destructor.
    unsafe {
        if let Some(state) = unwind::current() {
            let (pc, fp) = super::arch::context_pc_fp(context);
            if let Some(code) = code_registry::trap_at(pc).or_else(|| super::null_call::trap_at(pc)) {
                // A memory fault at a trap site is a trap only where compiled
                // code faults on purpose: anywhere else it went wrong, and
                // carrying on would hide memory corruption.
                let addr = (*info).si_addr() as usize;
                if matches!(sig, libc::SIGSEGV | libc::SIGBUS) && !fault_regions::contains(addr) {
                    fatal(b"cranewasm: fault in compiled wasm code outside any memory or guard region; aborting\n");
                }
                state.record_frames(pc, fp, code_registry::is_wasm_pc);
                state.unwind(UnwindReason::Wasm(code));
            }
        }
        forward(sig, info, context)
    }
}

/// Writes `message` to stderr and aborts the process: async-signal-safe.
fn fatal(message: &[u8]) -> ! {
    // SAFETY: write(2) of a static buffer, then abort; both may be called
    // from a signal handler.
    unsafe {
        libc::write(2, message.as_ptr().cast(), message.len());
        libc::abort()
    }
}

/// Hands a fault that is not ours to the previous handler.
///
/// # Safety
/// As for [`handler`], whose arguments these are; the handlers are
/// installed (so `PREVIOUS` is written).
unsafe fn forward(sig: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the handlers are installed, so `PREVIOUS` holds the previous
    // dispositions; the arguments are the kernel's (caller).
    unsafe {
        let Some(i) = SIGNALS.iter().position(|s| *s == sig) else { return };
        let prev = &*(*ptr::addr_of!(PREVIOUS[i])).as_ptr();
        if prev.sa_flags & libc::SA_SIGINFO != 0 {
            let f: unsafe extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                mem::transmute(prev.sa_sigaction);
            f(sig, info, context)
        } else if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
            // Restore the old disposition and return: the faulting instruction
            // runs again and the default action (usually a crash) happens.
            libc::sigaction(sig, prev, ptr::null_mut());
        } else {
            let f: unsafe extern "C" fn(libc::c_int) = mem::transmute(prev.sa_sigaction);
            f(sig)
        }
    }
}

/// Size of the alternate stacks we allocate.
const ALT_STACK_SIZE: usize = 64 * 1024;

struct AltStack {
    mapping: *mut libc::c_void,
    size: usize,
    /// Valgrind's id of the stack (0 natively).
    valgrind_id: u64,
}

/// Valgrind's client requests `VALGRIND_STACK_REGISTER`/`_DEREGISTER`.
const VG_USERREQ_STACK_REGISTER: u64 = 0x1501;
const VG_USERREQ_STACK_DEREGISTER: u64 = 0x1502;

impl Drop for AltStack {
    fn drop(&mut self) {
        // SAFETY: the mapping is ours; disable it before unmapping so the
        // kernel never delivers a signal onto freed memory.
        unsafe {
            let disable = libc::stack_t { ss_sp: ptr::null_mut(), ss_flags: libc::SS_DISABLE, ss_size: 0 };
            libc::sigaltstack(&disable, ptr::null_mut());
            if self.valgrind_id != 0 {
                super::arch::valgrind_request(VG_USERREQ_STACK_DEREGISTER, [self.valgrind_id, 0, 0, 0, 0]);
            }
            libc::munmap(self.mapping, self.size);
        }
    }
}

thread_local! {
    /// The stack we allocated for this thread, freed when the thread exits.
    static ALT_STACK: Cell<Option<AltStackBox>> = const { Cell::new(None) };
}

struct AltStackBox(#[allow(dead_code)] AltStack);

/// Makes sure this thread has an alternate signal stack. Cheap after the
/// first call on a thread.
#[inline]
pub fn ensure_alt_stack(thread: &ThreadState) {
    if !thread.alt_stack_ready.get() {
        install_alt_stack(thread)
    }
}

#[cold]
fn install_alt_stack(thread: &ThreadState) {
    // SAFETY: sigaltstack and mmap/mprotect/munmap on a mapping of our own;
    // the mapping is registered as this thread's alternate stack only once
    // complete, and `AltStack`'s drop disables it before unmapping.
    unsafe {
        let mut current: libc::stack_t = mem::zeroed();
        libc::sigaltstack(ptr::null(), &mut current);
        if current.ss_flags & libc::SS_DISABLE == 0 && current.ss_size >= ALT_STACK_SIZE {
            // The host already installed one big enough. Rust's runtime
            // installs one of a few kilobytes on every thread, too small
            // for a fault frame with the CPU's full register state plus an
            // interrupt arriving on top of it: ours replaces it.
            thread.alt_stack_ready.set(true);
            return;
        }
        let page = region::page::size();
        let size = ALT_STACK_SIZE + page;
        let mapping = libc::mmap(
            ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if mapping == libc::MAP_FAILED {
            return;
        }
        // A guard page below the stack turns a handler overflow into a crash
        // instead of silent corruption.
        libc::mprotect(mapping, page, libc::PROT_NONE);
        let stack = libc::stack_t {
            ss_sp: (mapping as *mut u8).add(page) as *mut libc::c_void,
            ss_flags: 0,
            ss_size: ALT_STACK_SIZE,
        };
        if libc::sigaltstack(&stack, ptr::null_mut()) != 0 {
            libc::munmap(mapping, size);
            return;
        }
        // Valgrind tells a switch of stacks from a push or pop by the size
        // of the move, unless it knows the stacks. A trap unwinds from this
        // stack to the thread's; a spawned thread's stack is a mapping that
        // may lie just above this one, so the jump looked like the stack
        // growing, and valgrind took the thread's live frames for fresh,
        // undefined stack ("uninitialised value" in every frame above).
        let low = stack.ss_sp as u64;
        let valgrind_id =
            super::arch::valgrind_request(VG_USERREQ_STACK_REGISTER, [low, low + ALT_STACK_SIZE as u64, 0, 0, 0]);
        ALT_STACK.with(|s| s.set(Some(AltStackBox(AltStack { mapping, size, valgrind_id }))));
        thread.alt_stack_ready.set(true);
    }
}
