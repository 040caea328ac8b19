//! Tables. Elements are references: host pointers in `externref` tables,
//! function objects in `funcref` tables (see [`crate::c_api::val`]).

use std::ptr;

use cranewasm::{ExternType, RootScope, Table, Val, ValType};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::store::{self, StoreObj};
use crate::c_api::types::{self, wasm_tabletype_t};
use crate::c_api::val;
use crate::handle::Kind;
use crate::object::{self, c_object, get};
use crate::*;

c_object! {
    /// A table; also a `wasm_extern_t`.
    wasm_table_t: ExternObj [Table];
    delete: wasm_table_delete;
    copy: wasm_table_copy;
    same: wasm_table_same;
    host_info: wasm_table_get_host_info, wasm_table_set_host_info, wasm_table_set_host_info_with_finalizer;
    as_ref: wasm_table_as_ref, wasm_table_as_ref_const, wasm_ref_as_table, wasm_ref_as_table_const;
    upcast wasm_extern_t: wasm_table_as_extern, wasm_table_as_extern_const,
        wasm_extern_as_table, wasm_extern_as_table_const;
}

/// `wasm_table_size_t`: a table index or size.
pub type wasm_table_size_t = u32;

/// The store and core table of a live table handle.
///
/// # Safety
/// As for [`object::get`].
unsafe fn table(t: Option<&wasm_table_t>) -> Option<(*mut StoreObj, Table)> {
    // SAFETY: as the caller promises.
    let e = unsafe { get::<wasm_table_t>(t) }?;
    match &e.item {
        Item::Table(t) => Some((e.header.store, *t)),
        _ => None,
    }
}

/// The core value of a reference for a table of `element`s.
///
/// # Safety
/// `s` must be live and not otherwise borrowed; `r` NULL or any pointer.
unsafe fn ref_value(s: *mut StoreObj, element: ValType, r: *mut wasm_ref_t) -> Option<Val> {
    let v = val::wasm_val_t::new(element, val::wasm_val_union { r#ref: r });
    // SAFETY: as the caller promises; a reference is any pointer.
    unsafe { val::to_core(store::core(s), &v, element) }.ok()
}

/// A table of type `ty` with every element set to `init` (NULL for null
/// references). NULL if the type is invalid or too large. With a NULL
/// store, as in WAMR, a table of no store that is not backed (no elements,
/// `init` ignored) until an instance links it (see `link.rs`).
///
/// # Safety
/// `store` and `ty` may be NULL or any pointers: anything but a live store
/// and table type counts as NULL; so may `init` (for a funcref table,
/// anything but a live function reference is a null reference). The store
/// must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_new(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_tabletype_t>,
    init: *mut wasm_ref_t,
) -> *mut wasm_table_t {
    // SAFETY: the client keeps the threading rule above.
    let Some(ExternType::Table(tt)) = (unsafe { types::extern_type(ty) }) else { return ptr::null_mut() };
    // SAFETY: as above.
    let Some(s) = (unsafe { store::from_c(store) }) else {
        // SAFETY: an object of no store.
        return object::new(unsafe { ExternObj::unbound(ptr::null_mut(), Kind::Table, Unbound::Table(tt)) });
    };
    // SAFETY: the store is live and not otherwise borrowed here.
    let made = unsafe { ref_value(s, tt.element().into(), init).and_then(|v| Table::new(store::core(s), tt, v).ok()) };
    match made {
        // SAFETY: the store is live and owns the new table.
        Some(t) => object::new(unsafe { ExternObj::new(s, Kind::Table, Item::Table(t), None) }),
        None => ptr::null_mut(),
    }
}

/// The table's type as created or declared: its minimum stays the initial
/// size after growth, as in WAMR.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live table counts as
/// NULL. No other thread may use its store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_type(t: Option<&wasm_table_t>) -> *mut wasm_tabletype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_table_t>(t) }.map_or(ptr::null_mut(), |o| o.type_handle().cast())
}

/// Element `index`: NULL for a null reference or an index out of bounds.
/// A function comes back as a new function object; a host pointer as
/// itself.
///
/// # Safety
/// As for [`wasm_table_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_get(t: Option<&wasm_table_t>, index: wasm_table_size_t) -> *mut wasm_ref_t {
    // SAFETY: the client keeps the threading rule above.
    let Some((s, t)) = (unsafe { table(t) }) else { return ptr::null_mut() };
    // SAFETY: the store of a live object is live and not otherwise
    // borrowed here.
    unsafe {
        // The element's own handle ends here; the reference object pins it.
        let mut scope = RootScope::new(store::core(s));
        match t.get(&mut scope, index) {
            Some(v) => val::from_core(s, &mut scope, v).ref_ptr(),
            None => ptr::null_mut(),
        }
    }
}

/// Sets element `index`. As in WAMR, a function reference set in a
/// funcref table is taken (deleted) on success, while a host pointer in an
/// externref table stays the caller's. False for an index out of bounds
/// or a reference of the wrong kind (the reference then stays the
/// caller's).
///
/// # Safety
/// As for [`wasm_table_type`]; `r` as for [`wasm_table_new`], and a
/// function reference the caller's to give.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_set(
    t: Option<&mut wasm_table_t>,
    index: wasm_table_size_t,
    r: *mut wasm_ref_t,
) -> bool {
    // SAFETY: the client keeps the threading rule above.
    let Some((s, t)) = (unsafe { table(t.as_deref()) }) else { return false };
    // SAFETY: the store of a live object is live; claimed, it is not
    // otherwise borrowed.
    let set = unsafe {
        store::claimed(s, "wasm_table_set", || {
            let element = ValType::from(t.ty(store::core(s)).element());
            match ref_value(s, element, r) {
                Some(v) => (element, t.set(store::core(s), index, v).is_ok()),
                None => (element, false),
            }
        })
    };
    let Some((element, done)) = set else { return false };
    if done && element == ValType::FUNCREF {
        // SAFETY: the reference is the caller's to give; anything but a
        // live reference is left alone.
        unsafe { object::delete::<wasm_ref_t>(r) };
    }
    done
}

/// The number of elements.
///
/// # Safety
/// As for [`wasm_table_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_size(t: Option<&wasm_table_t>) -> wasm_table_size_t {
    // SAFETY: the client keeps the threading rule above.
    let Some((s, t)) = (unsafe { table(t) }) else { return 0 };
    // SAFETY: the store of a live object is live and not otherwise
    // borrowed here.
    t.size(unsafe { store::core(s) })
}

/// Grows the table by `delta` elements set to `init`; false past its
/// maximum.
///
/// # Safety
/// As for [`wasm_table_type`]; `init` as for [`wasm_table_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_table_grow(
    t: Option<&mut wasm_table_t>,
    delta: wasm_table_size_t,
    init: *mut wasm_ref_t,
) -> bool {
    // SAFETY: the client keeps the threading rule above.
    let Some((s, t)) = (unsafe { table(t.as_deref()) }) else { return false };
    // SAFETY: the store of a live object is live; claimed, it is not
    // otherwise borrowed.
    unsafe {
        store::claimed(s, "wasm_table_grow", || {
            let element = ValType::from(t.ty(store::core(s)).element());
            match ref_value(s, element, init) {
                Some(v) => t.grow(store::core(s), delta, v).is_ok(),
                None => false,
            }
        })
    }
    .unwrap_or(false)
}
