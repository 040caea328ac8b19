//! What the collector needs to know of each object's type: its size and
//! where its reference fields are, by the canonical type id its header
//! holds. A store learns the shapes of a module's struct and array types
//! when it keeps the module's types (`StoreOpaque::keep_gc_types`), which
//! it does for as long as it lives, so every object's id has a shape.

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

/// The shapes of the types of a store's objects, by canonical id: ids are
/// indices of the engine's type registry, which reuses freed ones, so
/// they stay as few as the types alive, and a vector is a dense map.
#[derive(Default)]
pub(crate) struct Shapes(Vec<Option<Shape>>);

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
                    refs: fields
                        .iter()
                        .zip(places.iter())
                        .filter(|(f, _)| is_ref(f.storage))
                        .map(|(_, p)| *p)
                        .collect(),
                },
                (CompositeType::Array(f), GcLayout::Array { elem_size }) => {
                    Shape::Array { elem: *elem_size, refs: is_ref(f.storage) }
                }
                _ => continue,
            };
            let i = id as usize;
            if self.0.len() <= i {
                self.0.resize_with(i + 1, || None);
            }
            self.0[i].get_or_insert(shape);
        }
    }

    /// The shape of an object whose header's id word is `id_word` (`None`
    /// for an extern box, which holds no reference of the heap).
    pub(crate) fn of(&self, id_word: u32) -> Option<&Shape> {
        match id_word {
            BOX_ID => None,
            w => Some(
                self.0
                    .get((w & !ARRAY_BIT) as usize)
                    .and_then(Option::as_ref)
                    .expect("every object's type was kept by its store"),
            ),
        }
    }

    /// The size of the object at `p`, whose shape is `shape` (see
    /// [`of`](Self::of)).
    ///
    /// # Safety
    /// `p` must be the start of an object of the store's heap.
    pub(crate) unsafe fn size_at(shape: Option<&Shape>, p: *const u8) -> u32 {
        match shape {
            None => HEADER,
            Some(Shape::Struct { size, .. }) => *size,
            Some(Shape::Array { elem, .. }) => {
                // SAFETY: an array's header holds its length (caller).
                let len = unsafe { p.add(LEN as usize).cast::<u32>().read() };
                array_size(*elem, len, u64::MAX).expect("an array's size fits")
            }
        }
    }
}
