//! Instances, their exports, and the execution-time counters.
//!
//! Imports are linked as WAMR links them, by kind and position (see
//! `link.rs`). A failure gives WAMR's trap: `wasm_instance_new_with_args_ex
//! failed: ` and the reason (`Failed to validate imports`, or `WASM module
//! instantiate failed: ` and what failed, a start function's trap
//! included).
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
use std::ffi::{CStr, c_char};
use std::ptr;
use std::rc::Rc;
use std::time::Duration;

use cranewasm::{Instance, InstanceLimits};

use crate::c_api::config::InstantiationArgs;
use crate::c_api::extern_::{self, ExternObj};
use crate::c_api::link::{self, Failure};
use crate::c_api::store::{self, StoreObj};
use crate::c_api::vec::{RawVec, wasm_extern_vec_t};
use crate::handle::Kind;
use crate::object::{self, Header, Object, c_object, get};
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
    // SAFETY: as the caller promises.
    *unsafe { &mut (*store).lives }.handles.entry(instance).or_insert(0) += 1;
}

/// Counts one C object fewer referring to `instance`, and releases the
/// core instance when none is left and none of its functions escaped.
///
/// # Safety
/// `store` must be live and own `instance`, which must have been retained.
pub unsafe fn unretain(store: *mut StoreObj, instance: Instance) {
    // SAFETY: as the caller promises.
    let lives = unsafe { &mut (*store).lives };
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
        unsafe { instance.release(store::core(store)) };
    }
}

/// Keeps `instance` for its store's life: one of its functions was stored
/// where the C layer cannot follow it.
///
/// # Safety
/// `store` must be live.
pub unsafe fn escape(store: *mut StoreObj, instance: Instance) {
    // SAFETY: as the caller promises.
    unsafe { &mut (*store).lives }.escaped.insert(instance);
}

/// The store and core instance of a live instance handle.
///
/// # Safety
/// As for [`get`].
pub unsafe fn core_of(i: Option<&wasm_instance_t>) -> Option<(*mut StoreObj, Instance)> {
    // SAFETY: as the caller promises.
    unsafe { get::<wasm_instance_t>(i) }.map(|o| (o.header.store, o.instance))
}

/// What a `wasm_instance_t *` points at.
#[repr(C)]
pub struct InstanceObj {
    header: Header,
    instance: Instance,
    /// Present when the engine profiles.
    profile: Option<Rc<Profile>>,
}

const _: () = assert!(std::mem::offset_of!(InstanceObj, header) == 0);

impl InstanceObj {
    /// A new handle on `instance` of `store`, which it keeps alive.
    ///
    /// # Safety
    /// `store` must be live and own `instance`.
    unsafe fn new(store: *mut StoreObj, instance: Instance, profile: Option<Rc<Profile>>) -> InstanceObj {
        // SAFETY: as the caller promises.
        unsafe { retain(store, instance) };
        InstanceObj { header: Header::new(store), instance, profile }
    }
}

// SAFETY: instance cells hold `InstanceObj`s, which start with their
// header.
unsafe impl Object for InstanceObj {
    fn kind(&self) -> Kind {
        Kind::Instance
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<InstanceObj> {
        // SAFETY: objects exist only while their store does.
        Some(unsafe { InstanceObj::new(self.header.store, self.instance, self.profile.clone()) })
    }
    fn same(&self, other: &InstanceObj) -> bool {
        self.instance == other.instance
    }
}

impl Drop for InstanceObj {
    fn drop(&mut self) {
        // SAFETY: objects are destroyed while their store is alive.
        unsafe { unretain(self.header.store, self.instance) }
    }
}

c_object! {
    /// An instance of a module.
    wasm_instance_t: InstanceObj [Instance];
    delete: wasm_instance_delete;
    copy: wasm_instance_copy;
    same: wasm_instance_same;
    host_info: wasm_instance_get_host_info, wasm_instance_set_host_info, wasm_instance_set_host_info_with_finalizer;
    as_ref: wasm_instance_as_ref, wasm_instance_as_ref_const, wasm_ref_as_instance, wasm_ref_as_instance_const;
}

/// The start of every message of a failed instantiation: WAMR's.
const FAILED: &str = "wasm_instance_new_with_args_ex failed: ";

/// Instantiates; on failure, the trap saying why (NULL when the module is
/// not a live module).
///
/// # Safety
/// `store` must be live and not otherwise borrowed; `imports` NULL or a
/// valid vector.
unsafe fn instantiate(
    store: *mut StoreObj,
    module: *const wasm_module_t,
    imports: Option<&wasm_extern_vec_t>,
    max_memory_pages: Option<u32>,
) -> Result<*mut wasm_instance_t, *mut wasm_trap_t> {
    // SAFETY: `store` is live (caller).
    let fail = |why: String, frames| unsafe { crate::c_api::trap::new_trap(store, why.as_bytes(), frames) };
    // SAFETY: the client keeps the threading rule of the module.
    let Some(slot) = (unsafe { crate::c_api::module::slot(module) }) else { return Err(ptr::null_mut()) };
    let module = slot.module().clone();
    // SAFETY: as the caller promises.
    let linked = match unsafe { link::link(store, &module, slot.wasi_args(), imports, max_memory_pages) } {
        Ok(linked) => linked,
        Err(Failure::Validate) => return Err(fail(format!("{FAILED}Failed to validate imports"), Vec::new())),
        Err(Failure::Instantiate(why)) => {
            return Err(fail(format!("{FAILED}WASM module instantiate failed: {why}"), Vec::new()));
        }
    };
    // SAFETY: as above.
    let core = unsafe { store::core(store) };
    let instance = match Instance::new_with_limits(
        &mut *core,
        &module,
        &linked.externs,
        &InstanceLimits::max_memory_pages(max_memory_pages.unwrap_or(0)),
    ) {
        Ok(instance) => instance,
        Err(e) => {
            let (why, frames) = match e.as_trap() {
                Some(t) => (crate::c_api::trap::message_of(t), t.frames().to_vec()),
                None => (e.to_string(), Vec::new()),
            };
            return Err(fail(format!("{FAILED}WASM module instantiate failed: {why}"), frames));
        }
    };
    // SAFETY: the store is live and owns the linked externs.
    unsafe { linked.rebind(store) };
    // SAFETY: as above.
    let core = unsafe { store::core(store) };
    // SAFETY: `store` is live.
    let profile = unsafe { (*store).profiling }.then(|| {
        let funcs = instance.exports(&mut *core).into_iter().map(|(name, _)| (name, Cell::new(0.0)));
        Rc::new(Profile { funcs: funcs.collect() })
    });
    // SAFETY: the store is live and owns the new instance.
    Ok(object::new(unsafe { InstanceObj::new(store, instance, profile) }))
}

/// Instantiates `module` with `imports`, linked by kind and position as in
/// WAMR (see `link.rs`). On failure returns NULL and sets `*trap` (when
/// given) to a trap saying why, in WAMR's words: an import that does not
/// fit, a missing global, a trap of the start function or of a segment
/// initialisation. Without `trap`, the reason goes to stderr.
///
/// # Safety
/// As for [`wasm_instance_new_with_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_new(
    store: Option<&mut wasm_store_t>,
    module: *const wasm_module_t,
    imports: Option<&wasm_extern_vec_t>,
    trap: *mut *mut wasm_trap_t,
) -> *mut wasm_instance_t {
    // SAFETY: as the caller promises.
    unsafe { wasm_instance_new_with_args_ex(store, module, imports, trap, None) }
}

/// [`wasm_instance_new`] with WAMR's stack and heap sizes. Wasm runs on
/// the calling thread's stack (bounded by the engine), and memories are
/// the module's own, so both are accepted and ignored.
///
/// # Safety
/// As for [`wasm_instance_new_with_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_new_with_args(
    store: Option<&mut wasm_store_t>,
    module: *const wasm_module_t,
    imports: Option<&wasm_extern_vec_t>,
    trap: *mut *mut wasm_trap_t,
    stack_size: u32,
    heap_size: u32,
) -> *mut wasm_instance_t {
    let args =
        InstantiationArgs { default_stack_size: stack_size, host_managed_heap_size: heap_size, max_memory_pages: 0 };
    // SAFETY: as the caller promises.
    unsafe { wasm_instance_new_with_args_ex(store, module, imports, trap, Some(&args)) }
}

/// [`wasm_instance_new`] with WAMR's instantiation arguments: the stack and
/// heap sizes are accepted and ignored as in
/// [`wasm_instance_new_with_args`]; `max_memory_pages`, when not 0, caps
/// the maximum of the instance's memories (but not below their minimum),
/// as in WAMR.
///
/// # Safety
/// `store` and `module` may be NULL or any pointers, and so may the
/// elements of `imports`: anything but a live object of the right type
/// counts as NULL. `imports` must be NULL or a valid vector, `trap` NULL or
/// writable. The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_new_with_args_ex(
    store: Option<&mut wasm_store_t>,
    module: *const wasm_module_t,
    imports: Option<&wasm_extern_vec_t>,
    trap: *mut *mut wasm_trap_t,
    args: Option<&InstantiationArgs>,
) -> *mut wasm_instance_t {
    // SAFETY: the client keeps the threading rule above.
    let Some(store) = (unsafe { store::from_c(store) }) else { return ptr::null_mut() };
    let max_memory_pages = args.map_or(0, |a| a.max_memory_pages);
    let s: *mut store::StoreObj = store;
    // SAFETY: the store is live and not otherwise borrowed; `imports` is
    // valid (caller). A store another thread is using gets a trap of no
    // store (making one in it would touch it).
    let outcome = unsafe {
        store::claimed(s, "wasm_instance_new", || {
            instantiate(&mut *s, module, imports, (max_memory_pages != 0).then_some(max_memory_pages))
        })
        .unwrap_or_else(|| {
            Err(crate::c_api::trap::new_trap(ptr::null_mut(), crate::c_api::func::STORE_BUSY.as_bytes(), Vec::new()))
        })
    };
    // SAFETY: `trap` is NULL or writable (caller).
    let trap = unsafe { trap.as_mut() };
    match outcome {
        Ok(instance) => {
            if let Some(t) = trap {
                *t = ptr::null_mut();
            }
            instance
        }
        Err(t) if t.is_null() => ptr::null_mut(),
        Err(t) => {
            match trap {
                Some(out) => *out = t,
                None => {
                    // SAFETY: our own trap, deleted once read.
                    unsafe {
                        let text = crate::c_api::trap::message(t).map(String::from_utf8_lossy).unwrap_or_default();
                        log(format_args!("wasm_instance_new: {text}"));
                        object::delete::<wasm_trap_t>(t);
                    }
                }
            }
            ptr::null_mut()
        }
    }
}

/// Sets `*out` to new objects for the instance's exports, in the module's
/// export order.
///
/// # Safety
/// `i` may be NULL or any pointer: anything but a live instance counts as
/// NULL (an empty vector). `out` must be NULL or writable. The store must
/// not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_exports(i: Option<&wasm_instance_t>, out: *mut wasm_extern_vec_t) {
    if out.is_null() {
        return;
    }
    // SAFETY: the client keeps the threading rule above.
    let items = match unsafe { get::<wasm_instance_t>(i) } {
        Some(i) => {
            let store = i.header.store;
            // SAFETY: the store of a live object is live and not otherwise
            // borrowed here.
            let exports = i.instance.exports(unsafe { store::core(store) });
            // wasm_c_api.h has no kind for tags: their exports are left out.
            let exports = exports.into_iter().enumerate().filter(|(_, (_, e))| !matches!(e, cranewasm::Extern::Tag(_)));
            let items = exports.map(|(n, (_, e))| {
                // SAFETY: the store is live and owns the instance's exports.
                let mut obj = unsafe { ExternObj::from_core(store, e, Some(i.instance)) };
                if let (Some(p), extern_::Item::Func(f)) = (&i.profile, &mut obj.item) {
                    f.profile = Some((p.clone(), n));
                }
                object::new::<wasm_extern_t>(obj)
            });
            RawVec::from_items(items.collect::<Vec<_>>().into_iter())
        }
        None => RawVec::EMPTY,
    };
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(wasm_extern_vec_t::from_raw(items)) };
}

/// Total milliseconds spent in calls (through `wasm_func_call`) to the
/// instance's exported functions. Timing happens only when the engine was
/// configured with `wasm_config_set_linux_perf_opt(config, true)`, our
/// stand-in for WAMR's profiling build; otherwise the answer is -1, as from
/// a WAMR built without profiling, NULL included.
///
/// # Safety
/// `i` may be NULL or any pointer: anything but a live instance counts as
/// NULL. No other thread may delete it meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_sum_wasm_exec_time(i: Option<&wasm_instance_t>) -> f64 {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { get::<wasm_instance_t>(i) }.and_then(|i| i.profile.as_ref()) {
        Some(p) => p.funcs.iter().map(|(_, ms)| ms.get()).sum(),
        None => -1.0,
    }
}

/// Milliseconds spent in calls to the exported function `name`, timed as
/// for [`wasm_instance_sum_wasm_exec_time`] (-1 when not profiling, and for
/// NULL arguments); 0 for an unknown name.
///
/// # Safety
/// As for [`wasm_instance_sum_wasm_exec_time`]; `name` must be NULL or a
/// NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_instance_get_wasm_func_exec_time(
    i: Option<&wasm_instance_t>,
    name: *const c_char,
) -> f64 {
    // SAFETY: the client keeps the threading rule above.
    let (Some(p), false) = (unsafe { get::<wasm_instance_t>(i) }.and_then(|i| i.profile.as_ref()), name.is_null())
    else {
        return -1.0;
    };
    // SAFETY: a NUL-terminated string (caller).
    let name = unsafe { CStr::from_ptr(name) }.to_bytes();
    p.funcs.iter().find(|(n, _)| n.as_bytes() == name).map_or(0.0, |(_, ms)| ms.get())
}
