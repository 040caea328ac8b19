//! The one call path of both headers: every call into wasm, from
//! `wasm_func_call` and from `wasm_runtime_call_wasm` and its kin, runs as
//! [`call_raw`] over an array of raw slots (`ValRaw`), into which each
//! header writes its C values directly: `wasm_val_t`s are slots already
//! (for signatures of numbers only, the client's arrays are used in
//! place), 32-bit cells and variadic arguments are read into slots, and
//! references go through the core's raw form. No call builds a `Val` per
//! argument.

use cranewasm::{AsContextMut, Error, Func, FuncType, TrapError, ValRaw, ValType};

/// Value slots kept on the stack for calls and host callbacks; more spill
/// to the heap.
pub(crate) const INLINE_SLOTS: usize = 16;

/// Runs `f` over `n` zeroed slots: on the stack when they fit.
#[inline(always)]
pub fn with_slots<R>(n: usize, f: impl FnOnce(&mut [ValRaw]) -> R) -> R {
    if n <= INLINE_SLOTS {
        let mut inline = [ValRaw::default(); INLINE_SLOTS];
        f(&mut inline[..n])
    } else {
        f(&mut vec![ValRaw::default(); n])
    }
}

/// Calls `func` in `store` with its parameters in `slots`, which then hold
/// its results.
///
/// # Safety
/// `slots` must hold `max(params, results)` slots of `func`'s types, its
/// references of `store`.
#[inline(always)]
pub unsafe fn call_raw(mut store: impl AsContextMut, func: Func, slots: *mut ValRaw) -> Result<(), TrapError> {
    let mut cx = store.as_context_mut();
    // SAFETY: as the caller promises.
    unsafe { func.call_raw(cx.opaque(), slots) }
}

/// What a failed call reports, as both headers see it: the trap itself, a
/// WASI exit as [`TrapError::exit`] (which the headers tell apart by its exit
/// code), anything else as a trap with the error's message.
pub fn to_trap(e: Error) -> TrapError {
    match e {
        Error::Trap(t) | Error::Exception(t) => t,
        Error::Exit(code) => TrapError::exit(code),
        e => TrapError::new(e.to_string()),
    }
}

/// Whether every value of `ty` is a scalar number (i32, i64, f32, f64),
/// which passes through a slot as its bits: such calls need no conversion.
pub fn is_scalar(ty: &FuncType) -> bool {
    ty.params()
        .iter()
        .chain(ty.results())
        .all(|t| matches!(t, ValType::I32 | ValType::I64 | ValType::F32 | ValType::F64))
}

/// Whether `ty` has reference parameters or results, which need the
/// store to convert.
pub fn has_refs(ty: &FuncType) -> bool {
    ty.params().iter().chain(ty.results()).any(|t| t.is_ref())
}

/// A null reference of type `t`, or a zero of a number type, as a slot.
pub fn zero(t: ValType) -> ValRaw {
    match t {
        ValType::I32 => ValRaw::i32(0),
        ValType::I64 => ValRaw::i64(0),
        ValType::F32 => ValRaw::f32(0),
        ValType::F64 => ValRaw::f64(0),
        ValType::V128 => ValRaw::v128(0),
        ValType::Ref(_) => ValRaw::reference(t, 0),
    }
}

/// A number of type `t` from its bits (the low 32 for i32 and f32), as a
/// slot; `None` for a reference.
pub fn num(t: ValType, bits: u128) -> Option<ValRaw> {
    Some(match t {
        ValType::I32 => ValRaw::i32(bits as u32 as i32),
        ValType::I64 => ValRaw::i64(bits as u64 as i64),
        ValType::F32 => ValRaw::f32(bits as u32),
        ValType::F64 => ValRaw::f64(bits as u64),
        ValType::V128 => ValRaw::v128(bits),
        ValType::Ref(_) => return None,
    })
}
