//! GC (issue 40), stage 1: what the runtime does for GC's type system so
//! far. The design, and what later stages build on, is in `README.md`
//! here.

use crate::environ::type_registry::large_sig_id;
use crate::environ::vmctx::VMContext;

/// The slow path of `call_indirect` and casts against a non-final
/// function type: the callee's signature id `actual` was not `expected`;
/// returns 1 when the callee's type is a declared subtype of it all the
/// same, else 0.
///
/// # Safety
/// `vmctx` must be the VMContext of a live instance, passed by its code.
pub(crate) unsafe extern "C" fn sig_is_subtype(vmctx: *mut VMContext, actual: usize, expected: usize) -> u32 {
    // SAFETY: compiled code passes its own VMContext, of a live instance.
    let inst = unsafe { super::instance::VMInstance::from_vmctx(vmctx) };
    // A small id is a plain type's, which has no supertype but itself.
    let subtype = match (large_sig_id(actual), large_sig_id(expected)) {
        (Some(a), Some(e)) => inst.module.code().types.registry().is_subtype(a, e),
        _ => false,
    };
    u32::from(subtype)
}

/// The reference word of i31 value `v` (its low 31 bits), as `ref.i31`
/// makes it in compiled code: shifted up, with the low bit set.
pub(crate) fn i31_raw(v: u32) -> usize {
    ((v << 1) | 1) as usize
}
