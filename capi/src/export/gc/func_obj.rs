//! Function objects (`wasm_func_obj_t`) and calls through them
//! (`wasm_runtime_call_func_ref`, `_a`, `_v`), and the defined type of an
//! object.
//!
//! As in WAMR, a function object names a function of the exec env's
//! instance by index (`func_idx_bound`) and a function type, and a call
//! through it is `wasm_runtime_call_wasm` (`_a`, `_v`) of that function,
//! with the same argument conventions. Unlike WAMR, making one checks
//! that the function exists and that its type is a subtype of the given
//! one, so a call can never go to a function of another type.

use cranewasm::CompositeType;

use crate::core::module::module;
use crate::core::runtime::log;
use crate::core::val::wasm_val_t;
use crate::export::call::{call_wasm_va, wasm_runtime_call_wasm, wasm_runtime_call_wasm_a};
use crate::export::exec_env::exec_env;
use crate::export::gc::defined::{DefinedTypeObj, defined, handle_of, wasm_defined_type_t};
use crate::export::gc::object::*;
use crate::export::types::*;
use crate::wasm_module_t;

/// A function object for function `func_idx` of the exec env's instance,
/// typed as `ty` (whose handle is `handle`); NULL (logged) for a bad exec
/// env, a type that is not a function type, a function past the
/// instance's, or one whose type is not a subtype of `ty`.
fn new_func(env: wasm_exec_env_t, ty: &DefinedTypeObj, handle: usize, func_idx: u32) -> wasm_func_obj_t {
    let Some(e) = exec_env(env as usize) else { return std::ptr::null_mut() };
    let Some(inst) = e.instance() else { return std::ptr::null_mut() };
    if !matches!(ty.sub.composite, CompositeType::Func(_)) {
        log(1, format_args!("wasm_func_obj_new: type {} is not a function type", ty.index));
        return std::ptr::null_mut();
    }
    let Some(own) = inst.module.func_type_index(func_idx) else {
        log(1, format_args!("wasm_func_obj_new: unknown function {func_idx}"));
        return std::ptr::null_mut();
    };
    if !inst.module.defined_type_matches(own, &ty.module, ty.index) {
        log(1, format_args!("wasm_func_obj_new: function {func_idx} is not of type {}", ty.index));
        return std::ptr::null_mut();
    }
    let value = GcValue::Func {
        inst: e.inst(),
        serial: inst.serial,
        module: ty.module.clone(),
        type_idx: ty.index,
        func_idx,
        def_type: handle,
    };
    add_to(inst, value).cast()
}

/// A function object for function `func_idx_bound` of the exec env's
/// instance, typed as its module's type `type_idx`; NULL for bad
/// arguments (see [`new_func`]).
///
/// # Safety
/// `exec_env` NULL or any pointer; the instance's module must be loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_obj_new_with_typeidx(
    exec_env: wasm_exec_env_t,
    type_idx: u32,
    func_idx_bound: u32,
) -> wasm_func_obj_t {
    let Some(inst) = self::exec_env(exec_env as usize).and_then(|e| e.instance()) else { return std::ptr::null_mut() };
    // SAFETY: a handle, checked; the client keeps the module loaded.
    let Some(m) = (unsafe { module(inst.module_handle as wasm_module_t) }) else { return std::ptr::null_mut() };
    let handle = handle_of(m, type_idx);
    // SAFETY: a handle of the module, just made.
    match unsafe { defined(handle) } {
        Some(ty) => new_func(exec_env, ty, handle as usize, func_idx_bound),
        None => std::ptr::null_mut(),
    }
}

/// A function object for function `func_idx_bound` of the exec env's
/// instance, typed as `type` (a defined function type of any module of
/// the engine); NULL for bad arguments.
///
/// # Safety
/// Both NULL or any pointers; the type's module must stay loaded.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_obj_new_with_type(
    exec_env: wasm_exec_env_t,
    r#type: wasm_func_type_t,
    func_idx_bound: u32,
) -> wasm_func_obj_t {
    // SAFETY: as the caller promises.
    match unsafe { defined(r#type) } {
        Some(ty) => new_func(exec_env, ty, r#type as usize, func_idx_bound),
        None => std::ptr::null_mut(),
    }
}

/// The function index a function object is bound to; `u32::MAX` for
/// anything but a function object.
///
/// # Safety
/// `func_obj` NULL or any pointer; its instance must stay.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_obj_get_func_idx_bound(func_obj: wasm_func_obj_t) -> u32 {
    // SAFETY: as the caller promises.
    match unsafe { cell(func_obj) } {
        Some(GcValue::Func { func_idx, .. }) => *func_idx,
        _ => u32::MAX,
    }
}

/// The defined type handle of a function object, if it is one and its
/// type's module is still loaded.
///
/// # Safety
/// As for [`cell`].
unsafe fn type_handle<P>(p: *const P) -> wasm_defined_type_t {
    // SAFETY: as the caller promises.
    match unsafe { cell(p) } {
        // SAFETY: a handle, checked.
        Some(GcValue::Func { def_type, .. }) if unsafe { defined(*def_type as wasm_defined_type_t) }.is_some() => {
            *def_type as wasm_defined_type_t
        }
        _ => std::ptr::null_mut(),
    }
}

/// The function type of a function object; NULL for anything else.
///
/// # Safety
/// As for [`wasm_func_obj_get_func_idx_bound`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_func_obj_get_func_type(func_obj: wasm_func_obj_t) -> wasm_func_type_t {
    // SAFETY: as the caller promises.
    unsafe { type_handle(func_obj) }.cast()
}

/// The defined type of a function object, or of a struct or array object
/// (its type in the module of its instance, NULL if that module does not
/// declare it); NULL for anything else.
///
/// # Safety
/// As for [`wasm_func_obj_get_func_idx_bound`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_get_defined_type(obj: wasm_obj_t) -> wasm_defined_type_t {
    // SAFETY: as the caller promises.
    let Some(v) = (unsafe { cell(obj) }) else { return std::ptr::null_mut() };
    let object_type = with_object(v, |inst, store, o| {
        let index = o.type_index_in(store, &inst.module).ok().flatten()?;
        // SAFETY: a handle, checked; the instance keeps its module loaded
        // as long as the client uses its objects.
        let m = unsafe { module(inst.module_handle as wasm_module_t) }?;
        Some(handle_of(m, index))
    });
    match object_type {
        Some(t) => t.unwrap_or(std::ptr::null_mut()),
        // SAFETY: as the caller promises.
        None => unsafe { type_handle(obj) },
    }
}

/// The index in `module`'s types of the object's defined type (the first
/// index of an equal type); -1 if `module` has no such type, or for bad
/// arguments.
///
/// # Safety
/// Both NULL or any pointers; they must stay alive.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_obj_get_defined_type_idx(module: wasm_module_t, obj: wasm_obj_t) -> i32 {
    // SAFETY: as the caller promises.
    let (Some(m), Some(v)) = (unsafe { self::module(module) }, unsafe { cell(obj) }) else { return -1 };
    let GcValue::Func { module: own, type_idx, .. } = v else {
        let index = with_object(v, |_, store, o| o.type_index_in(store, &m.module).ok().flatten());
        return index.flatten().map_or(-1, |i| i as i32);
    };
    (0..m.module.defined_type_count())
        .find(|i| own.defined_type_equals(*type_idx, &m.module, *i))
        .map_or(-1, |i| i as i32)
}

/// The function handle a call through `func_obj` on `env` calls: its
/// function in the exec env's instance. `None` for a bad exec env
/// (logged, as `wasm_runtime_call_wasm`), and with the exception set for
/// a bad object or one of another instance.
fn function_of(env: wasm_exec_env_t, func_obj: wasm_func_obj_t) -> Option<wasm_function_inst_t> {
    let Some(e) = exec_env(env as usize) else {
        log(1, format_args!("Invalid exec env stack info."));
        return None;
    };
    let inst = e.instance()?;
    // SAFETY: a handle, checked; objects live as long as their instance,
    // which the exec env's call keeps.
    let Some(GcValue::Func { inst: owner, serial, func_idx, .. }) = (unsafe { cell(func_obj) }) else {
        inst.set_exception(Some("invalid function object"));
        return None;
    };
    if *owner != e.inst() || *serial != inst.serial {
        inst.set_exception(Some("the function object does not belong to the instance of the exec env"));
        return None;
    }
    let (func, ty) = {
        let locked = inst.lock();
        let store = locked.store();
        let f = inst.instance()?.func(&*store, *func_idx)?;
        (f, f.ty(&*store))
    };
    Some(inst.func_handle(e.inst(), func, ty))
}

/// Calls the function of `func_obj` with arguments in `argc` 32-bit cells
/// at `argv`, the results replacing the first cells, as
/// `wasm_runtime_call_wasm`; false for bad arguments, with the exception
/// set on a trap or a bad object.
///
/// # Safety
/// `exec_env` and `func_obj` NULL or any pointers; `argv` as for
/// `wasm_runtime_call_wasm`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_call_func_ref(
    exec_env: wasm_exec_env_t,
    func_obj: wasm_func_obj_t,
    argc: u32,
    argv: *mut u32,
) -> bool {
    let Some(f) = function_of(exec_env, func_obj) else { return false };
    // SAFETY: as the caller promises.
    unsafe { wasm_runtime_call_wasm(exec_env, f, argc, argv) }
}

/// Calls the function of `func_obj` with `wasm_val_t` arguments and
/// results, as `wasm_runtime_call_wasm_a`.
///
/// # Safety
/// As for `wasm_runtime_call_wasm_a`, `func_obj` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_call_func_ref_a(
    exec_env: wasm_exec_env_t,
    func_obj: wasm_func_obj_t,
    num_results: u32,
    results: *mut wasm_val_t,
    num_args: u32,
    args: *mut wasm_val_t,
) -> bool {
    let Some(f) = function_of(exec_env, func_obj) else { return false };
    // SAFETY: as the caller promises.
    unsafe { wasm_runtime_call_wasm_a(exec_env, f, num_results, results, num_args, args) }
}

/// `wasm_runtime_call_func_ref_v` once its arguments are saved: five
/// fixed ones, then one per parameter.
///
/// # Safety
/// Called by the entry stub only, with what the client passed.
unsafe extern "C" fn call_func_ref_v_saved(regs: *const u64, stack: *const u64) -> bool {
    // SAFETY: the stub's saved arguments, five of them fixed.
    let mut va = unsafe { cranewasm::__sys::VaArgs::new(regs, stack, 5) };
    // SAFETY: the client passed the five fixed arguments.
    let (exec_env, func_obj, num_results, results, num_args) = unsafe {
        (
            va.fixed(0) as wasm_exec_env_t,
            va.fixed(1) as wasm_func_obj_t,
            va.fixed(2) as u32,
            va.fixed(3) as *mut wasm_val_t,
            va.fixed(4) as u32,
        )
    };
    let Some(f) = function_of(exec_env, func_obj) else { return false };
    // SAFETY: the rest of the client's arguments.
    unsafe { call_wasm_va(exec_env, f, num_results, results, num_args, &mut va) }
}

cranewasm::__sys::c_variadic_entry! {
    /// Calls the function of `func_obj` with `num_args` variadic arguments
    /// of its parameter types, as `wasm_runtime_call_wasm_v` (a stub that
    /// saves the argument registers for [`call_func_ref_v_saved`]; declared
    /// in `gc_export.h` by hand).
    ///
    /// # Safety
    /// As for `wasm_runtime_call_wasm_v`.
    pub fn wasm_runtime_call_func_ref_v => call_func_ref_v_saved
}
