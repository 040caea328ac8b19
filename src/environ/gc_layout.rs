//! How struct and array objects sit in a store's GC heap (issue 40, stage
//! 2): the header, and each type's field offsets. Compiled code and the
//! runtime (constant expressions, the API, builtins) read objects through
//! this one description. Why it is so: `src/runtime/vm/gc/README.md`.
//!
//! ```text
//! object (offset o, reference word o | 0b010; an extern box o | 0b110)
//!   0  id: u32        canonical type id, | ARRAY_BIT for an array
//!   4  len: u32       an array's length (0 for a struct)
//!   8  display: u64   the type's supertype display (see VMFuncRef::display);
//!                     for an extern box, the boxed host pointer
//!  16  fields         struct fields at their offsets, or array elements
//! ```

use cranelift_entity::PrimaryMap;

use super::index::TypeIndex;
use super::types::{CompositeType, HeapType, StorageType, SubType, ValType};

/// Offset of the type id word.
pub const ID: i32 = 0;
/// Offset of an array's length.
pub const LEN: i32 = 4;
/// Offset of the display pointer (or a box's host pointer).
pub const DISPLAY: i32 = 8;
/// Size of the header; fields and elements start here.
pub const HEADER: u32 = 16;
/// Set in an array's id word, so `ref.test array` is one bit.
pub const ARRAY_BIT: u32 = 1 << 31;
/// The id word of an extern box (no type has this id).
pub const BOX_ID: u32 = u32::MAX;
/// Objects start at multiples of this.
pub const ALIGN: u32 = 8;
/// The low bits of a heap object's reference word (`offset | TAG`).
pub const TAG: i64 = 0b010;
/// The low bits of an extern box's reference word.
pub const BOX_TAG: i64 = 0b110;

/// What `array_new_data` and `array_new_elem` return instead of a
/// reference when the segment range is out of bounds (odd: no object's
/// word is).
pub const NEW_OUT_OF_BOUNDS: usize = 1;
/// What they return when the heap is full.
pub const NEW_OUT_OF_MEMORY: usize = 3;
/// What `array_init_*` return when the array range is out of bounds.
pub const INIT_ARRAY_OUT_OF_BOUNDS: u32 = 1;
/// What they return when the segment range is out of bounds.
pub const INIT_SEGMENT_OUT_OF_BOUNDS: u32 = 2;

/// Where a struct's fields are, or an array's element size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GcLayout {
    /// Not a struct or array type.
    None,
    /// Each field's offset from the object's start and its size, and the
    /// object's size.
    Struct { fields: Box<[(u32, u32)]>, size: u32 },
    /// The size of an element (elements start at [`HEADER`]).
    Array { elem_size: u32 },
}

/// How a field is stored: its size, and for a reference whether it is a
/// 32-bit word of the `any` hierarchy (null, i31, heap object) rather than
/// a full pointer (functions, externs, exceptions).
pub fn storage_size(s: StorageType, types: &PrimaryMap<TypeIndex, SubType>) -> u32 {
    match s {
        StorageType::I8 => 1,
        StorageType::I16 => 2,
        StorageType::Val(ValType::I32 | ValType::F32) => 4,
        StorageType::Val(ValType::I64 | ValType::F64) => 8,
        StorageType::Val(ValType::V128) => 16,
        StorageType::Val(ValType::Ref(r)) => match is_any_hierarchy(r.heap_type(), types) {
            true => 4,
            false => 8,
        },
    }
}

/// Whether references to `h` are of the `any` hierarchy. `types` must hold
/// module indices (as the parser reads them, before canonicalisation).
fn is_any_hierarchy(h: HeapType, types: &PrimaryMap<TypeIndex, SubType>) -> bool {
    match h {
        HeapType::Concrete(t) => types.get(t).is_some_and(|s| s.as_func().is_none()),
        h => h.top() == HeapType::Any,
    }
}

/// The layout of type `t` of `types` (module indices, as parsed).
pub fn layout(t: TypeIndex, types: &PrimaryMap<TypeIndex, SubType>) -> GcLayout {
    match &types[t].composite {
        CompositeType::Func(_) => GcLayout::None,
        CompositeType::Array(f) => GcLayout::Array { elem_size: storage_size(f.storage, types) },
        CompositeType::Struct(fields) => {
            let mut at = HEADER;
            let fields = fields
                .iter()
                .map(|f| {
                    let size = storage_size(f.storage, types);
                    // Natural alignment, at most 8 (a v128 needs no more).
                    let align = size.min(8);
                    at = at.div_ceil(align) * align;
                    let o = at;
                    at += size;
                    (o, size)
                })
                .collect();
            GcLayout::Struct { fields, size: at.div_ceil(ALIGN) * ALIGN }
        }
    }
}

impl GcLayout {
    /// A struct's fields (offset, size) and size.
    pub fn as_struct(&self) -> (&[(u32, u32)], u32) {
        match self {
            GcLayout::Struct { fields, size } => (fields, *size),
            _ => panic!("validated: a struct type"),
        }
    }

    /// An array's element size.
    pub fn elem_size(&self) -> u32 {
        match self {
            GcLayout::Array { elem_size } => *elem_size,
            _ => panic!("validated: an array type"),
        }
    }
}

/// The size of an array of `len` elements of `elem_size` bytes, aligned,
/// or `None` past `max`.
pub fn array_size(elem_size: u32, len: u32, max: u64) -> Option<u32> {
    let bytes = u64::from(HEADER) + u64::from(elem_size) * u64::from(len);
    let bytes = bytes.div_ceil(u64::from(ALIGN)) * u64::from(ALIGN);
    (bytes <= max).then_some(bytes as u32)
}
