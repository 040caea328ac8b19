//! Globals.

use std::ptr;

use cranewasm::{ExternType, Global};

use crate::extern_::{copy, new_extern, obj, same, Item};
use crate::object::{release, ObjKind};
use crate::store::{self, StoreObj};
use crate::types::{self, ExternTypeObj};
use crate::val::{self, wasm_val_t};
use crate::*;

unsafe fn global<'a>(g: *const wasm_global_t) -> Option<(*mut StoreObj, &'a Global)> {
    match obj(g) {
        Some(e) => match &e.item {
            Item::Global(g) => Some((e.header.store, g)),
            _ => None,
        },
        None => None,
    }
}

/// A global of type `ty` holding `init`, whose kind must match the type's
/// content. NULL otherwise.
#[no_mangle]
pub unsafe extern "C" fn wasm_global_new(
    store: *mut wasm_store_t,
    ty: *const wasm_globaltype_t,
    init: *const wasm_val_t,
) -> *mut wasm_global_t {
    let (Some(s), Some(init)) = (store::from_c(store), init.as_ref()) else { return ptr::null_mut() };
    let s: *mut StoreObj = s;
    let Some(ExternType::Global(gt)) = types::obj(ty).and_then(ExternTypeObj::to_core) else { return ptr::null_mut() };
    if init.kind != gt.content.kind() {
        return ptr::null_mut();
    }
    let core = store::core(s);
    let made = val::to_core(s, &mut *core, init, gt.content).ok().and_then(|v| Global::new(&mut *core, gt, v).ok());
    match made {
        Some(g) => new_extern(s, ObjKind::Global, Item::Global(g)).cast(),
        None => ptr::null_mut(),
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_global_type(g: *const wasm_global_t) -> *mut wasm_globaltype_t {
    match global(g) {
        Some((s, g)) => ExternTypeObj::new_boxed(&ExternType::Global(g.ty(store::core(s)))).cast(),
        None => ptr::null_mut(),
    }
}

/// Sets `*out` to the global's value (a funcref as a new function object,
/// an externref as the host pointer it was given as).
#[no_mangle]
pub unsafe extern "C" fn wasm_global_get(g: *const wasm_global_t, out: *mut wasm_val_t) {
    let (Some((s, g)), Some(out)) = (global(g), out.as_mut()) else { return };
    let v = g.get(store::core(s));
    *out = val::from_core(s, store::core(s), v);
}

/// Sets a mutable global. A value of another kind, or a constant global,
/// leaves the global unchanged (there is no way to report it).
#[no_mangle]
pub unsafe extern "C" fn wasm_global_set(g: *mut wasm_global_t, v: *const wasm_val_t) {
    let (Some((s, g)), Some(v)) = (global(g), v.as_ref()) else { return };
    let content = g.ty(store::core(s)).content;
    if v.kind != content.kind() {
        return;
    }
    if let Ok(v) = val::to_core(s, store::core(s), v, content) {
        let _ = g.set(store::core(s), v);
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_global_copy(g: *const wasm_global_t) -> *mut wasm_global_t {
    copy(g)
}

/// Deletes the handle; the global lives on in its store.
#[no_mangle]
pub unsafe extern "C" fn wasm_global_delete(g: *mut wasm_global_t) {
    release(g.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_global_same(a: *const wasm_global_t, b: *const wasm_global_t) -> bool {
    same(a, b)
}
