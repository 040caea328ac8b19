//! What a trap is beyond its message: its code (`CRANEWASM_TRAP_*`), the
//! exit status of a WASI `proc_exit` that ended the call, and the names
//! of its frames' functions (from the module's name section).

use crate::c_api::trap::{exception, info, wasm_trap_t};
use crate::c_api::vec::{RawVec, wasm_byte_t, wasm_name_t, wasm_val_vec_t};

/// `cranewasm_trap_code_t`: why wasm trapped.
pub type cranewasm_trap_code_t = u8;
/// The native stack wasm may use ran out.
pub const CRANEWASM_TRAP_STACK_OVERFLOW: cranewasm_trap_code_t = 0;
/// A memory access out of bounds.
pub const CRANEWASM_TRAP_MEMORY_OUT_OF_BOUNDS: cranewasm_trap_code_t = 1;
/// A misaligned atomic access.
pub const CRANEWASM_TRAP_HEAP_MISALIGNED: cranewasm_trap_code_t = 2;
/// A table access out of bounds.
pub const CRANEWASM_TRAP_TABLE_OUT_OF_BOUNDS: cranewasm_trap_code_t = 3;
/// `call_indirect` of a null or uninitialized element.
pub const CRANEWASM_TRAP_INDIRECT_CALL_TO_NULL: cranewasm_trap_code_t = 4;
/// `call_indirect` of a function of another type.
pub const CRANEWASM_TRAP_BAD_SIGNATURE: cranewasm_trap_code_t = 5;
/// Integer overflow (`i32.div_s` of the minimum by -1).
pub const CRANEWASM_TRAP_INTEGER_OVERFLOW: cranewasm_trap_code_t = 6;
/// Integer division or remainder by zero.
pub const CRANEWASM_TRAP_INTEGER_DIVISION_BY_ZERO: cranewasm_trap_code_t = 7;
/// A float that does not convert to the integer type.
pub const CRANEWASM_TRAP_BAD_CONVERSION_TO_INTEGER: cranewasm_trap_code_t = 8;
/// `unreachable` was executed.
pub const CRANEWASM_TRAP_UNREACHABLE: cranewasm_trap_code_t = 9;
/// An interrupt handle (or `wasm_runtime_terminate`) stopped the call.
pub const CRANEWASM_TRAP_INTERRUPTED: cranewasm_trap_code_t = 10;
/// The store's fuel ran out.
pub const CRANEWASM_TRAP_OUT_OF_FUEL: cranewasm_trap_code_t = 11;
/// `memory.atomic.wait` on an unshared memory.
pub const CRANEWASM_TRAP_ATOMIC_WAIT_NON_SHARED_MEMORY: cranewasm_trap_code_t = 12;
/// The store's epoch deadline was reached.
pub const CRANEWASM_TRAP_EPOCH_DEADLINE: cranewasm_trap_code_t = 13;
/// A call of an import that was never linked.
pub const CRANEWASM_TRAP_UNLINKED_FUNCTION: cranewasm_trap_code_t = 14;
/// `ref.as_non_null`, `call_ref`, `return_call_ref` or `i31.get_*` of a null
/// reference.
pub const CRANEWASM_TRAP_NULL_REFERENCE: cranewasm_trap_code_t = 15;
/// `ref.cast` of a reference of another type (GC).
pub const CRANEWASM_TRAP_CAST_FAILURE: cranewasm_trap_code_t = 16;
/// An array access out of bounds (GC).
pub const CRANEWASM_TRAP_ARRAY_OUT_OF_BOUNDS: cranewasm_trap_code_t = 17;
/// The store's GC heap is full (GC).
pub const CRANEWASM_TRAP_OUT_OF_MEMORY: cranewasm_trap_code_t = 18;

fn code_number(c: cranewasm::Trap) -> cranewasm_trap_code_t {
    use cranewasm::Trap as T;
    match c {
        T::StackOverflow => CRANEWASM_TRAP_STACK_OVERFLOW,
        T::MemoryOutOfBounds => CRANEWASM_TRAP_MEMORY_OUT_OF_BOUNDS,
        T::HeapMisaligned => CRANEWASM_TRAP_HEAP_MISALIGNED,
        T::TableOutOfBounds => CRANEWASM_TRAP_TABLE_OUT_OF_BOUNDS,
        T::UndefinedElement | T::IndirectCallToNull => CRANEWASM_TRAP_INDIRECT_CALL_TO_NULL,
        T::BadSignature => CRANEWASM_TRAP_BAD_SIGNATURE,
        T::IntegerOverflow => CRANEWASM_TRAP_INTEGER_OVERFLOW,
        T::IntegerDivisionByZero => CRANEWASM_TRAP_INTEGER_DIVISION_BY_ZERO,
        T::BadConversionToInteger => CRANEWASM_TRAP_BAD_CONVERSION_TO_INTEGER,
        T::UnreachableCodeReached => CRANEWASM_TRAP_UNREACHABLE,
        T::Interrupt => CRANEWASM_TRAP_INTERRUPTED,
        T::OutOfFuel => CRANEWASM_TRAP_OUT_OF_FUEL,
        T::AtomicWaitNonSharedMemory => CRANEWASM_TRAP_ATOMIC_WAIT_NON_SHARED_MEMORY,
        T::EpochDeadline => CRANEWASM_TRAP_EPOCH_DEADLINE,
        T::UnlinkedFunction => CRANEWASM_TRAP_UNLINKED_FUNCTION,
        T::NullReference
        | T::NullFunctionReference
        | T::NullI31Reference
        | T::NullStructReference
        | T::NullArrayReference => CRANEWASM_TRAP_NULL_REFERENCE,
        T::ArrayOutOfBounds => CRANEWASM_TRAP_ARRAY_OUT_OF_BOUNDS,
        T::OutOfMemory => CRANEWASM_TRAP_OUT_OF_MEMORY,
        T::CastFailure => CRANEWASM_TRAP_CAST_FAILURE,
    }
}

/// cranewasm extension: writes the trap's code to `*code`. False (leaving
/// it alone) for a trap wasm did not raise (one a host function returned,
/// one made with `wasm_trap_new`, a WASI exit) and for anything but a live
/// trap.
///
/// # Safety
/// `t` may be NULL or any pointer; `code` NULL or writable. No other
/// thread may delete the trap meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_code(t: *const wasm_trap_t, code: *mut cranewasm_trap_code_t) -> bool {
    // SAFETY: as the caller promises.
    let Some((Some(c), _, _)) = (unsafe { info(t) }) else { return false };
    if !code.is_null() {
        // SAFETY: writable (caller).
        unsafe { code.write(code_number(c)) };
    }
    true
}

/// cranewasm extension: writes to `*status` the exit status a WASI
/// `proc_exit` ended the call with, when that is what this trap is. False
/// (leaving it alone) otherwise.
///
/// # Safety
/// As for [`cranewasm_trap_code`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_exit_status(t: *const wasm_trap_t, status: *mut i32) -> bool {
    // SAFETY: as the caller promises.
    let Some((_, Some(s), _)) = (unsafe { info(t) }) else { return false };
    if !status.is_null() {
        // SAFETY: writable (caller).
        unsafe { status.write(s) };
    }
    true
}

/// cranewasm extension: the name of the function of frame `index` of the
/// trap's backtrace (innermost first, as `wasm_trap_trace` lists them),
/// from the module's name section, in `*out` (UTF-8, no NUL). False, with
/// `*out` empty, when that frame or its name is unknown.
///
/// # Safety
/// As for [`cranewasm_trap_code`]; `out` NULL or writable room for a
/// vector.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_frame_func_name(
    t: *const wasm_trap_t,
    index: usize,
    out: *mut wasm_name_t,
) -> bool {
    // SAFETY: as the caller promises.
    let name = unsafe { info(t) }.and_then(|(_, _, frames)| frames.get(index)).and_then(|f| f.func_name());
    if !out.is_null() {
        let raw = match name {
            Some(n) => RawVec::from_items(n.bytes().map(|b| b as wasm_byte_t)),
            None => RawVec::EMPTY,
        };
        // SAFETY: writable (caller).
        unsafe { out.write(wasm_name_t::from_raw(raw)) };
    }
    name.is_some()
}

/// cranewasm extension: the values an uncaught wasm exception carries (its
/// tag's parameters), when that is what this trap is ("Exception: uncaught
/// wasm exception"), as a new vector in `*out` for the caller to delete
/// with `wasm_val_vec_delete` (references in it are new objects of the
/// trap's store). False, with `*out` empty, for any other trap, anything
/// but a live trap, or a trap whose store is gone.
///
/// # Safety
/// As for [`cranewasm_trap_code`]; `out` NULL or writable room for a
/// vector.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_trap_exception_payload(t: *const wasm_trap_t, out: *mut wasm_val_vec_t) -> bool {
    // SAFETY: as the caller promises.
    let found = unsafe { exception(t) }.filter(|(store, _)| !store.is_null());
    let values = found.map(|(store, exn)| {
        // SAFETY: a live trap's store is live.
        let core = unsafe { crate::c_api::store::core(store) };
        // The values' own handles end here; reference objects pin them.
        let mut scope = cranewasm::RootScope::new(core);
        let values = exn.values(&scope);
        // SAFETY: `store` is live and `scope` is its core store's.
        values.into_iter().map(|v| unsafe { crate::c_api::val::from_core(store, &mut scope, v) }).collect::<Vec<_>>()
    });
    if !out.is_null() {
        let raw = values.as_ref().map_or(RawVec::EMPTY, |v| RawVec::from_items(v.iter().copied()));
        // SAFETY: writable (caller).
        unsafe { out.write(wasm_val_vec_t::from_raw(raw)) };
    }
    values.is_some()
}
