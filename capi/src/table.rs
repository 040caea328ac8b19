//! Tables. Elements are references: host pointers in `externref` tables,
//! function objects in `funcref` tables (see [`crate::val`]).

use std::ptr;

use cranewasm::{ExternType, Table, Val, ValType};

use crate::extern_::{copy, new_extern, obj, same, Item};
use crate::object::{release, ObjKind};
use crate::store::{self, externref_for, StoreObj};
use crate::types::{self, ExternTypeObj};
use crate::val::{self, func_of_ref};
use crate::*;

/// `wasm_table_size_t`: a table index or size.
pub type wasm_table_size_t = u32;

unsafe fn table<'a>(t: *const wasm_table_t) -> Option<(*mut StoreObj, &'a Table)> {
    match obj(t) {
        Some(e) => match &e.item {
            Item::Table(t) => Some((e.header.store, t)),
            _ => None,
        },
        None => None,
    }
}

/// The core value of a reference for a table of `element`s.
unsafe fn ref_value(s: *mut StoreObj, element: ValType, r: *mut wasm_ref_t) -> Option<Val> {
    Some(match element {
        ValType::ExternRef => Val::ExternRef((!r.is_null()).then(|| externref_for(s, store::core(s), r as usize))),
        _ => Val::FuncRef(func_of_ref(r).ok()?),
    })
}

/// A table of type `ty` with every element set to `init` (NULL for null
/// references). NULL if the type is invalid or too large.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_new(
    store: *mut wasm_store_t,
    ty: *const wasm_tabletype_t,
    init: *mut wasm_ref_t,
) -> *mut wasm_table_t {
    let Some(s) = store::from_c(store) else { return ptr::null_mut() };
    let s: *mut StoreObj = s;
    let Some(ExternType::Table(tt)) = types::obj(ty).and_then(ExternTypeObj::to_core) else { return ptr::null_mut() };
    let made = ref_value(s, tt.element, init).and_then(|v| Table::new(store::core(s), tt, v).ok());
    match made {
        Some(t) => new_extern(s, ObjKind::Table, Item::Table(t)).cast(),
        None => ptr::null_mut(),
    }
}

/// The table's type as created or declared: its minimum stays the initial
/// size after growth, as in WAMR.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_type(t: *const wasm_table_t) -> *mut wasm_tabletype_t {
    match table(t) {
        Some((s, t)) => ExternTypeObj::new_boxed(&ExternType::Table(t.declared_ty(store::core(s)))).cast(),
        None => ptr::null_mut(),
    }
}

/// Element `index`: NULL for a null reference or an index out of bounds.
/// A function comes back as a new function object; a host pointer as
/// itself.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_get(t: *const wasm_table_t, index: wasm_table_size_t) -> *mut wasm_ref_t {
    let Some((s, t)) = table(t) else { return ptr::null_mut() };
    match t.get(store::core(s), index) {
        Some(v) => val::from_core(s, store::core(s), v).ref_ptr(),
        None => ptr::null_mut(),
    }
}

/// Sets element `index` (the reference stays the caller's). False for an
/// index out of bounds or a reference of the wrong kind.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_set(t: *mut wasm_table_t, index: wasm_table_size_t, r: *mut wasm_ref_t) -> bool {
    let Some((s, t)) = table(t) else { return false };
    let element = t.ty(store::core(s)).element;
    match ref_value(s, element, r) {
        Some(v) => t.set(store::core(s), index, v).is_ok(),
        None => false,
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_table_size(t: *const wasm_table_t) -> wasm_table_size_t {
    table(t).map_or(0, |(s, t)| t.size(store::core(s)))
}

/// Grows the table by `delta` elements set to `init`; false past its
/// maximum.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_grow(
    t: *mut wasm_table_t,
    delta: wasm_table_size_t,
    init: *mut wasm_ref_t,
) -> bool {
    let Some((s, t)) = table(t) else { return false };
    let element = t.ty(store::core(s)).element;
    match ref_value(s, element, init) {
        Some(v) => t.grow(store::core(s), delta, v).is_ok(),
        None => false,
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_table_copy(t: *const wasm_table_t) -> *mut wasm_table_t {
    copy(t)
}

/// Deletes the handle; the table lives on in its store.
#[no_mangle]
pub unsafe extern "C" fn wasm_table_delete(t: *mut wasm_table_t) {
    release(t.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_table_same(a: *const wasm_table_t, b: *const wasm_table_t) -> bool {
    same(a, b)
}
