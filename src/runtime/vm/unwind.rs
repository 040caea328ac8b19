//! Leaving compiled code early: the one place the runtime jumps over frames.
//!
//! A call into wasm runs under [`catch_traps`], which saves the host's
//! callee-saved registers and stack pointer in a jump buffer
//! ([`arch::try_call`], because Rust has no sound `setjmp`). A trap — a fault
//! recognised by the signal handler, a trap returned by a host function, a
//! builtin finding an out-of-bounds segment — records its reason in the
//! thread's [`CallThreadState`] and [`raise`]s, restoring those registers so
//! that `catch_traps` returns an error.
//!
//! The frames jumped over are compiled wasm code and the thin Rust shims
//! that call into or out of it. Invariant: none of those shims holds a value
//! with a destructor at a point where it can raise, so nothing is leaked or
//! left half-dropped.

use std::any::Any;
use std::cell::{Cell, UnsafeCell};
use std::mem::MaybeUninit;
use std::ptr;

use super::arch::{self, JmpBuf};
use super::thread::{self, ThreadState};

use crate::environ::trap::{Trap, TrapCode};
use crate::environ::vmctx::VMStoreContext;

/// Most return addresses recorded for a trap's backtrace.
pub const MAX_FRAMES: usize = 64;

/// Why a call unwound.
pub enum UnwindReason {
    /// Compiled code trapped (through a fault or a builtin).
    Wasm(TrapCode),
    /// A host function returned a trap.
    Host(Trap),
    /// A host function panicked; the panic resumes once the call has
    /// unwound.
    Panic(Box<dyn Any + Send>),
}

/// The state of one [`catch_traps`] activation on this thread.
pub struct CallThreadState {
    jmp_buf: UnsafeCell<MaybeUninit<JmpBuf>>,
    reason: UnsafeCell<Option<UnwindReason>>,
    /// Program counters of the wasm frames at the trap, innermost first;
    /// the first `npcs` are initialised.
    pcs: UnsafeCell<MaybeUninit<[usize; MAX_FRAMES]>>,
    npcs: Cell<usize>,
    /// An address just above every frame this activation runs: frame walks
    /// stop here.
    pub stack_top: usize,
    /// The context of the store whose code this activation runs.
    pub vm: *const VMStoreContext,
    /// The store's exit record when this activation began: for a host
    /// function calling back into wasm, the frame of its exit trampoline,
    /// where the outer activation's wasm frames continue (the GC's root
    /// walk goes on from there).
    pub outer_exit_fp: usize,
    prev: *const CallThreadState,
}

/// The innermost activation on this thread, if any.
pub fn current() -> Option<&'static CallThreadState> {
    // SAFETY: the pointer is set only while its activation's frame is live
    // (see `catch_traps`), and only this thread reads it.
    unsafe { thread::state().current.get().as_ref() }
}

/// A trap's reason with the program counters of its wasm frames.
pub struct Unwound {
    pub reason: UnwindReason,
    pub pcs: Vec<usize>,
}

/// Runs `body` (which calls into compiled code of the store whose context
/// is `vm`) and catches any trap it raises.
///
/// # Safety
/// `body` must not own values with destructors across the call into wasm:
/// a trap jumps straight back here without running them. `vm` must stay
/// live for the call.
// Always inlined: the interruption code beside it in `entry::enter_wasm`
// tipped LLVM into an out-of-line copy, 15 instructions more per call.
#[inline(always)]
pub unsafe fn catch_traps<F: FnOnce()>(
    thread: &ThreadState,
    vm: *const VMStoreContext,
    body: F,
) -> Result<(), Unwound> {
    // SAFETY: `body` owns nothing with a destructor across the call into
    // wasm and `vm` stays live (caller); `state` lives on this frame for
    // as long as `try_call` runs, and only this thread sees it.
    unsafe {
        /// # Safety
        /// `data` must point at the `Option<F>` below, still `Some`.
        unsafe extern "C" fn call<F: FnOnce()>(data: *mut u8) {
            // SAFETY: `data` is the `Option<F>` of `catch_traps`, still `Some`
            // (caller).
            unsafe {
                let f = (*(data as *mut Option<F>)).take().expect("called once");
                f()
            }
        }
        let marker = 0u8;
        let state = CallThreadState {
            // Filled in by `arch::try_call` before anything reads it.
            jmp_buf: UnsafeCell::new(MaybeUninit::uninit()),
            reason: UnsafeCell::new(None),
            // Only written when a trap records frames: not worth zeroing per call.
            pcs: UnsafeCell::new(MaybeUninit::uninit()),
            npcs: Cell::new(0),
            stack_top: &marker as *const u8 as usize,
            vm,
            outer_exit_fp: (*vm).last_exit_fp,
            prev: thread.current.get(),
        };
        thread.current.set(&state);
        let mut body = Some(body);
        let unwound =
            arch::try_call((*state.jmp_buf.get()).as_mut_ptr(), call::<F>, &mut body as *mut Option<F> as *mut u8);
        thread.current.set(state.prev);
        if unwound == 0 {
            return Ok(());
        }
        let reason = (*state.reason.get()).take().unwrap_or(UnwindReason::Wasm(TrapCode::UnreachableCodeReached));
        // SAFETY: `record_frames` initialised the first `npcs` entries.
        let pcs = std::slice::from_raw_parts((*state.pcs.get()).as_ptr().cast::<usize>(), state.npcs.get());
        Err(Unwound { reason, pcs: pcs.to_vec() })
    }
}

impl CallThreadState {
    /// The activation this one runs inside, if any.
    pub fn prev(&self) -> Option<&CallThreadState> {
        // SAFETY: an activation is live while any activation inside it is
        // (they nest on this thread's stack).
        unsafe { self.prev.as_ref() }
    }

    /// Records the backtrace of a trap: `pc` where it happened, then the
    /// return addresses found by following frame pointers from `fp`, as
    /// long as `is_wasm` accepts them. Safe to run in a signal handler: it
    /// neither allocates nor locks (beyond what `is_wasm` does).
    ///
    /// # Safety
    /// `fp` must be a frame pointer of this thread's stack below
    /// `stack_top`, in a chain maintained by compiled code.
    pub unsafe fn record_frames(&self, pc: usize, mut fp: usize, is_wasm: impl Fn(usize) -> bool) {
        // SAFETY: `fp` starts a frame-pointer chain of this thread's stack below
        // `stack_top` (caller); the walk stops at the first frame not of wasm,
        // and `pcs` has room for `MAX_FRAMES`.
        unsafe {
            let pcs = (*self.pcs.get()).as_mut_ptr().cast::<usize>();
            let mut n = 0;
            if pc != 0 {
                *pcs = pc;
                n = 1;
            }
            let mut lowest = fp;
            while n < MAX_FRAMES && fp != 0 && fp.is_multiple_of(8) && fp >= lowest && fp < self.stack_top {
                let ra = *((fp + arch::RETURN_ADDRESS_OFFSET) as *const usize);
                if !is_wasm(ra) {
                    break;
                }
                *pcs.add(n) = ra;
                n += 1;
                lowest = fp;
                fp = *(fp as *const usize);
            }
            self.npcs.set(n);
        }
    }

    /// Unwinds to this activation with `reason`.
    ///
    /// # Safety
    /// Must be called on the activation's own thread, from within its
    /// `catch_traps` body, from frames that own nothing with a destructor.
    pub unsafe fn unwind(&self, reason: UnwindReason) -> ! {
        // SAFETY: on the activation's own thread, inside its `catch_traps` body,
        // from frames owning nothing with a destructor (caller).
        unsafe {
            ptr::write(self.reason.get(), Some(reason));
            arch::unwind((*self.jmp_buf.get()).as_ptr())
        }
    }
}

/// Unwinds the innermost activation with `reason`.
///
/// # Safety
/// As for [`CallThreadState::unwind`]; there must be an activation.
pub unsafe fn raise(reason: UnwindReason) -> ! {
    // SAFETY: as for `CallThreadState::unwind` (caller).
    unsafe {
        match current() {
            Some(state) => state.unwind(reason),
            None => std::process::abort(),
        }
    }
}
