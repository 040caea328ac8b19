//! Host functions made before any module of their type is loaded, in a
//! runtime-only build (no `compiler` feature).
//!
//! Wasm calls a host function through the exit trampoline of its type, and
//! such a build has only the trampolines that loaded compiled-code files
//! brought (`Engine::add_exit_trampolines`). A `Func::new` of a type no
//! module has declared yet cannot get one, yet wasm can only ever call it
//! through a type of a loaded module (an import, a `call_indirect` or a
//! `call_ref`, all checked against the caller's types). So such a
//! function's `wasm_call` is [`address`] until then: the first call from
//! wasm looks the trampoline up, writes it into the funcref and goes on
//! to it; instantiation does the same for the functions it imports, so
//! that import slots and frozen tables hold the real code.

use super::arch;
use super::code_registry;
use super::func::VMHostFunc;
use super::unwind::{self, UnwindReason};
use crate::environ::error::Result;
use crate::environ::trap::Trap;
use crate::environ::vmctx::VMFuncRef;

/// The `wasm_call` of a host function whose exit trampoline is not known
/// yet.
pub fn address() -> *const u8 {
    arch::late_exit_trampoline as *const u8
}

/// Finds the exit trampoline of `f` now if it has none yet: a no-op for
/// every other funcref.
///
/// # Safety
/// `f` must point at a live `VMFuncRef` of a store this thread may use.
pub(crate) unsafe fn resolve_now(f: *mut VMFuncRef) -> Result<()> {
    // SAFETY: `f` is live (caller); only a `VMHostFunc`'s funcref ever
    // holds `address()`, and its vmctx is that `VMHostFunc`.
    unsafe {
        if (*f).wasm_call == address() {
            (*(*f).vmctx.cast::<VMHostFunc>()).resolve_exit()?;
        }
    }
    Ok(())
}

/// Called by [`arch::late_exit_trampoline`] only, with the callee's
/// `VMHostFunc` and its own frame pointer: the trampoline's address, or a
/// trap when no loaded module brought one (which the callers' type checks
/// rule out).
///
/// # Safety
/// Called only by that trampoline, from compiled code under `catch_traps`.
pub(crate) unsafe extern "C" fn resolve(host: *mut VMHostFunc, fp: usize) -> usize {
    // SAFETY: `host` is the live callee of a wasm call of its store; nothing
    // with a destructor is live when it raises.
    unsafe {
        let reason = match (*host).resolve_exit() {
            Ok(code) => return code as usize,
            Err(e) => UnwindReason::Host(Trap::new(e.to_string())),
        };
        if let Some(state) = unwind::current() {
            // SAFETY: `fp` is the trampoline's frame, linked to its wasm caller's.
            state.record_frames(0, fp, code_registry::is_wasm_pc);
        }
        unwind::raise(reason)
    }
}
