//! What a defined memory holds right after instantiation, when that is the
//! same for every instance: the layout of its copy-on-write image.
//!
//! Active data segments whose offsets are constants and that all fit in the
//! memory's initial size leave the same bytes in every new instance, so
//! they can be laid out once per module and mapped instead of copied
//! ([`crate::runtime::vm::memory_image`] does the mapping). Anything else
//! (an offset read from a global, a segment past the initial size, which
//! must trap at the right moment) keeps the copying path, exactly as the
//! spec orders it.

use std::ops::Range;

use super::module_info::{ConstExpr, ConstOp, DataMode, ModuleInfo};
use crate::environ::index::MemoryIndex;

/// Below this many bytes of data, copying is cheaper than mapping (one
/// `mmap` to map and one to unmap, each a few microseconds, against
/// copying and faulting in a handful of pages).
pub const MIN_IMAGE_DATA: usize = 16 << 10;

/// The initial contents of one memory, as a range of it and the segments
/// that fill it (in order: later ones overwrite earlier ones).
#[derive(Debug, PartialEq)]
pub struct ImageLayout {
    /// The bytes of linear memory the image covers, aligned to `page`.
    pub span: Range<usize>,
    /// Where each segment goes in linear memory, and its bytes' range in
    /// the module binary.
    pub segments: Vec<(usize, Range<usize>)>,
}

/// The layout of memory `memory`'s image, or `None` when it has no image:
/// no segments, too little data to be worth it, or segments whose effect
/// is not the same for every instance.
pub fn layout(info: &ModuleInfo, memory: MemoryIndex, page: usize) -> Option<ImageLayout> {
    let ty = &info.memories[memory];
    // In bytes whatever the page size; past the address space, no image.
    let initial = usize::try_from(ty.minimum().saturating_mul(ty.page_size())).ok()?;
    let mut segments = Vec::new();
    let mut data = 0;
    for seg in info.datas.values() {
        let DataMode::Active { memory: m, offset } = &seg.mode else { continue };
        if *m != memory {
            continue;
        }
        let start = constant(offset)? as u32 as usize;
        if start + seg.range.len() > initial {
            return None; // traps at instantiation: leave it to the copying path
        }
        data += seg.range.len();
        if !seg.range.is_empty() {
            segments.push((start, seg.range.clone()));
        }
    }
    if data < MIN_IMAGE_DATA {
        return None;
    }
    let low = segments.iter().map(|(s, _)| *s).min()? / page * page;
    let high = segments.iter().map(|(s, r)| s + r.len()).max()?.next_multiple_of(page);
    Some(ImageLayout { span: low..high, segments })
}

/// The value of an offset expression made of constants only.
fn constant(expr: &ConstExpr) -> Option<i32> {
    let mut stack = Vec::with_capacity(2);
    for op in expr.ops.iter() {
        let v = match *op {
            ConstOp::I32Const(v) => v,
            ConstOp::I32Add | ConstOp::I32Sub | ConstOp::I32Mul => {
                let (b, a): (i32, i32) = (stack.pop()?, stack.pop()?);
                match op {
                    ConstOp::I32Add => a.wrapping_add(b),
                    ConstOp::I32Sub => a.wrapping_sub(b),
                    _ => a.wrapping_mul(b),
                }
            }
            _ => return None,
        };
        stack.push(v);
    }
    stack.pop()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::environ::parse::parse;

    fn info(wat: &str) -> ModuleInfo {
        let wasm = wat::parse_str(wat).unwrap();
        parse(&wasm, wasmparser::WasmFeatures::default()).unwrap().info
    }

    fn layout0(wat: &str) -> Option<ImageLayout> {
        layout(&info(wat), MemoryIndex::from_u32(0), 4096)
    }

    const BIG: usize = MIN_IMAGE_DATA;

    #[test]
    fn constant_segments_inside_the_initial_size_make_an_image() {
        let l = layout0(&format!(
            r#"(module (memory 2) (data (i32.const 70000) "{a}") (data (i32.add (i32.const 5) (i32.const 3)) "xy"))"#,
            a = "a".repeat(BIG)
        ))
        .expect("an image");
        assert_eq!(l.span, 0..(70000 + BIG).next_multiple_of(4096));
        assert_eq!(l.segments.iter().map(|(s, r)| (*s, r.len())).collect::<Vec<_>>(), [(70000, BIG), (8, 2)]);
    }

    #[test]
    fn no_image_when_instances_could_differ_or_it_is_not_worth_it() {
        let a = "a".repeat(BIG);
        // too little data
        assert_eq!(layout0(r#"(module (memory 1) (data (i32.const 0) "abc"))"#), None);
        // an offset from an imported global
        let global = format!(r#"(module (global $g (import "m" "g") i32) (memory 1) (data (global.get $g) "{a}"))"#);
        assert_eq!(layout0(&global), None);
        // a segment past the initial size (instantiation traps)
        assert_eq!(layout0(&format!(r#"(module (memory 1 2) (data (i32.const 65530) "{a}"))"#)), None);
        // a negative offset is a large unsigned one: out of bounds
        assert_eq!(layout0(&format!(r#"(module (memory 1) (data (i32.const -1) "{a}"))"#)), None);
        // passive segments are not initial contents
        assert_eq!(layout0(&format!(r#"(module (memory 1) (data "{a}"))"#)), None);
    }

    #[test]
    fn segments_of_another_memory_do_not_count() {
        let wat = format!(r#"(module (memory 1) (memory 1) (data (memory 1) (i32.const 0) "{}"))"#, "a".repeat(BIG));
        let info = info(&wat);
        assert_eq!(layout(&info, MemoryIndex::from_u32(0), 4096), None);
        assert!(layout(&info, MemoryIndex::from_u32(1), 4096).is_some());
    }
}
