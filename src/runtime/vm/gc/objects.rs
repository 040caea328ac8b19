//! Making and reading heap objects from the runtime (constant expressions,
//! builtins, the API): the same layout compiled code uses
//! (`environ::gc_layout`).

use crate::environ::gc_layout::{self, GcLayout, ALIGN, BOX_ID, BOX_TAG, DISPLAY, HEADER, LEN, TAG};
use crate::environ::types::{CompositeType, StorageType, SubType, ValType};
use crate::environ::val_raw::ValRaw;
use crate::runtime::vm::store::StoreOpaque;

/// The offset of the object a heap reference word (`...10`) names.
pub(crate) fn offset_of(word: usize) -> u32 {
    (word as u32) & !(ALIGN - 1)
}

/// Whether `word` is an extern box.
pub(crate) fn is_box(word: usize) -> bool {
    word as i64 & 0b111 == BOX_TAG
}

/// The bits of `v` a field of `storage` keeps, little-endian in the low
/// bytes.
fn field_bits(storage: StorageType, v: ValRaw) -> u128 {
    match storage {
        StorageType::I8 | StorageType::I16 | StorageType::Val(ValType::I32 | ValType::F32) => {
            u128::from(v.get_i32() as u32)
        }
        StorageType::Val(ValType::I64 | ValType::F64) => u128::from(v.get_i64() as u64),
        StorageType::Val(ValType::V128) => v.get_v128(),
        StorageType::Val(ValType::Ref(_)) => v.get_ref() as u128,
    }
}

impl StoreOpaque {
    /// Keeps `code`'s types for the store's life if it has struct or array
    /// types (see `gc_modules`).
    pub(crate) fn keep_gc_types(&mut self, code: &std::sync::Arc<crate::runtime::vm::module_code::ModuleCode>) {
        let has_objects = code.info.gc_layouts.values().any(|l| *l != GcLayout::None);
        if has_objects && !self.gc_modules.iter().any(|c| std::sync::Arc::ptr_eq(c, code)) {
            self.gc_shapes.add(code);
            self.gc_modules.push(code.clone());
        }
    }

    /// The most bytes this store's GC heap may hold.
    pub(crate) fn gc_max_bytes(&self) -> usize {
        self.limits.limiter.as_ref().map_or(super::heap::DEFAULT_MAX_BYTES, |l| l.gc_heap_bytes())
    }

    /// `size` bytes (aligned here) of zeroed heap, at the offset returned;
    /// `None` when the heap is full.
    pub(crate) fn gc_alloc(&mut self, size: u64) -> Option<u32> {
        let size = size.checked_next_multiple_of(u64::from(ALIGN))?;
        let max = self.gc_max_bytes();
        self.gc.alloc(&mut self.vm, size, max)
    }

    /// Makes room for an allocation of `size` bytes, collecting first if
    /// the heap's trigger is reached, so the allocation that follows does
    /// not need a collection. Call it before reading any reference word
    /// the allocation will use: a collection moves objects.
    ///
    /// # Safety
    /// No reference word of this heap may be held outside the roots the
    /// collector knows (wasm frames, globals, tables, element segments,
    /// exceptions, host handles); from the host API, where every object is
    /// an `ObjectRef`, or a builtin entered through `arch`'s GC exit entry.
    pub(crate) unsafe fn gc_make_room(&mut self, size: u64) {
        if self.gc.due(&self.vm, size, self.gc_max_bytes()) {
            // SAFETY: no word is held outside the roots (caller).
            unsafe { self.gc_collect() }
        }
    }

    /// The address of byte `at` of the object at offset `o`.
    pub(crate) fn gc_at(&self, o: u32, at: u32) -> *mut u8 {
        self.gc.at(o + at)
    }

    /// A new object of `size` bytes with its header written: `id_word` and
    /// `display` (see `gc_layout`), `len` for an array. The reference word
    /// to it (tagged), or `None` when the heap is full.
    pub(crate) fn gc_new_object(&mut self, id_word: u32, len: u32, display: usize, size: u64) -> Option<usize> {
        let o = self.gc_alloc(size)?;
        // SAFETY: the allocation holds at least a header, fresh and ours.
        unsafe {
            self.gc_at(o, 0).cast::<u32>().write(id_word);
            self.gc_at(o, LEN as u32).cast::<u32>().write(len);
            self.gc_at(o, DISPLAY as u32).cast::<usize>().write(display);
        }
        Some(o as usize | TAG as usize)
    }

    /// Host pointer `p` (not null, low bits 00) made internal: a box in the
    /// heap, as `any.convert_extern` makes it. `None` when the heap is full.
    pub(crate) fn gc_box(&mut self, p: usize) -> Option<usize> {
        let word = self.gc_new_object(BOX_ID, 0, p, u64::from(HEADER))?;
        Some(word | BOX_TAG as usize)
    }

    /// `extern.convert_any` of reference word `word`: a box's host pointer,
    /// else the word itself.
    pub(crate) fn gc_unbox(&self, word: usize) -> usize {
        match is_box(word) {
            // SAFETY: a box's word names a box of this store's heap.
            true => unsafe { self.gc_at(offset_of(word), DISPLAY as u32).cast::<usize>().read() },
            false => word,
        }
    }

    /// `any.convert_extern` of reference word `word`: a host pointer is
    /// boxed, anything else kept. `None` when the heap is full.
    pub(crate) fn gc_internalize(&mut self, word: usize) -> Option<usize> {
        match word != 0 && word & 0b11 == 0 {
            true => self.gc_box(word),
            false => Some(word),
        }
    }

    /// Writes `v` into the field of `storage` at byte `at` of object `o`.
    ///
    /// # Safety
    /// `o` must be an object of this heap with such a field at `at`.
    pub(crate) unsafe fn gc_write_field(&mut self, o: u32, at: u32, storage: StorageType, size: u32, v: ValRaw) {
        let bytes = field_bits(storage, v).to_le_bytes();
        // SAFETY: the field lies within the object (caller).
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.gc_at(o, at), size as usize) }
    }

    /// A new struct of type `ty` (with `layout`, canonical id word `id`,
    /// supertype display `display`) holding `fields` (default values when
    /// empty). `None` when the heap is full.
    pub(crate) fn gc_new_struct(
        &mut self,
        ty: &SubType,
        layout: &GcLayout,
        id: u32,
        display: usize,
        fields: &[ValRaw],
    ) -> Option<usize> {
        let (places, size) = layout.as_struct();
        let CompositeType::Struct(types) = &ty.composite else { panic!("validated: a struct type") };
        let word = self.gc_new_object(id, 0, display, u64::from(size))?;
        let o = offset_of(word);
        for ((f, (at, field_size)), v) in types.iter().zip(places.iter()).zip(fields) {
            // SAFETY: `at` is a field of the struct just made.
            unsafe { self.gc_write_field(o, *at, f.storage, *field_size, *v) };
        }
        Some(word)
    }

    /// A new array of type `ty` (with `layout`, `id`, `display` as for
    /// [`gc_new_struct`](Self::gc_new_struct)) of `len` elements: `elems`
    /// one by one, or `fill` in each. `None` when the heap is full (or the
    /// array too large for it).
    pub(crate) fn gc_new_array(
        &mut self,
        ty: &SubType,
        layout: &GcLayout,
        id: u32,
        display: usize,
        len: u32,
        init: ArrayInit<'_>,
    ) -> Option<usize> {
        let elem_size = layout.elem_size();
        let CompositeType::Array(f) = &ty.composite else { panic!("validated: an array type") };
        let size = gc_layout::array_size(elem_size, len, self.gc_max_bytes() as u64)?;
        let word = self.gc_new_object(id | gc_layout::ARRAY_BIT, len, display, u64::from(size))?;
        let o = offset_of(word);
        for i in 0..len {
            let v = match init {
                ArrayInit::Default => break,
                ArrayInit::Fill(v) => v,
                ArrayInit::Each(vs) => vs[i as usize],
            };
            // SAFETY: element `i` lies within the array just made.
            unsafe { self.gc_write_field(o, HEADER + i * elem_size, f.storage, elem_size, v) };
        }
        Some(word)
    }
}

/// How [`StoreOpaque::gc_new_array`] fills a new array.
#[derive(Copy, Clone)]
pub(crate) enum ArrayInit<'a> {
    /// Zeroes (the default value of every storage type).
    Default,
    /// One value in every element.
    Fill(ValRaw),
    /// One value per element.
    Each(&'a [ValRaw]),
}

impl crate::runtime::vm::instance::VMInstance {
    /// The GC operators of a constant expression (`struct.new*`,
    /// `array.new*`, the `any`/`extern` conversions) on `stack`, in this
    /// instance, allocating in `store`'s heap. A full heap traps.
    pub(crate) fn eval_gc(
        &self,
        store: &mut StoreOpaque,
        op: crate::environ::module_info::ConstOp,
        stack: &mut Vec<ValRaw>,
    ) -> crate::environ::error::Result<ValRaw> {
        use crate::environ::module_info::ConstOp;
        use crate::environ::trap::{Trap, TrapCode};
        let info = self.info();
        let full = || crate::environ::error::Error::from(Trap::from_code(TrapCode::OutOfMemory));
        let any = |w: usize| ValRaw::reference(ValType::ANYREF, w);
        let pop_n = |stack: &mut Vec<ValRaw>, n: usize| stack.split_off(stack.len() - n);
        Ok(match op {
            ConstOp::AnyConvertExtern => {
                let w = stack.pop().expect("validated: an operand").get_ref();
                any(store.gc_internalize(w).ok_or_else(full)?)
            }
            ConstOp::ExternConvertAny => {
                let w = stack.pop().expect("validated: an operand").get_ref();
                ValRaw::reference(ValType::EXTERNREF, store.gc_unbox(w))
            }
            ConstOp::StructNew(t) | ConstOp::StructNewDefault(t) => {
                let (id, display) = self.gc_type_header(t);
                let n = match op {
                    ConstOp::StructNew(_) => info.gc_layouts[t].as_struct().0.len(),
                    _ => 0,
                };
                let fields = pop_n(stack, n);
                any(store.gc_new_struct(&info.types[t], &info.gc_layouts[t], id, display, &fields).ok_or_else(full)?)
            }
            ConstOp::ArrayNew(t) | ConstOp::ArrayNewDefault(t) | ConstOp::ArrayNewFixed(t, _) => {
                let (id, display) = self.gc_type_header(t);
                let (len, values, init);
                match op {
                    ConstOp::ArrayNew(_) => {
                        len = stack.pop().expect("validated: a length").get_i32() as u32;
                        init = ArrayInit::Fill(stack.pop().expect("validated: a value"));
                    }
                    ConstOp::ArrayNewDefault(_) => {
                        len = stack.pop().expect("validated: a length").get_i32() as u32;
                        init = ArrayInit::Default;
                    }
                    ConstOp::ArrayNewFixed(_, n) => {
                        len = n;
                        values = pop_n(stack, n as usize);
                        init = ArrayInit::Each(&values);
                    }
                    _ => unreachable!("an array operator"),
                }
                any(store.gc_new_array(&info.types[t], &info.gc_layouts[t], id, display, len, init).ok_or_else(full)?)
            }
            _ => unreachable!("the other constant operators are not GC's"),
        })
    }
}
