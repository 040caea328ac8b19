//! Array objects (`wasm_array_obj_t`) over the core's [`ArrayRef`]: made
//! by the host filled with one value, read and written element by
//! element, copied, and reached in place by address.
//!
//! As for struct objects (`struct_obj.rs`): writes ignore mutability as
//! WAMR's do, bad arguments are refused (NULL, 0, or nothing, logged),
//! and an array of non-nullable references has no default, so one made
//! without an initial value is refused.
//!
//! **Element addresses** (`wasm_array_obj_elem_addr`,
//! `_first_elem_addr`) are valid only until the store next allocates or
//! runs wasm. WAMR's collector never moves objects; ours copies them, so
//! an address taken before a collection names freed memory after it.
//! Pinning (`wasm_runtime_pin_object`) keeps an object alive, not in
//! place. Elements are little-endian at the element type's size, and a
//! reference element of the `any` hierarchy is a 32-bit heap word, not a
//! `wasm_obj_t`: read references with `wasm_array_obj_get_elem`.

use cranewasm::{ArrayRef, RootScope};

use crate::core::module::module;
use crate::core::runtime::log;
use crate::export::exec_env::exec_env;
use crate::export::gc::defined::{DefinedTypeObj, defined, handle_of};
use crate::export::gc::object::{GcValue, add_to, cell, owner};
use crate::export::gc::value::{array_elem, from_val, to_val, wasm_value_t};
use crate::export::instance::ModuleInst;
use crate::export::types::*;
use crate::wasm_module_t;

pub use crate::export::gc::object::wasm_array_obj_t;

/// A new array of type `ty`, `length` elements each `init` (default when
/// NULL), owned by the exec env's instance; NULL (logged) for bad
/// arguments or a full heap.
///
/// # Safety
/// `init` NULL or readable; an object in it and its instance alive.
unsafe fn new_array(
    env: wasm_exec_env_t,
    ty: &DefinedTypeObj,
    length: u32,
    init: *const wasm_value_t,
) -> wasm_array_obj_t {
    let Some(inst) = exec_env(env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    let cranewasm::CompositeType::Array(f) = &ty.sub.composite else {
        log(1, format_args!("wasm_array_obj_new: type {} is not an array type", ty.index));
        return std::ptr::null_mut();
    };
    let made = {
        let locked = inst.lock();
        let mut scope = RootScope::new(locked.store());
        // SAFETY: as the caller promises.
        match unsafe { init.as_ref() } {
            None => ArrayRef::new_default(&mut scope, &ty.module, ty.index, length),
            // A reference type's concrete index is the module's here, which
            // the conversion does not read (a null is a null of any type).
            // SAFETY: as the caller promises.
            Some(v) => match unsafe { to_val(&mut scope, v, f.storage) } {
                Some(v) => ArrayRef::new(&mut scope, &ty.module, ty.index, v, length),
                None => return std::ptr::null_mut(),
            },
        }
        // Pinned: the cell outlives the scope, and any host call.
        .and_then(|a| a.pin(&scope))
    };
    match made {
        Ok(obj) => add_to(inst, GcValue::Array { inst: inst.handle(), serial: inst.serial, obj }).cast(),
        Err(e) => {
            log(1, format_args!("wasm_array_obj_new: type {}: {e}", ty.index));
            std::ptr::null_mut()
        }
    }
}

/// A new array of type `type_idx` of the exec env's instance's module,
/// of `length` elements each `*init_value` (zero or null when NULL); NULL
/// for bad arguments or a full heap.
///
/// # Safety
/// `exec_env` NULL or any pointer; `init_value` NULL or readable; the
/// instance's module loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_new_with_typeidx(
    exec_env: wasm_exec_env_t,
    type_idx: u32,
    length: u32,
    init_value: *mut wasm_value_t,
) -> wasm_array_obj_t {
    let Some(inst) = self::exec_env(exec_env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    // SAFETY: a handle, checked; the client keeps the module loaded.
    let Some(m) = (unsafe { module(inst.module_handle as wasm_module_t) }) else { return std::ptr::null_mut() };
    // SAFETY: a handle of the module, just made.
    match unsafe { defined(handle_of(m, type_idx)) } {
        // SAFETY: `init_value` as the caller promises.
        Some(ty) => unsafe { new_array(exec_env, ty, length, init_value) },
        None => std::ptr::null_mut(),
    }
}

/// A new array of defined array type `type` (of any module of the
/// engine), as [`wasm_array_obj_new_with_typeidx`].
///
/// # Safety
/// As for [`wasm_array_obj_new_with_typeidx`]; `type` NULL or any pointer,
/// its module loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_new_with_type(
    exec_env: wasm_exec_env_t,
    r#type: crate::export::gc::defined::wasm_array_type_t,
    length: u32,
    init_value: *mut wasm_value_t,
) -> wasm_array_obj_t {
    // SAFETY: as the caller promises.
    match unsafe { defined(r#type) } {
        // SAFETY: `init_value` as the caller promises.
        Some(ty) => unsafe { new_array(exec_env, ty, length, init_value) },
        None => std::ptr::null_mut(),
    }
}

/// The array object at `p` and its live instance.
///
/// # Safety
/// `p` NULL or any pointer; a live object's instance must stay.
pub unsafe fn array_of<'a, P>(p: *const P) -> Option<(&'a ModuleInst, ArrayRef)> {
    // SAFETY: as the caller promises.
    match unsafe { cell(p) } {
        Some(GcValue::Array { inst, serial, obj }) => Some((owner(*inst, *serial)?, *obj)),
        _ => None,
    }
}

/// Sets element `elem_idx` of `array_obj` to `*value`, even of an
/// immutable array type (as WAMR does, to fill arrays made from C); nothing (logged) for bad arguments or an index
/// out of bounds.
///
/// # Safety
/// `array_obj` NULL or any pointer; `value` NULL or readable; objects in
/// it and their instances alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_set_elem(
    array_obj: wasm_array_obj_t,
    elem_idx: u32,
    value: *const wasm_value_t,
) {
    // SAFETY: as the caller promises.
    let (Some((inst, a)), Some(value)) = (unsafe { array_of(array_obj) }, unsafe { value.as_ref() }) else { return };
    let locked = inst.lock();
    let mut scope = RootScope::new(locked.store());
    let Some(storage) = array_elem(&scope, &a) else { return };
    // SAFETY: as the caller promises.
    let Some(v) = (unsafe { to_val(&mut scope, value, storage) }) else { return };
    if let Err(e) = a.init_elem(&mut scope, elem_idx, v) {
        log(1, format_args!("wasm_array_obj_set_elem: {e}"));
    }
}

/// Element `elem_idx` of `array_obj` into `*value` (as
/// `wasm_struct_obj_get_field` reads a field); `*value` zeroed for bad
/// arguments or an index out of bounds.
///
/// # Safety
/// `array_obj` NULL or any pointer; `value` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_get_elem(
    array_obj: wasm_array_obj_t,
    elem_idx: u32,
    sign_extend: bool,
    value: *mut wasm_value_t,
) {
    // SAFETY: as the caller promises.
    let Some(out) = (unsafe { value.as_mut() }) else { return };
    *out = crate::export::gc::value::WASMValue { v128: [0; 2] };
    // SAFETY: as the caller promises.
    let Some((inst, a)) = (unsafe { array_of(array_obj) }) else { return };
    let locked = inst.lock();
    let scope = RootScope::new(locked.store());
    let Some(storage) = array_elem(&scope, &a) else { return };
    match a.get(&scope, elem_idx) {
        Ok(v) => *out = from_val(inst, &scope, v, storage, sign_extend),
        Err(e) => log(1, format_args!("wasm_array_obj_get_elem: {e}")),
    }
}

/// Copies `len` elements of `src_obj` from `src_idx` to `dst_obj` at
/// `dst_idx` (the ranges may overlap); nothing (logged) for bad arguments,
/// arrays of two stores, elements of `src_obj` that do not fit `dst_obj`,
/// or a range out of bounds.
///
/// # Safety
/// Both objects NULL or any pointers.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_copy(
    dst_obj: wasm_array_obj_t,
    dst_idx: u32,
    src_obj: wasm_array_obj_t,
    src_idx: u32,
    len: u32,
) {
    // SAFETY: as the caller promises.
    let (Some((inst, dst)), Some((_, src))) = (unsafe { array_of(dst_obj) }, unsafe { array_of(src_obj) }) else {
        return;
    };
    let locked = inst.lock();
    if let Err(e) = dst.init_copy(locked.store(), dst_idx, &src, src_idx, len) {
        log(1, format_args!("wasm_array_obj_copy: {e}"));
    }
}

/// The length of `array_obj`; 0 for anything but a live array object.
///
/// # Safety
/// `array_obj` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_length(array_obj: wasm_array_obj_t) -> u32 {
    // SAFETY: as the caller promises.
    let Some((inst, a)) = (unsafe { array_of(array_obj) }) else { return 0 };
    let locked = inst.lock();
    a.len(&*locked.store()).unwrap_or(0)
}

/// The address of element `elem_idx` of `array_obj` (the length gives the
/// end); NULL for bad arguments or an index past the end. Valid only
/// until the store next allocates or runs wasm: unlike WAMR's, this
/// collector moves objects, and a pin keeps an object alive, not in
/// place. Elements are packed little-endian at their type's size; a
/// reference element of the `any` hierarchy is a 32-bit heap word, not a
/// `wasm_obj_t` (read it with `wasm_array_obj_get_elem`).
///
/// # Safety
/// `array_obj` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_elem_addr(array_obj: wasm_array_obj_t, elem_idx: u32) -> *mut std::ffi::c_void {
    // SAFETY: as the caller promises.
    let Some((inst, a)) = (unsafe { array_of(array_obj) }) else { return std::ptr::null_mut() };
    let locked = inst.lock();
    match a.elem_addr(&*locked.store(), elem_idx) {
        Ok(p) => p.cast(),
        Err(e) => {
            log(1, format_args!("wasm_array_obj_elem_addr: {e}"));
            std::ptr::null_mut()
        }
    }
}

/// The address of the first element of `array_obj` (of its end, for an
/// empty array), as [`wasm_array_obj_elem_addr`].
///
/// # Safety
/// As for [`wasm_array_obj_elem_addr`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_array_obj_first_elem_addr(array_obj: wasm_array_obj_t) -> *mut std::ffi::c_void {
    // SAFETY: as the caller promises.
    unsafe { wasm_array_obj_elem_addr(array_obj, 0) }
}
