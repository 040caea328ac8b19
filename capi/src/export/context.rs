//! Per-instance contexts: `wasm_runtime_create_context_key` and friends,
//! modelled on pthread keys, for embedders that keep state per instance
//! for their natives.
//!
//! WAMR has room for 8 contexts per instance and takes the first for WASI;
//! so does this (the first key handed out is the second slot), so a
//! program gets the same number of keys. A key's destructor runs for every
//! instance at `wasm_runtime_deinstantiate`, with whatever context the
//! instance holds (NULL included), as in WAMR.

use std::ffi::c_void;
use std::ptr;
use std::sync::Mutex;
use std::sync::atomic::Ordering;

use crate::core::runtime::warn;
use crate::export::instance::{MAX_CONTEXTS, ModuleInst, inst};
use crate::export::types::*;

/// A destructor slot: taken (with the client's function, if any) or free.
#[derive(Copy, Clone)]
enum Slot {
    Free,
    Taken(context_dtor_t),
}

/// The slots; 0 stands for WASI's.
static KEYS: Mutex<[Slot; MAX_CONTEXTS]> = Mutex::new([Slot::Free; MAX_CONTEXTS]);

fn keys() -> std::sync::MutexGuard<'static, [Slot; MAX_CONTEXTS]> {
    KEYS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Frees every key (`wasm_runtime_destroy`).
pub fn clear_keys() {
    *keys() = [Slot::Free; MAX_CONTEXTS];
}

/// The slot of a key: keys are slot + 1, slot 0 is reserved.
fn slot_of(key: *mut c_void) -> Option<usize> {
    let k = key as usize;
    (2..=MAX_CONTEXTS).contains(&k).then(|| k - 1).filter(|&i| matches!(keys()[i], Slot::Taken(_)))
}

/// Runs every key's destructor for `inst` (its handle `h`).
pub fn run_dtors(inst: &ModuleInst, h: wasm_module_inst_t) {
    let slots = *keys();
    for (i, s) in slots.iter().enumerate().skip(1) {
        if let Slot::Taken(Some(dtor)) = s {
            let ctx = inst.contexts[i].swap(ptr::null_mut(), Ordering::Relaxed);
            // SAFETY: the client's destructor, called as its type says with
            // a live instance and the context it set.
            unsafe { dtor(h, ctx) };
        }
    }
}

/// A new key; `dtor` (which may be NULL) runs for each instance when it
/// is destroyed. NULL when all 7 keys are taken.
///
/// # Safety
/// `dtor` must be NULL or callable with an instance and its context.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_create_context_key(dtor: context_dtor_t) -> *mut c_void {
    let mut k = keys();
    match k.iter().skip(1).position(|s| matches!(s, Slot::Free)) {
        Some(i) => {
            k[i + 1] = Slot::Taken(dtor);
            (i + 2) as *mut c_void
        }
        None => {
            warn(format_args!("failed to allocate instance context key"));
            ptr::null_mut()
        }
    }
}

/// Frees a key; anything but a live key is ignored.
///
/// # Safety
/// None beyond the header's: instances should be gone first.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_destroy_context_key(key: *mut c_void) {
    if let Some(i) = slot_of(key) {
        keys()[i] = Slot::Free;
    }
}

/// Sets the instance's context for `key`; a bad instance or key is
/// ignored.
///
/// # Safety
/// `inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_context(inst: wasm_module_inst_t, key: *mut c_void, ctx: *mut c_void) {
    // SAFETY: as the caller promises.
    if let (Some(i), Some(s)) = (unsafe { self::inst(inst) }, slot_of(key)) {
        i.contexts[s].store(ctx, Ordering::Relaxed);
    }
}

/// Sets the context for `key` on every instance of the instance's program
/// (WAMR's cluster): the main instance and those of the threads spawned
/// from it, whichever of them it is called on. Threads spawned later start
/// with their parent's contexts, as in WAMR.
///
/// # Safety
/// As for [`wasm_runtime_set_context`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_context_spread(inst: wasm_module_inst_t, key: *mut c_void, ctx: *mut c_void) {
    // SAFETY: as the caller promises.
    if let (Some(i), Some(s)) = (unsafe { self::inst(inst) }, slot_of(key)) {
        i.cluster.each(|m| m.contexts[s].store(ctx, Ordering::Relaxed));
    }
}

/// Gives a new thread's instance its parent's contexts (WAMR's
/// `wasm_native_inherit_contexts`).
pub fn inherit(child: &ModuleInst, parent: &ModuleInst) {
    for (c, p) in child.contexts.iter().zip(&parent.contexts) {
        c.store(p.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

/// The instance's context for `key` (NULL if unset, or for a bad instance
/// or key).
///
/// # Safety
/// `inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_context(inst: wasm_module_inst_t, key: *mut c_void) -> *mut c_void {
    // SAFETY: as the caller promises.
    match (unsafe { self::inst(inst) }, slot_of(key)) {
        (Some(i), Some(s)) => i.contexts[s].load(Ordering::Relaxed),
        _ => ptr::null_mut(),
    }
}
