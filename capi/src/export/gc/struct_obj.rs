//! Struct objects (`wasm_struct_obj_t`): made by the host with default
//! fields, read and written field by field, over the core's
//! [`StructRef`].
//!
//! As in WAMR, a new struct has every field zero or null and the host
//! then sets them, immutable fields too (WAMR makes no difference, and
//! there is no other way to give one a value from C). Unlike WAMR, a
//! struct type with a non-nullable reference field is refused (NULL): its
//! zero would be a null where wasm assumes none. Bad handles, indices and
//! values are refused (NULL, 0, or the call does nothing, logged) rather
//! than asserted.

use cranewasm::{RootScope, StructRef};

use crate::core::module::module;
use crate::core::runtime::log;
use crate::export::exec_env::exec_env;
use crate::export::gc::defined::{DefinedTypeObj, defined, handle_of};
use crate::export::gc::object::{GcValue, add_to, cell, owner};
use crate::export::gc::value::{from_val, struct_field, to_val, wasm_value_t};
use crate::export::instance::ModuleInst;
use crate::export::types::*;
use crate::wasm_module_t;

pub use crate::export::gc::object::wasm_struct_obj_t;

/// A new struct of type `ty` with default fields, owned by the exec env's
/// instance; NULL (logged) for bad arguments or a full heap.
fn new_struct(env: wasm_exec_env_t, ty: &DefinedTypeObj) -> wasm_struct_obj_t {
    let Some(inst) = exec_env(env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    let made = {
        let locked = inst.lock();
        let mut scope = RootScope::new(locked.store());
        // Pinned: the cell outlives the scope, and any host call.
        StructRef::new_default(&mut scope, &ty.module, ty.index).and_then(|s| s.pin(&scope))
    };
    match made {
        Ok(obj) => add_to(inst, GcValue::Struct { inst: inst.handle(), serial: inst.serial, obj }).cast(),
        Err(e) => {
            log(1, format_args!("wasm_struct_obj_new: type {}: {e}", ty.index));
            std::ptr::null_mut()
        }
    }
}

/// A new struct of type `type_idx` of the exec env's instance's module,
/// every field zero or null; NULL for bad arguments (a type that is not
/// a struct type, one with a non-nullable reference field) or a full heap.
///
/// # Safety
/// `exec_env` NULL or any pointer; the instance's module must be loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_obj_new_with_typeidx(
    exec_env: wasm_exec_env_t,
    type_idx: u32,
) -> wasm_struct_obj_t {
    let Some(inst) = self::exec_env(exec_env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    // SAFETY: a handle, checked; the client keeps the module loaded.
    let Some(m) = (unsafe { module(inst.module_handle as wasm_module_t) }) else { return std::ptr::null_mut() };
    // SAFETY: a handle of the module, just made.
    match unsafe { defined(handle_of(m, type_idx)) } {
        Some(ty) => new_struct(exec_env, ty),
        None => std::ptr::null_mut(),
    }
}

/// A new struct of defined struct type `type` (of any module of the
/// engine), as [`wasm_struct_obj_new_with_typeidx`].
///
/// # Safety
/// Both NULL or any pointers; the type's module must stay loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_obj_new_with_type(
    exec_env: wasm_exec_env_t,
    r#type: crate::export::gc::defined::wasm_struct_type_t,
) -> wasm_struct_obj_t {
    // SAFETY: as the caller promises.
    match unsafe { defined(r#type) } {
        Some(ty) => new_struct(exec_env, ty),
        None => std::ptr::null_mut(),
    }
}

/// The struct object at `p` and its live instance.
///
/// # Safety
/// `p` NULL or any pointer; a live object's instance must stay.
pub unsafe fn struct_of<'a, P>(p: *const P) -> Option<(&'a ModuleInst, StructRef)> {
    // SAFETY: as the caller promises.
    match unsafe { cell(p) } {
        Some(GcValue::Struct { inst, serial, obj }) => Some((owner(*inst, *serial)?, *obj)),
        _ => None,
    }
}

/// Sets field `field_idx` of `obj` to `*value` (an `i32` for a packed
/// field, its low bits kept; a `gc_obj` for a reference: NULL, an i31, a
/// struct or array object, an externref object for an `externref` field),
/// immutable fields too (as WAMR does: a struct made from C has no other
/// way to get its values); nothing (logged) for bad arguments.
///
/// # Safety
/// `obj` NULL or any pointer; `value` NULL or readable; objects in it and
/// their instances alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_obj_set_field(obj: wasm_struct_obj_t, field_idx: u32, value: *const wasm_value_t) {
    // SAFETY: as the caller promises.
    let (Some((inst, s)), Some(value)) = (unsafe { struct_of(obj) }, unsafe { value.as_ref() }) else { return };
    let locked = inst.lock();
    let mut scope = RootScope::new(locked.store());
    let Some(storage) = struct_field(&scope, &s, field_idx as usize) else {
        log(1, format_args!("wasm_struct_obj_set_field: no field {field_idx}"));
        return;
    };
    // SAFETY: as the caller promises.
    let Some(v) = (unsafe { to_val(&mut scope, value, storage) }) else { return };
    if let Err(e) = s.init_field(&mut scope, field_idx as usize, v) {
        log(1, format_args!("wasm_struct_obj_set_field: {e}"));
    }
}

/// Field `field_idx` of `obj` into `*value`: a packed field sign-extended
/// or not as `sign_extend` says, a reference as a `gc_obj` (a new object
/// owned by `obj`'s instance each time; NULL for a function or host data
/// made internal, which the C API cannot give yet); `*value` zeroed for
/// bad arguments.
///
/// # Safety
/// `obj` NULL or any pointer; `value` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_obj_get_field(
    obj: wasm_struct_obj_t,
    field_idx: u32,
    sign_extend: bool,
    value: *mut wasm_value_t,
) {
    // SAFETY: as the caller promises.
    let Some(out) = (unsafe { value.as_mut() }) else { return };
    *out = crate::export::gc::value::WASMValue { v128: [0; 2] };
    // SAFETY: as the caller promises.
    let Some((inst, s)) = (unsafe { struct_of(obj) }) else { return };
    let locked = inst.lock();
    let scope = RootScope::new(locked.store());
    let Some(storage) = struct_field(&scope, &s, field_idx as usize) else {
        log(1, format_args!("wasm_struct_obj_get_field: no field {field_idx}"));
        return;
    };
    match s.field(&scope, field_idx as usize) {
        Ok(v) => *out = from_val(inst, &scope, v, storage, sign_extend),
        Err(e) => log(1, format_args!("wasm_struct_obj_get_field: {e}")),
    }
}

/// How many fields `obj` has; 0 for anything but a live struct object.
///
/// # Safety
/// `obj` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_struct_obj_get_field_count(obj: wasm_struct_obj_t) -> u32 {
    // SAFETY: as the caller promises.
    let Some((inst, s)) = (unsafe { struct_of(obj) }) else { return 0 };
    let locked = inst.lock();
    s.field_count(&*locked.store()).map_or(0, |n| n as u32)
}
