//! GC references as call arguments and results of `wasm_export.h`
//! (`wasm_runtime_call_wasm`, `_a`, `_v`, and the function reference calls
//! of `gc_export.h`).
//!
//! WAMR's GC build passes a reference of the `any` hierarchy as the
//! `wasm_obj_t` itself: a pointer, so two cells in `argv`, and
//! `of.foreign` of a `wasm_val_t` (whose kind it gives as
//! `WASM_EXTERNREF`, and takes as that or `WASM_FUNCREF`). So do we:
//!
//! * an argument is NULL, an i31 word, or a struct or array object cell
//!   ([`crate::export::gc::object`]); anything else, or an object that
//!   is not a value of the parameter's type, is refused before wasm runs
//!   (compiled code reads the slot as that type);
//! * a result is NULL, an i31 word, or a new object cell owned by the
//!   instance (pinned as long as it, as every cell a read from C makes).
//!
//! Function references keep the default build's convention (an index,
//! one cell), as do externrefs (a host pointer), so clients written for
//! WAMR's default build are unchanged.

use cranewasm::{HeapType, RootScope, StorageType, Val, ValRaw, ValType};

use crate::export::gc::object::wasm_obj_t;
use crate::export::gc::value::{WASMValue, from_val, to_val};
use crate::export::instance::ModuleInst;

/// Whether values of `t` are GC references, passed as `wasm_obj_t`s: the
/// `any` hierarchy, concrete struct and array types included.
pub fn is_gc(inst: &ModuleInst, t: ValType) -> bool {
    let ValType::Ref(r) = t else { return false };
    match r.heap_type() {
        // Whether a concrete type is a struct or array type is the
        // engine's to say.
        HeapType::Concrete(_) => inst.lock().store().engine().top_of(r) == HeapType::Any,
        h => h.top() == HeapType::Any,
    }
}

/// The slot for object `obj` passed where a `t` is expected; the exception
/// when it is not an object, or not one of type `t`.
pub fn slot_of(inst: &ModuleInst, obj: usize, t: ValType) -> Result<ValRaw, &'static str> {
    let locked = inst.lock();
    let store = locked.store();
    let v = WASMValue { gc_obj: obj as wasm_obj_t };
    // SAFETY: an object cell is only looked up, never read unchecked; the
    // instance (which owns the cells) is alive while this runs.
    let val = unsafe { to_val(store, &v, StorageType::Val(t)) }.ok_or("the arguments conversion is failed")?;
    if !val.matches_ty_in(&*store, t) {
        return Err("a GC object argument is not of the parameter's type");
    }
    val.into_raw_in_mut(store).map_err(|_| "the arguments conversion is failed")
}

/// The object a result slot `s` of type `t` stands for: NULL, an i31 word,
/// or a new object cell of `inst`.
pub fn obj_of(inst: &ModuleInst, t: ValType, s: ValRaw) -> usize {
    let locked = inst.lock();
    // The slot's own handle ends with the scope; the cell pins the object.
    let scope = RootScope::new(locked.store());
    // SAFETY: a slot written by the store's compiled code (a result).
    let v = unsafe { Val::from_raw_in(&scope, s, t) };
    let out = from_val(inst, &scope, v, StorageType::Val(t), false);
    // SAFETY: `from_val` writes `gc_obj` for a reference, and a zeroed
    // union reads as NULL.
    unsafe { out.gc_obj as usize }
}
