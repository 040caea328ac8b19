//! Globals, as WAMR has them.
//!
//! A global the host makes (`wasm_global_new`) is a type and an initial
//! value, not yet a global of any store: reading it leaves `*out` alone and
//! setting it does nothing. Each instance that links it gets a global of
//! its own holding that initial value, read at the type's width whatever
//! the value's kind, and from then on the host's object stands for that
//! instance's global (see `link.rs`). Globals of an instance's exports are
//! read and set directly. `wasm_global_set` checks neither mutability nor
//! kind: the value's payload is stored at the global's width.

use std::ptr;

use cranewasm::{AsContextMut, ExternType, Global, Val, ValType};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::store::{self, StoreData, StoreObj};
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

/// The initial value of a host global: the client's value as it was given
/// (a bitwise copy, its payload read at the type's width when an instance
/// links the global), except what must be resolved at once: a v128's 16
/// bytes (the pointer is the client's only during the call) and a
/// funcref's function (the object may be deleted before the link).
pub enum Init {
    Bits(wasm_val_t),
    V128([u8; 16]),
    Func(Option<cranewasm::Func>),
}

impl Init {
    /// Keeps `v` as the initial value of a global of type `ty`; `None` for
    /// a v128 global whose value is not a v128 (its payload would be read
    /// as a pointer), and for a funcref global given a reference to
    /// something else.
    ///
    /// # Safety
    /// A v128 value must point at its 16 bytes (or be NULL); a funcref's
    /// payload may be NULL or any pointer.
    unsafe fn new(v: &wasm_val_t, ty: ValType) -> Option<Init> {
        Some(match ty {
            ValType::V128 if v.kind != crate::core::kinds::V128 => return None,
            // SAFETY: a v128 points at its 16 bytes (caller).
            ValType::V128 => Init::V128(*unsafe { v.ref_ptr().cast::<[u8; 16]>().as_ref() }?),
            // SAFETY: any pointer is looked up in the live-object table.
            ValType::FUNCREF => Init::Func(unsafe { val::func_of_ref(v.ref_ptr()) }.ok()?),
            _ => Init::Bits(*v),
        })
    }

    /// The core value of type `ty` in `store`: the payload read at the
    /// type's width; `None` if it cannot be one.
    ///
    /// # Safety
    /// `cx` must be a context of a live store's core store.
    pub unsafe fn to_core(&self, cx: impl AsContextMut<Data = StoreData>, ty: ValType) -> Option<Val> {
        match (self, ty) {
            (Init::V128(bytes), ValType::V128) => Some(Val::V128(cranewasm::V128(u128::from_le_bytes(*bytes)))),
            (Init::Func(f), ValType::FUNCREF) => Some(Val::FuncRef(*f)),
            // Numbers and host pointers are read as bits; other references
            // (GC references, typed function references) are looked up
            // only now, so one deleted meanwhile is refused.
            (Init::Bits(v), ValType::I32 | ValType::I64 | ValType::F32 | ValType::F64 | ValType::Ref(_)) => {
                // SAFETY: as the caller promises.
                unsafe { val::to_core(cx, v, ty) }.ok()
            }
            _ => None,
        }
    }
}

/// The store and core global of a global handle that stands for one.
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

/// A host global of type `ty` whose initial value is `init`, of any kind
/// (see the module documentation): in `store`, or in none for a NULL
/// store, as in WAMR. NULL for a NULL type or value, and for a v128 global
/// given another kind of value.
///
/// # Safety
/// `store` and `ty` may be NULL or any pointers: anything but a live store
/// (for which the global belongs to no store) and global type counts as
/// NULL. `init` must be NULL or a valid value (a v128 pointing at 16
/// bytes). The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_new(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_globaltype_t>,
    init: Option<&wasm_val_t>,
) -> *mut wasm_global_t {
    // SAFETY: the client keeps the threading rule above.
    let Some(ExternType::Global(gt)) = (unsafe { types::extern_type(ty) }) else { return ptr::null_mut() };
    // SAFETY: a valid value (caller).
    let Some(init) = init.and_then(|v| unsafe { Init::new(v, gt.content) }) else { return ptr::null_mut() };
    // SAFETY: as above.
    let store = unsafe { store::from_c(store) }.unwrap_or(ptr::null_mut());
    // SAFETY: the store is NULL or live.
    object::new(unsafe { ExternObj::unbound(store, Kind::Global, Unbound::Global { ty: gt, init }) })
}

/// The global's type.
///
/// # Safety
/// `g` may be NULL or any pointer: anything but a live global counts as
/// NULL. No other thread may use its store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_type(g: Option<&wasm_global_t>) -> *mut wasm_globaltype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_global_t>(g) }.map_or(ptr::null_mut(), |o| o.type_handle().cast())
}

/// Sets `*out` to the global's value (a funcref as a new function object,
/// an externref as the host pointer it was given as). A host global that
/// no instance has linked leaves `*out` alone, as in WAMR.
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
    // SAFETY: the store of a global is live; `out` is writable.
    unsafe {
        // The value's own handle ends here; a reference object pins it.
        let mut scope = cranewasm::RootScope::new(store::core(s));
        let v = g.get(&mut scope);
        out.write(val::from_core(s, &mut scope, v));
    }
}

/// Sets the global as WAMR does, checking neither its mutability nor the
/// value's kind: the value's payload is stored at the global's width (a
/// v128 global takes only a v128 value, whose payload is a pointer). A
/// host global that no instance has linked is left alone.
///
/// # Safety
/// As for [`wasm_global_type`]; `v` must be NULL or a valid value (a v128
/// pointing at 16 bytes; a funcref NULL or any pointer).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_global_set(g: Option<&mut wasm_global_t>, v: Option<&wasm_val_t>) {
    // SAFETY: the client keeps the threading rule above.
    let (Some((s, g)), Some(v)) = (unsafe { global(g.as_deref()) }, v) else { return };
    // SAFETY: the store of a global is live; claimed, it is not otherwise
    // borrowed; `v` is valid (caller).
    unsafe {
        store::claimed(s, "wasm_global_set", || {
            let content = g.ty(store::core(s)).content;
            let Some(init) = Init::new(v, content) else { return };
            if let Some(v) = init.to_core(store::core(s), content) {
                let _ = g.set_ignoring_mutability(store::core(s), v);
            }
        });
    }
}
