//! GC (issue 40): what the runtime does for GC's type system, and the
//! roots a collector starts from. The design, and what later stages build
//! on, is in `README.md` here.

pub(crate) mod roots;

/// The reference word of i31 value `v` (its low 31 bits), as `ref.i31`
/// makes it in compiled code: shifted up, with the low bit set.
pub(crate) fn i31_raw(v: u32) -> usize {
    ((v << 1) | 1) as usize
}
