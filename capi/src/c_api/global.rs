//! Globals.

use std::ptr;

use cranewasm::{ExternType, Global};

use crate::c_api::extern_::{ExternObj, Item};
use crate::c_api::store::{self, StoreObj};
use crate::c_api::types::{self, wasm_globaltype_t};
use crate::c_api::val::{self, wasm_val_t};
use crate::handle::Kind;
use crate::object::{self, c_object, get};
use crate::*;

c_object! {
    /// A global; also a `wasm_extern_t`.
    wasm_global_t: ExternObj [Global];
    delete: wasm_global_delete;
    copy: wasm_global_copy;
    same: wasm_global_same;
    host_info: wasm_global_get_host_info, wasm_global_set_host_info, wasm_global_set_host_info_with_finalizer;
    as_ref: wasm_global_as_ref, wasm_global_as_ref_const, wasm_ref_as_global, wasm_ref_as_global_const;
    upcast wasm_extern_t: wasm_global_as_extern, wasm_global_as_extern_const,
        wasm_extern_as_global, wasm_extern_as_global_const;
}

/// The store and core global of a live global handle.
///
/// # Safety
/// As for [`object::get`].
unsafe fn global(g: Option<&wasm_global_t>) -> Option<(*mut StoreObj, Global)> {
    // SAFETY: as the caller promises.
    let e = unsafe { get::<wasm_global_t>(g) }?;
    match &e.item {
        Item::Global(g) => Some((e.header.store, *g)),
        _ => None,
    }
}

/// A global of type `ty` holding `init`, whose kind must match the type's
/// content. NULL otherwise.
///
/// # Safety
/// `store` and `ty` may be NULL or any pointers: anything but a live store
/// and global type counts as NULL. `init` must be NULL or a valid value
/// (a v128 pointing at 16 bytes, a funcref NULL or any pointer). The store
/// must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_new(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_globaltype_t>,
    init: Option<&wasm_val_t>,
) -> *mut wasm_global_t {
    // SAFETY: the client keeps the threading rule above.
    let (Some(s), Some(init)) = (unsafe { store::from_c(store) }, init) else { return ptr::null_mut() };
    // SAFETY: as above.
    let Some(ExternType::Global(gt)) = (unsafe { types::extern_type(ty) }) else { return ptr::null_mut() };
    if init.kind != gt.content.kind() {
        return ptr::null_mut();
    }
    // SAFETY: the store is live and not otherwise borrowed here; `init` is
    // valid (caller).
    let made = unsafe {
        let core = store::core(s);
        val::to_core(s, &mut *core, init, gt.content).ok().and_then(|v| Global::new(&mut *core, gt, v).ok())
    };
    match made {
        // SAFETY: the store is live and owns the new global.
        Some(g) => object::new(unsafe { ExternObj::new(s, Kind::Global, Item::Global(g), None) }),
        None => ptr::null_mut(),
    }
}

/// The global's type.
///
/// # Safety
/// `g` may be NULL or any pointer: anything but a live global counts as
/// NULL. No other thread may use its store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_type(g: Option<&wasm_global_t>) -> *mut wasm_globaltype_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { get::<wasm_global_t>(g) }.and_then(ExternObj::ty) {
        Some(ty) => types::ExternTypeObj::new_handle(&ty).cast(),
        None => ptr::null_mut(),
    }
}

/// Sets `*out` to the global's value (a funcref as a new function object,
/// an externref as the host pointer it was given as).
///
/// # Safety
/// As for [`wasm_global_type`]; `out` must be NULL or point at writable
/// room for a value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_get(g: Option<&wasm_global_t>, out: *mut wasm_val_t) {
    // SAFETY: the client keeps the threading rule above.
    let Some((s, g)) = (unsafe { global(g) }) else { return };
    if out.is_null() {
        return;
    }
    // SAFETY: the store of a live object is live; `out` is writable.
    unsafe {
        let v = g.get(store::core(s));
        out.write(val::from_core(s, store::core(s), v));
    }
}

/// Sets a mutable global. A value of another kind, or a constant global,
/// leaves the global unchanged (there is no way to report it).
///
/// # Safety
/// As for [`wasm_global_type`]; `v` must be NULL or a valid value (see
/// [`wasm_global_new`]).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_set(g: Option<&mut wasm_global_t>, v: Option<&wasm_val_t>) {
    // SAFETY: the client keeps the threading rule above.
    let (Some((s, g)), Some(v)) = (unsafe { global(g.as_deref()) }, v) else { return };
    // SAFETY: the store of a live object is live and not otherwise
    // borrowed here; `v` is valid (caller).
    unsafe {
        let content = g.ty(store::core(s)).content;
        if v.kind != content.kind() {
            return;
        }
        if let Ok(v) = val::to_core(s, store::core(s), v, content) {
            let _ = g.set(store::core(s), v);
        }
    }
}
