//! The builtins of GC's heap objects: the allocation slow path, boxing a
//! host pointer, and the array operations that move many elements or read
//! segments (see `environ::builtins`). Null references were trapped on by
//! the compiled caller; bounds are checked here, and a failure comes back
//! as a status the caller traps with, so the trap is raised at a wasm pc.
//!
//! Safety of every builtin: it may only be called by compiled code of the
//! instance whose VMContext it gets, with indices the validator accepted
//! and, for array references, non-null arrays of this store's heap.

use crate::environ::gc_layout::{
    HEADER, INIT_ARRAY_OUT_OF_BOUNDS, INIT_SEGMENT_OUT_OF_BOUNDS, LEN, NEW_OUT_OF_BOUNDS, NEW_OUT_OF_MEMORY,
};
use crate::environ::index::{ElemIndex, TypeIndex};
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::VMContext;
use crate::runtime::vm::instance::VMInstance;
use crate::runtime::vm::libcalls::{instance, range, store};
use crate::runtime::vm::store::StoreOpaque;
use cranelift_entity::EntityRef;

use super::objects::{offset_of, ArrayInit};

impl VMInstance {
    /// The header words of a new object of the module's type `t`: its
    /// canonical id and its supertype display.
    pub(crate) fn gc_type_header(&self, t: TypeIndex) -> (u32, usize) {
        let types = &self.module.code().types;
        // The low half of a non-function type's id word is its canonical id.
        (types.sig_id(t).expect("types are registered") as u32, types.display(t) as usize)
    }
}

/// `(size)` → the offset of `size` new zeroed bytes, or 0 when full. It
/// collects first when the collection is due: entered through
/// `arch::gc_alloc_entry`, as every builtin here that may collect, with
/// no reference word in hand.
pub unsafe extern "C" fn gc_alloc(vmctx: *mut VMContext, size: u64) -> u32 {
    // SAFETY: compiled code passes its own VMContext (module docs), through
    // the GC exit entry.
    unsafe {
        let store = &mut *store(vmctx);
        store.gc_make_room(size);
        store.gc_alloc(size).unwrap_or(0)
    }
}

/// `(p)` → host pointer `p` boxed (`any.convert_extern`), or 0 when full.
pub unsafe extern "C" fn gc_box(vmctx: *mut VMContext, p: usize) -> usize {
    // SAFETY: as for `gc_alloc`; `p` is a host pointer, not a heap word.
    unsafe {
        let store = &mut *store(vmctx);
        store.gc_make_room(u64::from(HEADER));
        store.gc_box(p).unwrap_or(0)
    }
}

/// The array type `t`'s element values from bytes `src..src + len *
/// size` of passive data segment `data`: `None` past the segment's end.
///
/// # Safety
/// As for the builtins (module docs).
unsafe fn data_elements(inst: &VMInstance, t: u32, data: u32, src: u32, len: u32) -> Option<Vec<ValRaw>> {
    let info = inst.info();
    let size = info.gc_layouts[TypeIndex::from_u32(t)].elem_size();
    let seg = inst.datas[data as usize].clone();
    let bytes = &inst.module.wasm()[seg];
    let r = range(u64::from(src), u64::from(len) * u64::from(size), bytes.len()).ok()?;
    let values = bytes[r]
        .chunks_exact(size as usize)
        .map(|c| {
            let mut b = [0u8; 16];
            b[..c.len()].copy_from_slice(c);
            // Every storage a data segment can fill is a number: its bits.
            match c.len() {
                16 => ValRaw::v128(u128::from_le_bytes(b)),
                _ => ValRaw::i64(u64::from_le_bytes(b[..8].try_into().expect("8 bytes")) as i64),
            }
        })
        .collect();
    Some(values)
}

/// The words of elements `src..src + len` of element segment `elem`:
/// `None` past the segment's end.
fn elem_items(inst: &VMInstance, elem: u32, src: u32, len: u32) -> Option<Vec<ValRaw>> {
    let items = &inst.elems[ElemIndex::from_u32(elem).index()];
    let r = range(u64::from(src), u64::from(len), items.len()).ok()?;
    Some(items[r].iter().map(|w| ValRaw::reference(crate::environ::types::ValType::ANYREF, *w)).collect())
}

/// A new array of type `t` of `len` elements holding what `values` reads
/// (`None` when the segment range is out of bounds), or the failure word.
/// It makes room first, so that the values, perhaps words of the heap,
/// are read after any collection.
unsafe fn new_array(
    vmctx: *mut VMContext,
    t: u32,
    len: u32,
    values: impl FnOnce(&VMInstance) -> Option<Vec<ValRaw>>,
) -> usize {
    // SAFETY: compiled code passes its own VMContext (module docs), through
    // the GC exit entry.
    unsafe {
        let t = TypeIndex::from_u32(t);
        let store: &mut StoreOpaque = &mut *store(vmctx);
        let elem_size = instance(vmctx).info().gc_layouts[t].elem_size();
        if let Some(size) = crate::environ::gc_layout::array_size(elem_size, len, store.gc_max_bytes() as u64) {
            store.gc_make_room(u64::from(size));
        }
        // Taken after the collection, which rewrites the instance's roots.
        let inst = instance(vmctx);
        let Some(values) = values(inst) else { return NEW_OUT_OF_BOUNDS };
        let (id, display) = inst.gc_type_header(t);
        let info = inst.info();
        let init = ArrayInit::Each(&values);
        store
            .gc_new_array(&info.types[t], &info.gc_layouts[t], id, display, values.len() as u32, init)
            .unwrap_or(NEW_OUT_OF_MEMORY)
    }
}

/// `(type, data, src, len)` → `array.new_data`'s array, or a failure word.
pub unsafe extern "C" fn array_new_data(vmctx: *mut VMContext, t: u32, data: u32, src: u32, len: u32) -> usize {
    // SAFETY: compiled code passes its own VMContext (module docs).
    unsafe { new_array(vmctx, t, len, |inst| data_elements(inst, t, data, src, len)) }
}

/// `(type, elem, src, len)` → `array.new_elem`'s array, or a failure word.
pub unsafe extern "C" fn array_new_elem(vmctx: *mut VMContext, t: u32, elem: u32, src: u32, len: u32) -> usize {
    // SAFETY: compiled code passes its own VMContext (module docs).
    unsafe { new_array(vmctx, t, len, |inst| elem_items(inst, elem, src, len)) }
}

/// The length of array `a` (a non-null array word of the store's heap).
unsafe fn array_len(store: &StoreOpaque, a: usize) -> u32 {
    // SAFETY: `a` names an array of this heap (caller).
    unsafe { store.gc_at(offset_of(a), LEN as u32).cast::<u32>().read() }
}

/// Writes `values` into array `a` of type `t` from element `dst`, or says
/// which range is out of bounds.
unsafe fn init_array(vmctx: *mut VMContext, t: u32, a: usize, dst: u32, len: u32, values: Option<Vec<ValRaw>>) -> u32 {
    // SAFETY: compiled code passes its own VMContext and a non-null array of
    // type `t` (module docs).
    unsafe {
        let inst = instance(vmctx);
        let store: &mut StoreOpaque = &mut *store(vmctx);
        if range(u64::from(dst), u64::from(len), array_len(store, a) as usize).is_err() {
            return INIT_ARRAY_OUT_OF_BOUNDS;
        }
        let Some(values) = values else { return INIT_SEGMENT_OUT_OF_BOUNDS };
        let t = TypeIndex::from_u32(t);
        let info = inst.info();
        let size = info.gc_layouts[t].elem_size();
        let crate::environ::types::CompositeType::Array(f) = &info.types[t].composite else {
            panic!("validated: an array type")
        };
        for (i, v) in values.into_iter().enumerate() {
            store.gc_write_field(offset_of(a), HEADER + (dst + i as u32) * size, f.storage, size, v);
        }
        0
    }
}

/// `(type, array, dst, data, src, len)` → 0, or which range is out of
/// bounds (`array.init_data`).
pub unsafe extern "C" fn array_init_data(
    vmctx: *mut VMContext,
    t: u32,
    a: usize,
    dst: u32,
    data: u32,
    src: u32,
    len: u32,
) -> u32 {
    // SAFETY: compiled code passes its own VMContext (module docs).
    unsafe { init_array(vmctx, t, a, dst, len, data_elements(instance(vmctx), t, data, src, len)) }
}

/// `(type, array, dst, elem, src, len)` → 0, or which range is out of
/// bounds (`array.init_elem`).
pub unsafe extern "C" fn array_init_elem(
    vmctx: *mut VMContext,
    t: u32,
    a: usize,
    dst: u32,
    elem: u32,
    src: u32,
    len: u32,
) -> u32 {
    // SAFETY: compiled code passes its own VMContext (module docs).
    unsafe { init_array(vmctx, t, a, dst, len, elem_items(instance(vmctx), elem, src, len)) }
}

/// `(dst, dst_index, src, src_index, len, elem_size)` → nonzero when out
/// of bounds (`array.copy`; the two may be the same array).
pub unsafe extern "C" fn array_copy(
    vmctx: *mut VMContext,
    dst: usize,
    di: u32,
    src: usize,
    si: u32,
    len: u32,
    size: u32,
) -> u32 {
    // SAFETY: compiled code passes its own VMContext and two non-null arrays
    // of `size`-byte elements (module docs); both ranges are checked.
    unsafe {
        let store = &*store(vmctx);
        let (Ok(d), Ok(s)) = (
            range(u64::from(di), u64::from(len), array_len(store, dst) as usize),
            range(u64::from(si), u64::from(len), array_len(store, src) as usize),
        ) else {
            return 1;
        };
        let at = |a: usize, i: usize| store.gc_at(offset_of(a), HEADER + i as u32 * size);
        std::ptr::copy(at(src, s.start), at(dst, d.start), len as usize * size as usize);
        0
    }
}

/// `(array, index, value_low, value_high, len, elem_size)` → nonzero when
/// out of bounds (`array.fill`; the value's bits, low first).
pub unsafe extern "C" fn array_fill(
    vmctx: *mut VMContext,
    a: usize,
    i: u32,
    lo: u64,
    hi: u64,
    len: u32,
    size: u32,
) -> u32 {
    // SAFETY: compiled code passes its own VMContext and a non-null array of
    // `size`-byte elements (module docs); the range is checked.
    unsafe {
        let store = &*store(vmctx);
        let Ok(r) = range(u64::from(i), u64::from(len), array_len(store, a) as usize) else { return 1 };
        let p = store.gc_at(offset_of(a), HEADER + r.start as u32 * size);
        let n = r.len();
        // One typed loop per size (which the compiler vectorises), not a
        // copy per element: `array.fill` of 64 Ki elements is one call.
        match size {
            1 => std::ptr::write_bytes(p, lo as u8, n),
            2 => fill_typed(p.cast::<u16>(), lo as u16, n),
            4 => fill_typed(p.cast::<u32>(), lo as u32, n),
            8 => fill_typed(p.cast::<u64>(), lo, n),
            _ => fill_typed(p.cast::<u128>(), u128::from(lo) | u128::from(hi) << 64, n),
        }
        0
    }
}

/// Writes `v` into `n` elements from `p` (unaligned writes: elements are
/// aligned to their size within 8-aligned objects, a v128 only to 8).
///
/// # Safety
/// `p..p + n` must be writable elements of an array of the store's heap.
unsafe fn fill_typed<T: Copy>(p: *mut T, v: T, n: usize) {
    for i in 0..n {
        // SAFETY: element `i` lies within the checked range (caller).
        unsafe { p.add(i).write_unaligned(v) }
    }
}
