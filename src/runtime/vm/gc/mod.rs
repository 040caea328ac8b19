//! GC (issue 40), stage 1: what the runtime does for GC's type system so
//! far. The design, and what later stages build on, is in `README.md`
//! here.

/// The reference word of i31 value `v` (its low 31 bits), as `ref.i31`
/// makes it in compiled code: shifted up, with the low bit set.
pub(crate) fn i31_raw(v: u32) -> usize {
    ((v << 1) | 1) as usize
}
