//! Import and export types: a name (two for imports) and an entity type.
//!
//! Names are kept NUL-terminated with the NUL counted, whether the runtime
//! made them (from a module) or a client handed them over with or without
//! a NUL, so that `data` can always be read as a C string.

use std::ptr;

use cranewasm::{ExportType, ImportType};

use crate::types::{wasm_externtype_copy, wasm_externtype_delete, ExternTypeObj};
use crate::vec::{name_from_str, take_name, wasm_byte_vec_copy, wasm_byte_vec_delete, wasm_name_t, RawVec};
use crate::*;

/// What a `wasm_importtype_t *` points at.
pub struct ImportTypeObj {
    module: wasm_name_t,
    name: wasm_name_t,
    ty: *mut wasm_externtype_t,
}

/// What a `wasm_exporttype_t *` points at.
pub struct ExportTypeObj {
    name: wasm_name_t,
    ty: *mut wasm_externtype_t,
}

impl Drop for ImportTypeObj {
    fn drop(&mut self) {
        // SAFETY: the names and the type are owned by this object.
        unsafe {
            wasm_byte_vec_delete(&mut self.module);
            wasm_byte_vec_delete(&mut self.name);
            wasm_externtype_delete(self.ty);
        }
    }
}

impl Drop for ExportTypeObj {
    fn drop(&mut self) {
        // SAFETY: as for imports.
        unsafe {
            wasm_byte_vec_delete(&mut self.name);
            wasm_externtype_delete(self.ty);
        }
    }
}

impl ImportTypeObj {
    /// The C form of a module's import.
    pub fn new_boxed(i: &ImportType) -> *mut wasm_importtype_t {
        let obj = ImportTypeObj {
            module: name_from_str(&i.module),
            name: name_from_str(&i.name),
            ty: ExternTypeObj::new_boxed(&i.ty),
        };
        Box::into_raw(Box::new(obj)).cast()
    }
}

impl ExportTypeObj {
    /// The C form of a module's export.
    pub fn new_boxed(e: &ExportType) -> *mut wasm_exporttype_t {
        let obj = ExportTypeObj { name: name_from_str(&e.name), ty: ExternTypeObj::new_boxed(&e.ty) };
        Box::into_raw(Box::new(obj)).cast()
    }
}

fn copy_name(n: &wasm_name_t) -> wasm_name_t {
    let mut out = RawVec::EMPTY;
    // SAFETY: `n` is a valid name owned by a live type object.
    unsafe { wasm_byte_vec_copy((&mut out as *mut RawVec<_>).cast(), n) };
    wasm_name_t::from_raw(out)
}

/// An import type taking ownership of both names and the type. NULL (and
/// nothing taken) if any is NULL.
#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_new(
    module: *mut wasm_name_t,
    name: *mut wasm_name_t,
    ty: *mut wasm_externtype_t,
) -> *mut wasm_importtype_t {
    if module.is_null() || name.is_null() || ty.is_null() {
        // The arguments are owned: those given are consumed even so.
        wasm_byte_vec_delete(module);
        wasm_byte_vec_delete(name);
        wasm_externtype_delete(ty);
        return ptr::null_mut();
    }
    let obj = ImportTypeObj { module: take_name(module), name: take_name(name), ty };
    Box::into_raw(Box::new(obj)).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_delete(t: *mut wasm_importtype_t) {
    if !t.is_null() {
        drop(Box::from_raw(t.cast::<ImportTypeObj>()));
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_copy(t: *const wasm_importtype_t) -> *mut wasm_importtype_t {
    let Some(t) = t.cast::<ImportTypeObj>().as_ref() else { return ptr::null_mut() };
    let obj = ImportTypeObj { module: copy_name(&t.module), name: copy_name(&t.name), ty: wasm_externtype_copy(t.ty) };
    Box::into_raw(Box::new(obj)).cast()
}

/// The module name (NUL-terminated, NUL counted).
#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_module(t: *const wasm_importtype_t) -> *const wasm_name_t {
    t.cast::<ImportTypeObj>().as_ref().map_or(ptr::null(), |t| &t.module)
}

/// The field name (NUL-terminated, NUL counted).
#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_name(t: *const wasm_importtype_t) -> *const wasm_name_t {
    t.cast::<ImportTypeObj>().as_ref().map_or(ptr::null(), |t| &t.name)
}

#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_type(t: *const wasm_importtype_t) -> *const wasm_externtype_t {
    t.cast::<ImportTypeObj>().as_ref().map_or(ptr::null(), |t| t.ty)
}

/// Whether the import is satisfied by a function registered with the
/// runtime ahead of instantiation. WAMR answers from its table of native
/// symbols; cranewasm has no such table (imports are only ever given to
/// `wasm_instance_new`), so the answer is always false.
#[no_mangle]
pub unsafe extern "C" fn wasm_importtype_is_linked(_t: *const wasm_importtype_t) -> bool {
    false
}

/// An export type taking ownership of the name and the type. NULL (and
/// nothing taken) if either is NULL.
#[no_mangle]
pub unsafe extern "C" fn wasm_exporttype_new(
    name: *mut wasm_name_t,
    ty: *mut wasm_externtype_t,
) -> *mut wasm_exporttype_t {
    if name.is_null() || ty.is_null() {
        // The arguments are owned: those given are consumed even so.
        wasm_byte_vec_delete(name);
        wasm_externtype_delete(ty);
        return ptr::null_mut();
    }
    Box::into_raw(Box::new(ExportTypeObj { name: take_name(name), ty })).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_exporttype_delete(t: *mut wasm_exporttype_t) {
    if !t.is_null() {
        drop(Box::from_raw(t.cast::<ExportTypeObj>()));
    }
}

#[no_mangle]
pub unsafe extern "C" fn wasm_exporttype_copy(t: *const wasm_exporttype_t) -> *mut wasm_exporttype_t {
    let Some(t) = t.cast::<ExportTypeObj>().as_ref() else { return ptr::null_mut() };
    Box::into_raw(Box::new(ExportTypeObj { name: copy_name(&t.name), ty: wasm_externtype_copy(t.ty) })).cast()
}

/// The export's name (NUL-terminated, NUL counted).
#[no_mangle]
pub unsafe extern "C" fn wasm_exporttype_name(t: *const wasm_exporttype_t) -> *const wasm_name_t {
    t.cast::<ExportTypeObj>().as_ref().map_or(ptr::null(), |t| &t.name)
}

#[no_mangle]
pub unsafe extern "C" fn wasm_exporttype_type(t: *const wasm_exporttype_t) -> *const wasm_externtype_t {
    t.cast::<ExportTypeObj>().as_ref().map_or(ptr::null(), |t| t.ty)
}
