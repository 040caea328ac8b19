//! The wasm→host trampolines a compiled-code file carries: one for each
//! function type of its module, so that a runtime-only build (without the
//! `compiler` feature) can call host functions of those types, which
//! would otherwise be compiled on first use.
//!
//! ```text
//! count u32, then (type index u32, offset u32, length u32) per trampoline
//! code length u32, then the trampolines' code, each at its offset
//! ```
//!
//! The code has no relocations (it reaches the host through the callee's
//! context), so it runs wherever it is copied.

use std::ops::Range;

use super::codec::{damaged, Reader, Writer};
use crate::environ::error::Result;

/// Trampolines of one file: `(type index, offset in code)` and the range
/// of their code within the bytes read.
#[derive(Debug, Default)]
pub struct Exits {
    /// Each trampoline's function type (an index into the module's types)
    /// and offset within `code`.
    pub entries: Vec<(u32, usize)>,
    /// Where the code is, in the bytes the reader was given.
    pub code: Range<usize>,
}

/// Alignment of each trampoline in the code.
const ALIGN: usize = 16;

/// Writes `exits` (each a type index and its trampoline's code).
pub fn write(w: &mut Writer, exits: &[(u32, Vec<u8>)]) {
    w.len(exits.len());
    let mut code = Vec::new();
    for (ty, body) in exits {
        code.resize(code.len().next_multiple_of(ALIGN), 0);
        w.u32(*ty);
        w.u32(code.len() as u32);
        w.u32(body.len() as u32);
        code.extend_from_slice(body);
    }
    w.len(code.len());
    w.bytes.extend_from_slice(&code);
}

/// Reads what [`write`] wrote, checking every trampoline lies within the
/// code; `base` is where `r`'s bytes start in the slice that `code`
/// ranges over.
pub fn read(r: &mut Reader<'_>, base: *const u8) -> Result<Exits> {
    let mut entries = Vec::new();
    let mut extents = Vec::new();
    for _ in 0..r.count(12)? {
        let (ty, offset, len) = (r.u32()?, r.u32()?, r.u32()?);
        entries.push((ty, offset as usize));
        extents.push((offset as usize, len as usize));
    }
    let code_len = r.count(1)?;
    let code = r.bytes(code_len)?;
    if extents.iter().any(|&(offset, len)| len == 0 || offset.checked_add(len).is_none_or(|end| end > code_len)) {
        return Err(damaged("a wasm-to-host trampoline lies outside its code"));
    }
    let start = code.as_ptr() as usize - base as usize;
    Ok(Exits { entries, code: start..start + code_len })
}
