//! GC (issue 40): the per-store heap of struct and array objects
//! (`heap`), making and reading them from the runtime (`objects`), the
//! builtins compiled code calls for them (`libcalls`), and the roots in
//! wasm frames a collector starts from (`roots`). The design, and what
//! later stages build on, is in `README.md` here.

pub(crate) mod collect;
pub(crate) mod heap;
pub(crate) mod host_roots;
pub(crate) mod libcalls;
pub(crate) mod objects;
pub(crate) mod roots;
pub(crate) mod shapes;

/// The reference word of i31 value `v` (its low 31 bits), as `ref.i31`
/// makes it in compiled code: shifted up, with the low bit set.
pub(crate) fn i31_raw(v: u32) -> usize {
    ((v << 1) | 1) as usize
}
