//! GC references from C: what a `wasm_ref_t` holding a GC reference
//! ([`crate::c_api::anyref`]) is, i31s, and the fields and elements of
//! structs and arrays, read, written and allocated by the host.
//!
//! wasm.h has nothing for these, and WAMR's `gc_export.h` works on
//! `wasm_export.h`'s instances, not on a `wasm_store_t`; the Python
//! package builds its struct and array access on these.
//!
//! * Values go in and out as `wasm_val_t`s of the field's type: a packed
//!   i8 or i16 field as a `WASM_I32` (its low bits kept on a write;
//!   zero- or sign-extended on a read, as the caller asks), a reference
//!   as a reference value of [`crate::c_api::val`] (a new object out,
//!   owned by the caller).
//! * Every bad argument (NULL, a reference that is not a struct or an
//!   array, an index past the end, a value of the wrong type, an
//!   immutable field, a heap that is full) is refused: false or NULL,
//!   with the reason in `cranewasm_last_error` (and on stderr at the
//!   default log level). Nothing is asserted.
//! * Allocations may collect; references the caller holds as `wasm_ref_t`s
//!   are pinned, so they stay valid.

use std::ptr;

use cranewasm::{
    AnyRef, ArrayRef, AsContext, AsContextMut, CompositeType, FieldType, HeapType, I31, RootScope, StorageType,
    StructRef, Val, ValType,
};

use crate::c_api::anyref::{self, AnyRefObj};
use crate::c_api::module::slot;
use crate::c_api::store::{self, StoreData, StoreObj};
use crate::c_api::val::{self, wasm_val_t, wasm_valkind_t};
use crate::c_api::vec::wasm_val_vec_t;
use crate::core::kinds;
use crate::*;

/// `cranewasm_ref_gc_kind`: not a live GC reference (NULL, a function, a
/// host pointer, ...).
pub const CRANEWASM_REF_NOT_GC: u8 = 0;
/// An i31 (`cranewasm_ref_i31_get`).
pub const CRANEWASM_REF_I31: u8 = 1;
/// A struct (`cranewasm_struct_*`).
pub const CRANEWASM_REF_STRUCT: u8 = 2;
/// An array (`cranewasm_array_*`).
pub const CRANEWASM_REF_ARRAY: u8 = 3;
/// Host data made internal by `any.convert_extern`.
pub const CRANEWASM_REF_HOST: u8 = 4;

/// The reference object `r` and its store, or `None` (logged as `what`'s
/// error).
///
/// # Safety
/// `r` NULL or any pointer.
unsafe fn lookup<'a>(r: *const wasm_ref_t, what: &str) -> Option<(&'a AnyRefObj, *mut StoreObj)> {
    // SAFETY: as the caller promises.
    match unsafe { anyref::get(r) } {
        Some(obj) if !obj.store().is_null() => Some((obj, obj.store())),
        _ => {
            log(format_args!("{what}: not a GC reference: {r:p}"));
            None
        }
    }
}

/// Runs `f` on the core store of `s`, claimed, inside a root scope (handles
/// `f` makes end with it; what it hands out is pinned); the error, if
/// any, is logged as `what`'s.
///
/// # Safety
/// `s` must be a live store.
unsafe fn in_store<R>(
    s: *mut StoreObj,
    what: &str,
    f: impl FnOnce(&mut RootScope<&mut cranewasm::Store<StoreData>>) -> Result<R, String>,
) -> Option<R> {
    // SAFETY: live (caller); claimed, the store is not otherwise borrowed.
    let r = unsafe { store::claimed(s, what, || f(&mut RootScope::new(store::core(s)))) }?;
    r.map_err(|e| log(format_args!("{what}: {e}"))).ok()
}

/// The value type a field of `f` is read and written as, and its kind
/// code. A concrete reference type is looked up, so that a struct or
/// array type reports `WASM_EXTERNREF` (alias `WASM_ANYREF`) rather than
/// `WASM_FUNCREF`.
fn field_val_type(cx: impl AsContext, f: FieldType) -> (ValType, wasm_valkind_t) {
    let ty = match f.storage {
        StorageType::I8 | StorageType::I16 => ValType::I32,
        StorageType::Val(t) => t,
    };
    let kind = match ty {
        ValType::Ref(r) => match cx.as_context().engine().top_of(r) {
            HeapType::Func => kinds::FUNCREF,
            _ => kinds::EXTERNREF,
        },
        t => kinds::valkind(t),
    };
    (ty, kind)
}

/// Extends a packed field's zero-extended value by its sign bit.
fn sign_extend(v: Val, storage: StorageType) -> Val {
    match (v, storage) {
        (Val::I32(x), StorageType::I8) => Val::I32(i32::from(x as i8)),
        (Val::I32(x), StorageType::I16) => Val::I32(i32::from(x as i16)),
        (v, _) => v,
    }
}

/// Writes what `f` tells of a field type to the out-parameters that are
/// not NULL: its kind code, its packed width in bits (0 if not packed),
/// and whether it is mutable.
///
/// # Safety
/// Each pointer NULL or writable.
unsafe fn write_field_type(
    cx: impl AsContext,
    f: FieldType,
    kind: *mut wasm_valkind_t,
    packed_bits: *mut u8,
    mutable: *mut bool,
) {
    let bits = match f.storage {
        StorageType::I8 => 8,
        StorageType::I16 => 16,
        StorageType::Val(_) => 0,
    };
    // SAFETY: each NULL or writable (caller).
    unsafe {
        if let Some(k) = kind.as_mut() {
            *k = field_val_type(cx, f).1;
        }
        if let Some(b) = packed_bits.as_mut() {
            *b = bits;
        }
        if let Some(m) = mutable.as_mut() {
            *m = f.mutable;
        }
    }
}

/// What the reference `r` is: one of the `CRANEWASM_REF_*` codes
/// (`CRANEWASM_REF_NOT_GC` for NULL and for anything but a live GC
/// reference).
///
/// # Safety
/// `r` NULL or any pointer; not deleted meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_ref_gc_kind(r: *const wasm_ref_t) -> u8 {
    // SAFETY: as the caller promises.
    let Some(obj) = (unsafe { anyref::get(r) }) else { return CRANEWASM_REF_NOT_GC };
    match (obj.value.as_i31(), obj.value.as_object()) {
        (Some(_), _) => CRANEWASM_REF_I31,
        (_, Some(o)) if o.is_array() => CRANEWASM_REF_ARRAY,
        (_, Some(_)) => CRANEWASM_REF_STRUCT,
        _ => CRANEWASM_REF_HOST,
    }
}

/// A new reference to the i31 of `value`'s low 31 bits, in `store`; NULL
/// for a bad store.
///
/// # Safety
/// `store` NULL or any pointer; not used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_ref_i31_new(store: Option<&mut wasm_store_t>, value: i32) -> *mut wasm_ref_t {
    // SAFETY: as the caller promises.
    let Some(s) = (unsafe { store::from_c(store) }) else { return ptr::null_mut() };
    // SAFETY: a live store, not otherwise borrowed here.
    unsafe { anyref::new_ref(s, store::core(s), AnyRef::from_i31(I31::wrapping_i32(value))) }
}

/// Reads the i31 `r` holds into `*out`, sign-extended from 31 bits or
/// zero-extended; false (and `*out` untouched) if `r` is not an i31.
///
/// # Safety
/// `r` NULL or any pointer; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_ref_i31_get(r: *const wasm_ref_t, sign_extend: bool, out: *mut i32) -> bool {
    // SAFETY: as the caller promises.
    let Some(v) = (unsafe { anyref::get(r) }).and_then(|o| o.value.as_i31()) else {
        log(format_args!("cranewasm_ref_i31_get: not an i31 reference: {r:p}"));
        return false;
    };
    // SAFETY: NULL or writable (caller).
    if let Some(out) = unsafe { out.as_mut() } {
        *out = if sign_extend { v.get_i32() } else { v.get_u32() as i32 };
    }
    true
}

/// The index of `r`'s type in `module`'s type section (the first, if
/// several are the same type) in `*out`; false if `r` is not a struct or
/// array, or its type is not one of `module`'s.
///
/// # Safety
/// `r` and `module` NULL or any pointers; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_ref_type_index(
    r: *const wasm_ref_t,
    module: *const wasm_module_t,
    out: *mut u32,
) -> bool {
    const WHAT: &str = "cranewasm_ref_type_index";
    // SAFETY: as the caller promises.
    let (Some((obj, s)), Some(m)) = (unsafe { lookup(r, WHAT) }, unsafe { slot(module) }) else { return false };
    let Some(o) = obj.value.as_object() else { return false };
    // SAFETY: the store of a live reference is live.
    let found = unsafe { in_store(s, WHAT, |cx| o.type_index_in(&*cx, m.module()).map_err(|e| e.to_string())) };
    match found.flatten() {
        Some(i) => {
            // SAFETY: NULL or writable (caller).
            if let Some(out) = unsafe { out.as_mut() } {
                *out = i;
            }
            true
        }
        None => false,
    }
}

/// A new struct of type `type_index` of `module` (whose engine must be the
/// store's), with `fields` in order, or every field at its default (zero,
/// null) when `fields` is NULL. NULL for a bad argument or a full heap.
///
/// # Safety
/// `store` and `module` NULL or any pointers; `fields` NULL or a valid
/// vector of values (as for `wasm_func_call`'s arguments).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_struct_new(
    store: Option<&mut wasm_store_t>,
    module: *const wasm_module_t,
    type_index: u32,
    fields: *const wasm_val_vec_t,
) -> *mut wasm_ref_t {
    const WHAT: &str = "cranewasm_struct_new";
    // SAFETY: as the caller promises.
    let (Some(s), Some(m)) = (unsafe { store::from_c(store) }, unsafe { slot(module) }) else {
        log(format_args!("{WHAT}: a store and a module are needed"));
        return ptr::null_mut();
    };
    let module = m.module();
    // SAFETY: the store is live; the vector valid (caller).
    unsafe {
        in_store(s, WHAT, |cx| {
            let made = match fields.as_ref() {
                None => StructRef::new_default(&mut *cx, module, type_index),
                Some(fields) => {
                    let types = struct_field_types(module, type_index)?;
                    let given = fields.raw().first(fields.size);
                    if given.len() != types.len() {
                        return Err(format!(
                            "struct type {type_index} has {} fields; {} values were given",
                            types.len(),
                            given.len()
                        ));
                    }
                    let mut vals = Vec::with_capacity(given.len());
                    for (i, (v, f)) in given.iter().zip(types).enumerate() {
                        let ty = field_val_type(&*cx, f).0;
                        vals.push(val::to_core(&mut *cx, v, ty).map_err(|e| format!("field {i}: {e}"))?);
                    }
                    StructRef::new(&mut *cx, module, type_index, &vals)
                }
            };
            let made = made.map_err(|e| e.to_string())?;
            Ok(anyref::new_ref(s, &*cx, made.into()))
        })
    }
    .unwrap_or(ptr::null_mut())
}

/// The field types of struct type `type_index` of `module`, as the module
/// declares them.
fn struct_field_types(module: &cranewasm::Module, type_index: u32) -> Result<Vec<FieldType>, String> {
    match module.defined_type(type_index).map(|t| t.composite) {
        Some(CompositeType::Struct(f)) => Ok(f.into_vec()),
        _ => Err(format!("type {type_index} is not a struct type of the module")),
    }
}

/// A struct's fields or an array's elements, reached by index alike.
#[derive(Copy, Clone)]
enum Elements {
    Struct(StructRef),
    Array(ArrayRef),
}

impl Elements {
    /// The struct (or with `array`, the array) `r` is, with its store;
    /// logged as `what`'s error if it is not one.
    ///
    /// # Safety
    /// `r` NULL or any pointer.
    unsafe fn of(r: *const wasm_ref_t, array: bool, what: &str) -> Option<(Elements, *mut StoreObj)> {
        // SAFETY: as the caller promises.
        let (obj, s) = unsafe { lookup(r, what) }?;
        let found = match array {
            false => obj.value.as_struct().map(Elements::Struct),
            true => obj.value.as_array().map(Elements::Array),
        };
        if found.is_none() {
            log(format_args!("{what}: not {} reference", if array { "an array" } else { "a struct" }));
        }
        Some((found?, s))
    }

    /// The type of field (or element) `index`: an array's elements share
    /// one, whatever the index.
    fn ty(&self, cx: impl AsContext, index: u32) -> Result<FieldType, String> {
        match self {
            Elements::Struct(s) => s.field_type(cx, index as usize),
            Elements::Array(a) => a.elem_type(cx),
        }
        .map_err(|e| e.to_string())
    }

    fn get(&self, cx: impl AsContext, index: u32) -> Result<Val, String> {
        match self {
            Elements::Struct(s) => s.field(cx, index as usize),
            Elements::Array(a) => a.get(cx, index),
        }
        .map_err(|e| e.to_string())
    }

    fn set(&self, cx: impl AsContextMut, index: u32, v: Val) -> Result<(), String> {
        match self {
            Elements::Struct(s) => s.set_field(cx, index as usize, v),
            Elements::Array(a) => a.set(cx, index, v),
        }
        .map_err(|e| e.to_string())
    }
}

/// `cranewasm_struct_field_type` and `_array_elem_type`.
///
/// # Safety
/// `r` NULL or any pointer; the others NULL or writable.
unsafe fn type_at(
    r: *const wasm_ref_t,
    array: bool,
    index: u32,
    out: (*mut wasm_valkind_t, *mut u8, *mut bool),
    what: &str,
) -> bool {
    // SAFETY: as the caller promises; a live reference's store is live.
    unsafe {
        let Some((e, s)) = Elements::of(r, array, what) else { return false };
        in_store(s, what, |cx| {
            let f = e.ty(&*cx, index)?;
            write_field_type(&*cx, f, out.0, out.1, out.2);
            Ok(())
        })
        .is_some()
    }
}

/// `cranewasm_struct_get` and `_array_get`.
///
/// # Safety
/// `r` NULL or any pointer; `out` NULL or writable.
unsafe fn get_at(r: *const wasm_ref_t, array: bool, index: u32, sign: bool, out: *mut wasm_val_t, what: &str) -> bool {
    // SAFETY: as the caller promises; a live reference's store is live.
    unsafe {
        let Some((e, s)) = Elements::of(r, array, what) else { return false };
        in_store(s, what, |cx| {
            let f = e.ty(&*cx, index)?;
            let v = e.get(&*cx, index)?;
            write_out(s, cx, v, f, sign, out);
            Ok(())
        })
        .is_some()
    }
}

/// `cranewasm_struct_set` and `_array_set`.
///
/// # Safety
/// `r` NULL or any pointer; `value` NULL or a valid value.
unsafe fn set_at(r: *const wasm_ref_t, array: bool, index: u32, value: *const wasm_val_t, what: &str) -> bool {
    // SAFETY: as the caller promises; a live reference's store is live.
    unsafe {
        let Some((e, s)) = Elements::of(r, array, what) else { return false };
        in_store(s, what, |cx| {
            let f = e.ty(&*cx, index)?;
            let v = read_in(cx, f, value)?;
            e.set(&mut *cx, index, v)
        })
        .is_some()
    }
}

/// How many fields the struct `r` has; 0 (logged) if `r` is not a struct.
///
/// # Safety
/// `r` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_struct_field_count(r: *const wasm_ref_t) -> u32 {
    const WHAT: &str = "cranewasm_struct_field_count";
    // SAFETY: as the caller promises; a live reference's store is live.
    unsafe {
        let Some((Elements::Struct(st), s)) = Elements::of(r, false, WHAT) else { return 0 };
        in_store(s, WHAT, |cx| st.field_count(&*cx).map_err(|e| e.to_string())).map_or(0, |n| n as u32)
    }
}

/// Field `index` of struct `r`'s type: its kind code (`WASM_I32` for a
/// packed field), its packed width in bits (8, 16, or 0 if not packed)
/// and whether it is mutable, each written where the pointer is not
/// NULL. False for a bad reference or index.
///
/// # Safety
/// `r` NULL or any pointer; the others NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_struct_field_type(
    r: *const wasm_ref_t,
    index: u32,
    kind: *mut wasm_valkind_t,
    packed_bits: *mut u8,
    mutable: *mut bool,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { type_at(r, false, index, (kind, packed_bits, mutable), "cranewasm_struct_field_type") }
}

/// Reads field `index` of struct `r` into `*out` (a packed field
/// sign-extended if `sign_extend`, else zero-extended; a reference as a
/// new object, the caller's). False, with `*out` untouched, for a bad
/// reference or index.
///
/// # Safety
/// `r` NULL or any pointer; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_struct_get(
    r: *const wasm_ref_t,
    index: u32,
    sign_extend: bool,
    out: *mut wasm_val_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { get_at(r, false, index, sign_extend, out, "cranewasm_struct_get") }
}

/// Sets field `index` of struct `r` to `value` (of the field's type, as
/// `cranewasm_struct_field_type` tells it). False for a bad reference,
/// index or value, or an immutable field.
///
/// # Safety
/// `r` NULL or any pointer; `value` NULL or a valid value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_struct_set(r: *mut wasm_ref_t, index: u32, value: *const wasm_val_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { set_at(r, false, index, value, "cranewasm_struct_set") }
}

/// A new array of type `type_index` of `module` (whose engine must be the
/// store's) of `len` elements, each `init`, or each at its default (zero,
/// null) when `init` is NULL. NULL for a bad argument or a full heap.
///
/// # Safety
/// `store` and `module` NULL or any pointers; `init` NULL or a valid
/// value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_array_new(
    store: Option<&mut wasm_store_t>,
    module: *const wasm_module_t,
    type_index: u32,
    init: *const wasm_val_t,
    len: u32,
) -> *mut wasm_ref_t {
    const WHAT: &str = "cranewasm_array_new";
    // SAFETY: as the caller promises.
    let (Some(s), Some(m)) = (unsafe { store::from_c(store) }, unsafe { slot(module) }) else {
        log(format_args!("{WHAT}: a store and a module are needed"));
        return ptr::null_mut();
    };
    let module = m.module();
    // SAFETY: the store is live; `init` valid (caller).
    unsafe {
        in_store(s, WHAT, |cx| {
            let made = if init.is_null() {
                ArrayRef::new_default(&mut *cx, module, type_index, len)
            } else {
                let Some(CompositeType::Array(f)) = module.defined_type(type_index).map(|t| t.composite) else {
                    return Err(format!("type {type_index} is not an array type of the module"));
                };
                let v = read_in(cx, f, init)?;
                ArrayRef::new(&mut *cx, module, type_index, v, len)
            };
            let made = made.map_err(|e| e.to_string())?;
            Ok(anyref::new_ref(s, &*cx, made.into()))
        })
    }
    .unwrap_or(ptr::null_mut())
}

/// The length of array `r` in `*out`; false if `r` is not an array.
///
/// # Safety
/// `r` NULL or any pointer; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_array_len(r: *const wasm_ref_t, out: *mut u32) -> bool {
    const WHAT: &str = "cranewasm_array_len";
    // SAFETY: as the caller promises; a live reference's store is live.
    unsafe {
        let Some((Elements::Array(a), s)) = Elements::of(r, true, WHAT) else { return false };
        let Some(n) = in_store(s, WHAT, |cx| a.len(&*cx).map_err(|e| e.to_string())) else { return false };
        if let Some(out) = out.as_mut() {
            *out = n;
        }
        true
    }
}

/// The element type of array `r`, as `cranewasm_struct_field_type` tells
/// a field's.
///
/// # Safety
/// `r` NULL or any pointer; the others NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_array_elem_type(
    r: *const wasm_ref_t,
    kind: *mut wasm_valkind_t,
    packed_bits: *mut u8,
    mutable: *mut bool,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { type_at(r, true, 0, (kind, packed_bits, mutable), "cranewasm_array_elem_type") }
}

/// Reads element `index` of array `r` into `*out`, as
/// `cranewasm_struct_get` reads a field.
///
/// # Safety
/// `r` NULL or any pointer; `out` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_array_get(
    r: *const wasm_ref_t,
    index: u32,
    sign_extend: bool,
    out: *mut wasm_val_t,
) -> bool {
    // SAFETY: as the caller promises.
    unsafe { get_at(r, true, index, sign_extend, out, "cranewasm_array_get") }
}

/// Sets element `index` of array `r` to `value`, as `cranewasm_struct_set`
/// sets a field.
///
/// # Safety
/// `r` NULL or any pointer; `value` NULL or a valid value.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_array_set(r: *mut wasm_ref_t, index: u32, value: *const wasm_val_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { set_at(r, true, index, value, "cranewasm_array_set") }
}

/// The core value of C value `v` for a field of type `f`.
///
/// # Safety
/// `v` NULL or a valid value.
unsafe fn read_in(
    cx: &mut RootScope<&mut cranewasm::Store<StoreData>>,
    f: FieldType,
    v: *const wasm_val_t,
) -> Result<Val, String> {
    // SAFETY: NULL or valid (caller).
    let v = unsafe { v.as_ref() }.ok_or("a value is needed")?;
    // A module's own field type names a concrete type by its index, which
    // `field_val_type` cannot look up: any reference kind goes, and the
    // value's object says what it is (see `val::to_core`).
    let (ty, kind) = field_val_type(&*cx, f);
    if v.kind != kind && (v.kind < kinds::EXTERNREF || kind < kinds::EXTERNREF) {
        return Err(format!("a value of kind {} was given for a field of kind {kind}", v.kind));
    }
    // SAFETY: valid (caller).
    unsafe { val::to_core(&mut *cx, v, ty) }
}

/// Writes field value `v` of type `f` to `*out` (if not NULL) as C sees it.
///
/// # Safety
/// `s` live, `cx` its core store's scope; `out` NULL or writable.
unsafe fn write_out(
    s: *mut StoreObj,
    cx: &mut RootScope<&mut cranewasm::Store<StoreData>>,
    v: Val,
    f: FieldType,
    sign: bool,
    out: *mut wasm_val_t,
) {
    let v = if sign { sign_extend(v, f.storage) } else { v };
    if !out.is_null() {
        // SAFETY: as the caller promises.
        unsafe { out.write(val::from_core(s, &mut *cx, v)) };
    }
}
