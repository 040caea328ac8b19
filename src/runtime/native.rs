//! [`NativeCall`]: calling a C function whose signature is known only at
//! run time, through a trampoline compiled once per signature.
//!
//! WAMR's native API registers plain C functions with a signature string
//! (`"(i*~)i"`); the embedder decides their types when a module imports
//! them. Calling such a function from Rust needs either one `extern "C"`
//! type per signature written out in advance, a generic argument shuffler
//! (WAMR's `invokeNative` assembly), or generated code. This is the last:
//! Cranelift knows the host's C calling convention, so a small function
//! per signature loads the arguments from value slots into the right
//! registers and stack slots, calls, and stores the result — the type
//! dispatch is paid once, when the signature is first seen.

use std::ffi::c_void;
use std::sync::Arc;

use super::vm::code_memory::CodeMemory;
use crate::environ::error::Result;
use crate::environ::types::ValType;
use crate::environ::val_raw::ValRaw;
use crate::runtime::engine::Engine;

/// How the compiled trampoline is called: `(func, first, values)`.
type TrampolineFn = unsafe extern "C" fn(*const c_void, *mut c_void, *mut ValRaw);

/// A compiled call of C functions of one signature:
/// `R0 func(void *first, P0, P1, ..., R1 *, R2 *, ...)` — a pointer, then
/// the parameters, then one pointer per result after the first (where the
/// function writes it), returning the first result. Pointer-sized C values
/// travel as [`ValType::I64`]; references as pointers.
#[derive(Clone)]
pub struct NativeCall {
    code: Arc<CodeMemory>,
    slots: usize,
}

impl NativeCall {
    /// The call for `params` and `results`, compiled for `engine` on first
    /// use and cached there.
    pub fn new(engine: &Engine, params: &[ValType], results: &[ValType]) -> Result<NativeCall> {
        let code = engine.native_trampoline(params, results)?;
        Ok(NativeCall { code, slots: params.len().max(results.len()).max(1) })
    }

    /// Number of value slots [`call`](Self::call) reads and writes:
    /// `max(params, results, 1)`.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Calls `func(first, values[0], ..., &values[1], ...)` and stores its
    /// result in `values[0]`; further results are written by `func` through
    /// the pointers it is given.
    ///
    /// # Safety
    /// `func` must be a C function of exactly this signature, safe to call
    /// with `first` and the parameters in `values`, which must hold
    /// [`slots`](Self::slots) slots with the parameters in the first ones.
    pub unsafe fn call(&self, func: *const c_void, first: *mut c_void, values: *mut ValRaw) {
        // SAFETY: the code is a compiled trampoline of type `TrampolineFn`
        // (`native_trampoline`), alive as long as `self`.
        let trampoline: TrampolineFn = unsafe { std::mem::transmute(self.code.base()) };
        // SAFETY: as the caller promises.
        unsafe { trampoline(func, first, values) }
    }
}
