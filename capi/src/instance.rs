//! Instances, their exports, and the execution-time counters.
//!
//! Imports are given in the module's import order. A missing import (a
//! vector shorter than the module's imports, a NULL element, or a
//! `wasm_extern_new_empty` placeholder) is filled with a stand-in: a
//! function that traps with "failed to call unlinked function" when
//! called, a zero global, or a new table or memory of the declared type.
//! WAMR behaves the same for functions, which is what clients rely on.
//!
//! An instance lives while a C object refers to it: its `wasm_instance_t`
//! handles and the extern objects of its exports. WAMR's samples call
//! exported functions after deleting the instance, so deleting the
//! instance handle alone must not free it; once the last of these objects
//! is deleted the core instance is released ([`Lives`]), so a long-lived
//! store that instantiates and deletes forever stays bounded. An instance
//! one of whose functions the client stored where the C layer cannot
//! follow it (a table, a global, a call argument) lives as long as its
//! store.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, CStr};
use std::ptr;
use std::rc::Rc;
use std::time::Duration;

use cranewasm::{Extern, ExternType, Func, Global, Instance, Memory, Table, Val};

use crate::config::InstantiationArgs;
use crate::extern_::{self, ExternObj};
use crate::object::{impl_object, register, release, Header, ObjKind};
use crate::store::{self, StoreObj};
use crate::vec::{wasm_extern_vec_t, RawVec};
use crate::*;

/// Time spent in calls to an instance's exported functions, per function.
pub struct Profile {
    funcs: Vec<(String, Cell<f64>)>,
}

impl Profile {
    /// Adds the time of one call to function `i`.
    pub fn add(&self, i: usize, d: Duration) {
        if let Some((_, ms)) = self.funcs.get(i) {
            ms.set(ms.get() + d.as_secs_f64() * 1000.0);
        }
    }
}

/// How many C objects refer to each instance of a store, and which
/// instances must stay for the store's life.
#[derive(Default)]
pub struct Lives {
    handles: HashMap<Instance, usize>,
    escaped: HashSet<Instance>,
}

/// Counts one more C object referring to `instance`.
///
/// # Safety
/// `store` must be live.
pub unsafe fn retain(store: *mut StoreObj, instance: Instance) {
    *(*store).lives.handles.entry(instance).or_insert(0) += 1;
}

/// Counts one C object fewer referring to `instance`, and releases the
/// core instance when none is left and none of its functions escaped.
///
/// # Safety
/// `store` must be live and own `instance`, which must have been retained.
pub unsafe fn unretain(store: *mut StoreObj, instance: Instance) {
    let lives = &mut (*store).lives;
    let Some(n) = lives.handles.get_mut(&instance) else { return };
    *n -= 1;
    if *n > 0 {
        return;
    }
    lives.handles.remove(&instance);
    if !lives.escaped.remove(&instance) {
        // SAFETY: no C object refers to the instance any more, and its
        // functions never went anywhere the C layer cannot see; what other
        // instances imported from it the core keeps alive itself.
        instance.release(store::core(store));
    }
}

/// Keeps `instance` for its store's life: one of its functions was stored
/// where the C layer cannot follow it.
///
/// # Safety
/// `store` must be live.
pub unsafe fn escape(store: *mut StoreObj, instance: Instance) {
    (*store).lives.escaped.insert(instance);
}

/// What a `wasm_instance_t *` points at.
#[repr(C)]
pub struct InstanceObj {
    pub header: Header,
    pub instance: Instance,
    /// Present when the engine profiles.
    profile: Option<Rc<Profile>>,
}

impl_object!(InstanceObj);

impl Drop for InstanceObj {
    fn drop(&mut self) {
        // SAFETY: objects are destroyed while their store is alive.
        unsafe { unretain(self.header.store, self.instance) }
    }
}

unsafe fn obj<'a>(i: *const wasm_instance_t) -> Option<&'a InstanceObj> {
    i.cast::<InstanceObj>().as_ref()
}

/// A stand-in for an import the client did not provide.
unsafe fn stand_in(store: *mut StoreObj, ty: &ExternType) -> cranewasm::Result<Extern> {
    let core = store::core(store);
    Ok(match *ty {
        ExternType::Func(f) => Extern::Func(Func::unlinked(core, f)),
        ExternType::Global(g) => Extern::Global(Global::new(core, g, Val::default_for(g.content))?),
        ExternType::Table(t) => Extern::Table(Table::new(core, t, Val::default_for(t.element))?),
        ExternType::Memory(m) => Extern::Memory(Memory::new(core, m)?),
    })
}

unsafe fn instantiate(
    store: *mut StoreObj,
    module: *const wasm_module_t,
    imports: *const wasm_extern_vec_t,
) -> Result<*mut wasm_instance_t, *mut wasm_trap_t> {
    let fail = |e: &cranewasm::Error| crate::trap::from_error(store, e);
    let Some(slot) = crate::module::slot(module) else { return Err(ptr::null_mut()) };
    let module = slot.shared.module.clone();
    let given = imports.as_ref().map_or(&[][..], |v| v.raw().as_slice());
    let mut externs = Vec::with_capacity(module.imports().len());
    for (i, import) in module.imports().enumerate() {
        let provided = given.get(i).and_then(|e| extern_::obj(*e)).and_then(ExternObj::to_core);
        externs.push(match provided {
            Some(e) => e,
            None => stand_in(store, &import.ty).map_err(|e| fail(&e))?,
        });
    }
    let instance = Instance::new(store::core(store), &module, &externs).map_err(|e| fail(&e))?;
    let profile = (*store).profiling.then(|| {
        let funcs = instance.exports(store::core(store)).into_iter().map(|(name, _)| (name, Cell::new(0.0)));
        Rc::new(Profile { funcs: funcs.collect() })
    });
    retain(store, instance);
    let obj = InstanceObj { header: Header::new(ObjKind::Instance, store), instance, profile };
    Ok(register(obj).cast())
}

/// Instantiates `module` with `imports` in the module's import order. On
/// failure returns NULL and sets `*trap` (when given) to a trap saying why:
/// a trap of the start function or of a segment initialisation, or an
/// import of the wrong type. Without `trap`, the reason goes to stderr.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_new(
    store: *mut wasm_store_t,
    module: *const wasm_module_t,
    imports: *const wasm_extern_vec_t,
    trap: *mut *mut wasm_trap_t,
) -> *mut wasm_instance_t {
    wasm_instance_new_with_args_ex(store, module, imports, trap, ptr::null())
}

/// [`wasm_instance_new`] with WAMR's stack and heap sizes. Wasm runs on
/// the calling thread's stack (bounded by the engine), and memories are
/// the module's own, so both are accepted and ignored.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_new_with_args(
    store: *mut wasm_store_t,
    module: *const wasm_module_t,
    imports: *const wasm_extern_vec_t,
    trap: *mut *mut wasm_trap_t,
    stack_size: u32,
    heap_size: u32,
) -> *mut wasm_instance_t {
    let args =
        InstantiationArgs { default_stack_size: stack_size, host_managed_heap_size: heap_size, max_memory_pages: 0 };
    wasm_instance_new_with_args_ex(store, module, imports, trap, &args)
}

/// [`wasm_instance_new`] with WAMR's instantiation arguments, accepted and
/// ignored as in [`wasm_instance_new_with_args`] (`max_memory_pages`
/// included: memories grow to their declared maximum).
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_new_with_args_ex(
    store: *mut wasm_store_t,
    module: *const wasm_module_t,
    imports: *const wasm_extern_vec_t,
    trap: *mut *mut wasm_trap_t,
    _args: *const InstantiationArgs,
) -> *mut wasm_instance_t {
    let Some(store) = store::from_c(store) else { return ptr::null_mut() };
    let store: *mut StoreObj = store;
    match instantiate(store, module, imports) {
        Ok(instance) => {
            if let Some(t) = trap.as_mut() {
                *t = ptr::null_mut();
            }
            instance
        }
        Err(t) if t.is_null() => ptr::null_mut(),
        Err(t) => {
            match trap.as_mut() {
                Some(out) => *out = t,
                None => {
                    let mut message = RawVec::<crate::vec::wasm_byte_t>::EMPTY;
                    crate::trap::wasm_trap_message(t, (&mut message as *mut RawVec<_>).cast());
                    let text = crate::vec::name_bytes((&message as *const RawVec<_>).cast());
                    log(format_args!("wasm_instance_new: {}", String::from_utf8_lossy(text)));
                    crate::vec::wasm_byte_vec_delete((&mut message as *mut RawVec<_>).cast());
                    release(t.cast());
                }
            }
            ptr::null_mut()
        }
    }
}

/// Deletes the handle. The instance is freed when no handle to it and no
/// extern object of its exports is left (WAMR's samples call exports after
/// deleting their instance), or with its store.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_delete(i: *mut wasm_instance_t) {
    release(i.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_instance_copy(i: *const wasm_instance_t) -> *mut wasm_instance_t {
    let Some(i) = obj(i) else { return ptr::null_mut() };
    retain(i.header.store, i.instance);
    let copy = InstanceObj {
        header: Header::new(ObjKind::Instance, i.header.store),
        instance: i.instance,
        profile: i.profile.clone(),
    };
    register(copy).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_instance_same(a: *const wasm_instance_t, b: *const wasm_instance_t) -> bool {
    match (obj(a), obj(b)) {
        (None, None) => true,
        (Some(a), Some(b)) => a.instance == b.instance,
        _ => false,
    }
}

/// Sets `*out` to new objects for the instance's exports, in the module's
/// export order.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_exports(i: *const wasm_instance_t, out: *mut wasm_extern_vec_t) {
    let Some(out) = out.as_mut() else { return };
    let Some(i) = obj(i) else {
        ptr::write(out, wasm_extern_vec_t::from_raw(RawVec::EMPTY));
        return;
    };
    let store = i.header.store;
    let exports = i.instance.exports(store::core(store));
    let items = exports.into_iter().enumerate().map(|(n, (_, e))| {
        let obj = extern_::from_core(store, e);
        extern_::set_owner(obj, i.instance);
        if let (Some(p), extern_::Item::Func(f)) = (&i.profile, &mut (*obj).item) {
            f.profile = Some((p.clone(), n));
        }
        obj.cast::<wasm_extern_t>()
    });
    ptr::write(out, wasm_extern_vec_t::from_raw(RawVec::from_items(items.collect::<Vec<_>>().into_iter())));
}

/// Total milliseconds spent in calls (through `wasm_func_call`) to the
/// instance's exported functions. Timing happens only when the engine was
/// configured with `wasm_config_set_linux_perf_opt(config, true)`, our
/// stand-in for WAMR's profiling build; otherwise the answer is -1, as from
/// a WAMR built without profiling. 0 for NULL.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_sum_wasm_exec_time(i: *const wasm_instance_t) -> f64 {
    match obj(i) {
        Some(i) => i.profile.as_ref().map_or(-1.0, |p| p.funcs.iter().map(|(_, ms)| ms.get()).sum()),
        None => 0.0,
    }
}

/// Milliseconds spent in calls to the exported function `name`, timed as
/// for [`wasm_instance_sum_wasm_exec_time`] (-1 when not profiling); 0 for
/// an unknown name or NULL arguments.
#[no_mangle]
pub unsafe extern "C" fn wasm_instance_get_wasm_func_exec_time(i: *const wasm_instance_t, name: *const c_char) -> f64 {
    let (Some(i), false) = (obj(i), name.is_null()) else { return 0.0 };
    let Some(p) = &i.profile else { return -1.0 };
    let name = CStr::from_ptr(name).to_bytes();
    p.funcs.iter().find(|(n, _)| n.as_bytes() == name).map_or(0.0, |(_, ms)| ms.get())
}
