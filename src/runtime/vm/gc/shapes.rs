//! What the collector needs to know of each object's type: its size and
//! where its reference fields are, by the canonical type id its header
//! holds. A store learns the shapes of a module's struct and array types
//! when it keeps the module's types (`StoreOpaque::keep_gc_types`), which
//! it does for as long as it lives, so every object's id has a shape.

use std::collections::HashMap;

use crate::environ::gc_layout::{array_size, GcLayout, ARRAY_BIT, BOX_ID, HEADER, LEN};
use crate::environ::types::{CompositeType, StorageType};
use crate::runtime::vm::module_code::ModuleCode;

/// A type's size and reference fields. A reference field is 4 bytes (the
/// `any` hierarchy's words) or 8 (function, extern and exception
/// references, which only an extern's `...010` word makes an object's).
#[derive(Debug)]
pub(crate) enum Shape {
    /// A struct of `size` bytes, with references at these (offset, width).
    Struct { size: u32, refs: Box<[(u32, u32)]> },
    /// An array of `elem`-byte elements, each a reference if `refs`.
    Array { elem: u32, refs: bool },
}

/// The shapes of the types of a store's objects, by canonical id.
#[derive(Default)]
pub(crate) struct Shapes(HashMap<u32, Shape>);

impl Shapes {
    /// Adds the struct and array types of `code`.
    pub(crate) fn add(&mut self, code: &ModuleCode) {
        for (t, layout) in code.info.gc_layouts.iter() {
            let Some(id) = code.types.sig_id(t) else { continue };
            // A non-function type's id word is its canonical id.
            let id = id as u32;
            let is_ref = |s: StorageType| matches!(s, StorageType::Val(v) if v.is_ref());
            let shape = match (&code.info.types[t].composite, layout) {
                (CompositeType::Struct(fields), GcLayout::Struct { fields: places, size }) => Shape::Struct {
                    size: *size,
                    refs: fields.iter().zip(places.iter()).filter(|(f, _)| is_ref(f.storage)).map(|(_, p)| *p).collect(),
                },
                (CompositeType::Array(f), GcLayout::Array { elem_size }) => {
                    Shape::Array { elem: *elem_size, refs: is_ref(f.storage) }
                }
                _ => continue,
            };
            self.0.entry(id).or_insert(shape);
        }
    }

    /// The shape of an object whose header's id word is `id_word` (`None`
    /// for an extern box, which holds no reference of the heap).
    pub(crate) fn of(&self, id_word: u32) -> Option<&Shape> {
        match id_word {
            BOX_ID => None,
            w => Some(self.0.get(&(w & !ARRAY_BIT)).expect("every object's type was kept by its store")),
        }
    }

    /// The size of the object at `p`.
    ///
    /// # Safety
    /// `p` must be the start of an object of the store's heap.
    pub(crate) unsafe fn size_at(&self, p: *const u8) -> u32 {
        // SAFETY: an object starts with its header (caller).
        unsafe {
            match self.of(p.cast::<u32>().read()) {
                None => HEADER,
                Some(Shape::Struct { size, .. }) => *size,
                Some(Shape::Array { elem, .. }) => {
                    let len = p.add(LEN as usize).cast::<u32>().read();
                    array_size(*elem, len, u64::MAX).expect("an array's size fits")
                }
            }
        }
    }
}
