//! Import and export types: a name (two for imports) and an entity type.
//!
//! Names the runtime makes (from a module) are NUL-terminated with the NUL
//! counted. Names a client hands to `wasm_importtype_new` /
//! `wasm_exporttype_new` are kept as WAMR keeps them: the type copies the
//! caller's vector struct, so it owns the buffer and hands back exactly
//! those bytes (no NUL added, a given one kept), and the caller's struct
//! is left as it was. A constructor that fails takes nothing.

use std::ptr;

use cranewasm::{ExportType, ImportType};

use crate::c_api::types::{ExternTypeObj, wasm_externtype_t};
use crate::c_api::vec::{RawVec, name_from_str, wasm_byte_vec_copy, wasm_byte_vec_delete, wasm_name_t};
use crate::handle::Kind;
use crate::object::{self, Object, Own, c_object, get};

/// What a `wasm_importtype_t *` points at.
pub struct ImportTypeObj {
    module: wasm_name_t,
    name: wasm_name_t,
    ty: Own<wasm_externtype_t>,
}

/// What a `wasm_exporttype_t *` points at.
pub struct ExportTypeObj {
    name: wasm_name_t,
    ty: Own<wasm_externtype_t>,
}

impl Drop for ImportTypeObj {
    fn drop(&mut self) {
        // SAFETY: the names are owned by this object.
        unsafe {
            wasm_byte_vec_delete(&mut self.module);
            wasm_byte_vec_delete(&mut self.name);
        }
    }
}

impl Drop for ExportTypeObj {
    fn drop(&mut self) {
        // SAFETY: the name is owned by this object.
        unsafe { wasm_byte_vec_delete(&mut self.name) }
    }
}

/// A copy of an owned name.
fn copy_name(n: &wasm_name_t) -> wasm_name_t {
    let mut out = RawVec::EMPTY;
    // SAFETY: `n` is a valid name owned by a live type object.
    unsafe { wasm_byte_vec_copy((&mut out as *mut RawVec<_>).cast(), n) };
    wasm_name_t::from_raw(out)
}

/// A copy of an owned type handle (`None` if the client deleted it).
fn copy_type(t: &Own<wasm_externtype_t>) -> Option<Own<wasm_externtype_t>> {
    t.get()?.duplicate().and_then(Own::new)
}

// SAFETY: import type cells hold `ImportTypeObj`s, named by
// `wasm_importtype_t` only.
unsafe impl Object for ImportTypeObj {
    fn kind(&self) -> Kind {
        Kind::ImportType
    }
    fn duplicate(&self) -> Option<ImportTypeObj> {
        Some(ImportTypeObj { module: copy_name(&self.module), name: copy_name(&self.name), ty: copy_type(&self.ty)? })
    }
}

// SAFETY: export type cells hold `ExportTypeObj`s, named by
// `wasm_exporttype_t` only.
unsafe impl Object for ExportTypeObj {
    fn kind(&self) -> Kind {
        Kind::ExportType
    }
    fn duplicate(&self) -> Option<ExportTypeObj> {
        Some(ExportTypeObj { name: copy_name(&self.name), ty: copy_type(&self.ty)? })
    }
}

/// An owned handle on a new type object for `ty`, a type of a module of
/// `engine`.
fn type_handle(ty: &cranewasm::ExternType, engine: &cranewasm::Engine) -> Option<Own<wasm_externtype_t>> {
    // SAFETY: a fresh handle, ours alone.
    unsafe { Own::adopt(ExternTypeObj::new_handle_in(ty, Some(engine))) }
}

impl ImportTypeObj {
    /// A new import type object for a module's import (NULL if the table
    /// of objects is full).
    pub fn new_handle(i: &ImportType, engine: &cranewasm::Engine) -> *mut wasm_importtype_t {
        let Some(ty) = type_handle(&i.ty, engine) else { return ptr::null_mut() };
        object::new(ImportTypeObj { module: name_from_str(&i.module), name: name_from_str(&i.name), ty })
    }
}

impl ExportTypeObj {
    /// A new export type object for a module's export (NULL if the table
    /// of objects is full).
    pub fn new_handle(e: &ExportType, engine: &cranewasm::Engine) -> *mut wasm_exporttype_t {
        let Some(ty) = type_handle(&e.ty, engine) else { return ptr::null_mut() };
        object::new(ExportTypeObj { name: name_from_str(&e.name), ty })
    }
}

c_object! {
    /// An import of a module: module name, field name and type.
    wasm_importtype_t: ImportTypeObj [ImportType];
    delete: wasm_importtype_delete;
    copy: wasm_importtype_copy;
}

/// A name a client gives up: a bitwise copy of its struct (see the module
/// documentation).
fn adopt_name(n: &wasm_name_t) -> wasm_name_t {
    wasm_name_t::from_raw(n.raw().bitwise())
}

/// An import type taking ownership of both names (their buffers; the
/// caller's structs are left as they were) and the type. NULL, taking
/// nothing, if any is NULL or the type is not a live type.
///
/// # Safety
/// `module` and `name` must be NULL or valid vectors whose buffers the
/// caller gives up; `ty` NULL or any pointer (a live type must be the
/// caller's to give).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_importtype_new(
    module: *mut wasm_name_t,
    name: *mut wasm_name_t,
    ty: Option<&mut wasm_externtype_t>,
) -> *mut wasm_importtype_t {
    // SAFETY: NULL or valid vectors (caller).
    let (Some(module), Some(name)) = (unsafe { module.as_ref() }, unsafe { name.as_ref() }) else {
        return ptr::null_mut();
    };
    // SAFETY: the type, if live, is the caller's to give.
    let Some(ty) = (unsafe { Own::adopt(ty) }) else { return ptr::null_mut() };
    object::new(ImportTypeObj { module: adopt_name(module), name: adopt_name(name), ty })
}

/// The module name: NUL-terminated with the NUL counted for imports of a
/// module, the bytes given for an import type a client made.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live import type counts
/// as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_importtype_module(t: Option<&wasm_importtype_t>) -> *const wasm_name_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_importtype_t>(t) }.map_or(ptr::null(), |t| &t.module)
}

/// The field name (as for [`wasm_importtype_module`]).
///
/// # Safety
/// As for [`wasm_importtype_module`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_importtype_name(t: Option<&wasm_importtype_t>) -> *const wasm_name_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_importtype_t>(t) }.map_or(ptr::null(), |t| &t.name)
}

/// The import's type (owned by the import type).
///
/// # Safety
/// As for [`wasm_importtype_module`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_importtype_type(t: Option<&wasm_importtype_t>) -> *const wasm_externtype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_importtype_t>(t) }.map_or(ptr::null(), |t| t.ty.as_ptr())
}

/// Whether the runtime links the import itself, so that a client may pass
/// a `wasm_extern_new_empty` placeholder for it: WASI's functions, which
/// `wasm_instance_new` links as WAMR's does (see
/// `crate::core::wasi::resolve`). Natives registered through
/// `wasm_export.h` serve `wasm_runtime_instantiate` only, so they do not
/// count here.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live import type counts
/// as NULL (false). No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_importtype_is_linked(t: Option<&wasm_importtype_t>) -> bool {
    // SAFETY: the client keeps the threading rule of the type.
    let Some(t) = (unsafe { get::<wasm_importtype_t>(t) }) else { return false };
    let text = |n: &wasm_name_t| {
        // SAFETY: an owned name of a live type object.
        let bytes: Vec<u8> = unsafe { n.raw().as_slice() }.iter().take_while(|c| **c != 0).map(|c| *c as u8).collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    crate::core::wasi::provides(&text(&t.module), &text(&t.name))
}

c_object! {
    /// An export of a module: name and type.
    wasm_exporttype_t: ExportTypeObj [ExportType];
    delete: wasm_exporttype_delete;
    copy: wasm_exporttype_copy;
}

/// An export type taking ownership of the name (its buffer, as in
/// [`wasm_importtype_new`]) and the type. NULL, taking nothing, if either
/// is NULL or the type is not a live type.
///
/// # Safety
/// As for [`wasm_importtype_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_exporttype_new(
    name: *mut wasm_name_t,
    ty: Option<&mut wasm_externtype_t>,
) -> *mut wasm_exporttype_t {
    // SAFETY: NULL or a valid vector (caller).
    let Some(name) = (unsafe { name.as_ref() }) else { return ptr::null_mut() };
    // SAFETY: the type, if live, is the caller's to give.
    let Some(ty) = (unsafe { Own::adopt(ty) }) else { return ptr::null_mut() };
    object::new(ExportTypeObj { name: adopt_name(name), ty })
}

/// The export's name: NUL-terminated with the NUL counted for exports of a
/// module, the bytes given for an export type a client made.
///
/// # Safety
/// `t` may be NULL or any pointer: anything but a live export type counts
/// as NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_exporttype_name(t: Option<&wasm_exporttype_t>) -> *const wasm_name_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_exporttype_t>(t) }.map_or(ptr::null(), |t| &t.name)
}

/// The export's type (owned by the export type).
///
/// # Safety
/// As for [`wasm_exporttype_name`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_exporttype_type(t: Option<&wasm_exporttype_t>) -> *const wasm_externtype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_exporttype_t>(t) }.map_or(ptr::null(), |t| t.ty.as_ptr())
}
