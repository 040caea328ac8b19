//! Writing this process's addresses into a module's code image: the last
//! step of loading code, whether it was compiled here or read from the
//! compiled-code cache (see `environ::compiled`).

use crate::environ::compiled::{ImageReloc, LibCall, ProcessAddress};
use crate::environ::error::{Error, Result};

/// Writes this process's addresses into `image` where `relocs` say. Fails
/// on a relocation outside the image or naming something the module does
/// not have.
pub fn patch_image(image: &mut [u8], relocs: &[ImageReloc]) -> Result<()> {
    for r in relocs {
        let addr = match r.target {
            ProcessAddress::LibCall(l) => libcall_address(l),
        };
        let at = r.offset as usize;
        let slot = at.checked_add(8).and_then(|end| image.get_mut(at..end));
        let slot =
            slot.ok_or_else(|| Error::unsupported(format_args!("relocation at {at:#x} outside the code"), None))?;
        slot.copy_from_slice(&(addr as u64).to_le_bytes());
    }
    Ok(())
}

/// Floating-point helpers Cranelift calls on hosts without the matching
/// instructions (SSE4.1 rounding, FMA).
fn libcall_address(l: LibCall) -> usize {
    extern "C" fn ceilf32(x: f32) -> f32 {
        x.ceil()
    }
    extern "C" fn ceilf64(x: f64) -> f64 {
        x.ceil()
    }
    extern "C" fn floorf32(x: f32) -> f32 {
        x.floor()
    }
    extern "C" fn floorf64(x: f64) -> f64 {
        x.floor()
    }
    extern "C" fn truncf32(x: f32) -> f32 {
        x.trunc()
    }
    extern "C" fn truncf64(x: f64) -> f64 {
        x.trunc()
    }
    extern "C" fn nearestf32(x: f32) -> f32 {
        x.round_ties_even()
    }
    extern "C" fn nearestf64(x: f64) -> f64 {
        x.round_ties_even()
    }
    extern "C" fn fmaf32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    extern "C" fn fmaf64(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    match l {
        LibCall::CeilF32 => ceilf32 as *const () as usize,
        LibCall::CeilF64 => ceilf64 as *const () as usize,
        LibCall::FloorF32 => floorf32 as *const () as usize,
        LibCall::FloorF64 => floorf64 as *const () as usize,
        LibCall::TruncF32 => truncf32 as *const () as usize,
        LibCall::TruncF64 => truncf64 as *const () as usize,
        LibCall::NearestF32 => nearestf32 as *const () as usize,
        LibCall::NearestF64 => nearestf64 as *const () as usize,
        LibCall::FmaF32 => fmaf32 as *const () as usize,
        LibCall::FmaF64 => fmaf64 as *const () as usize,
    }
}
