//! The stubs of lazily compiled functions and the way from a stub into
//! the compiler and on to the compiled code (see `compile::lazy`).
//!
//! A stub ([`arch::lazy_stub`], 16-aligned, in the module's region at
//! offset `at`) puts its own address where the trampoline finds it and
//! jumps to the trampoline through the region's first word; once its
//! function is compiled, one atomic store turns it into a jump to the code.
//! The trampoline ([`arch::lazy_trampoline`]) saves the argument
//! registers, calls [`lazy_compile`], restores them and jumps to the code.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::arch;
use super::code_registry;
use super::stack;
use super::unwind::{self, UnwindReason};
use crate::environ::trap::{Trap, TrapCode};

pub use arch::{lazy_stub as stub, LAZY_STUB_PATCH_AT as PATCH_AT, LAZY_STUB_SIZE as STUB_SIZE};

/// Stack that compiling a function may need: what eager compilation's
/// threads get (Rust's default 2 MiB). With less left below the caller
/// (deep wasm recursion, a small thread), the function is compiled on a
/// helper thread with [`HELPER_STACK`]; Cranelift running out of stack
/// would be a crash, not a trap.
const COMPILE_STACK: usize = 2 << 20;
const HELPER_STACK: usize = 8 << 20;

/// The address the stubs jump to.
pub fn trampoline_address() -> usize {
    arch::lazy_trampoline as *const () as usize
}

/// Compiles the function of the stub at `stub` (if no thread has) and
/// returns the address of its code; called by the trampoline only, on the
/// thread running wasm, whose frame pointer into the caller is `fp`. A
/// function that cannot be compiled traps.
///
/// # Safety
/// Called only by the trampoline, from compiled code under `catch_traps`.
pub(crate) unsafe extern "C" fn lazy_compile(stub: usize, fp: usize) -> usize {
    // SAFETY: called by the trampoline from compiled code under
    // `catch_traps`, with its frame pointer; nothing with a destructor is
    // live when it raises.
    unsafe {
        // Nothing with a destructor is live past this match: raising skips them.
        let reason = match compile_for_stub(stub) {
            Ok(addr) => return addr,
            Err(reason) => reason,
        };
        if let Some(state) = unwind::current() {
            // SAFETY: `fp` is the trampoline's frame, linked to its wasm caller's.
            state.record_frames(0, fp, code_registry::is_wasm_pc);
        }
        unwind::raise(reason)
    }
}

fn compile_for_stub(stub: usize) -> Result<usize, UnwindReason> {
    // The trampoline runs in the host margin below compiled code's stack
    // limit, sized for small host calls; spawning a thread to compile on
    // takes more. Without that room, fail as the callee's own stack check
    // would have, before a frame reaches the guard zone.
    let room = stack::room_above_guard_zone() >= SPAWN_ROOM;
    let fail = |message: String| UnwindReason::Host(Trap::new(message));
    let code = code_registry::lookup(stub).ok_or_else(|| fail("lazy stub of no module".into()))?;
    let lazy = code.compiled.lazy.as_ref().ok_or_else(|| fail("lazy stub in an eager module".into()))?;
    let offset = stub - code.compiled.code.base() as usize;
    let d = lazy.stub_function(offset).ok_or_else(|| fail(format!("no lazy stub at {offset:#x}")))?;
    if let Some(addr) = lazy.compiled(d) {
        // Compiled: a baseline function whose thunk spent its counter
        // queues its optimised compile (`tier`), if there is room to.
        return Ok(if room { lazy.entered(d, &code).unwrap_or(addr) } else { addr });
    }
    if !room {
        return Err(UnwindReason::Wasm(TrapCode::StackOverflow));
    }
    let compile = || {
        let result = catch_unwind(AssertUnwindSafe(|| lazy.compile(d, &code)));
        result.unwrap_or_else(|_| Err(crate::environ::error::Error::Unsupported("the compiler panicked".into())))
    };
    let result = if stack::remaining_here() >= COMPILE_STACK {
        compile()
    } else {
        // Deep in wasm recursion: compile where there is room, or trap as
        // the recursion would have.
        on_helper_thread(compile).ok_or(UnwindReason::Wasm(TrapCode::StackOverflow))?
    };
    let func = code.info.func_index(d).as_u32();
    result.map_err(|e| fail(format!("lazy compilation of function {func} failed: {e}")))
}

/// Stack the way to [`on_helper_thread`]'s new thread takes (std's
/// spawn and the C library's `pthread_create`): 3.8 KiB measured on
/// x86-64 glibc by painting the stack below a caller, doubled for other
/// C libraries and CPUs.
const SPAWN_ROOM: usize = 8192;

/// Runs `f` on a thread of its own with [`HELPER_STACK`]; `None` if no
/// thread could be made or `f` panicked. Apart from its caller so that
/// the caller's frame stays small for its room check.
#[inline(never)]
fn on_helper_thread<T: Send>(f: impl FnOnce() -> T + Send) -> Option<T> {
    std::thread::scope(|s| {
        let helper = std::thread::Builder::new().name("cranewasm-lazy".into()).stack_size(HELPER_STACK);
        helper.spawn_scoped(s, f).ok()?.join().ok()
    })
}
