//! Local object references: a chain of client-owned
//! `wasm_local_obj_ref_t`s per exec env, whose objects the collector will
//! trace as roots (issue 40 stage 2). The chain lives in client memory,
//! as in WAMR; the exec env keeps its top.

use std::ffi::c_void;
use std::sync::atomic::Ordering;

use crate::export::exec_env::exec_env;
use crate::export::gc::object::wasm_obj_t;
use crate::export::types::*;

/// `WASMLocalObjectRef`, `wasm_local_obj_ref_t`: one link of the chain.
#[repr(C)]
pub struct WASMLocalObjectRef {
    /// The link pushed before this one.
    pub prev: *mut WASMLocalObjectRef,
    /// The object it holds.
    pub val: wasm_obj_t,
}
pub type wasm_local_obj_ref_t = WASMLocalObjectRef;

/// Pushes `local_obj_ref` on the exec env's chain, its value cleared (the
/// client sets it after); nothing for a bad exec env or NULL.
///
/// # Safety
/// `exec_env` NULL or any pointer; `local_obj_ref` NULL or writable, and
/// kept until popped.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_push_local_obj_ref(
    exec_env: wasm_exec_env_t,
    local_obj_ref: *mut wasm_local_obj_ref_t,
) {
    let (Some(e), false) = (self::exec_env(exec_env as usize), local_obj_ref.is_null()) else { return };
    let prev = e.local_obj_ref.load(Ordering::Relaxed).cast::<WASMLocalObjectRef>();
    // SAFETY: writable (caller).
    unsafe { local_obj_ref.write(WASMLocalObjectRef { prev, val: std::ptr::null_mut() }) };
    e.local_obj_ref.store(local_obj_ref.cast::<c_void>(), Ordering::Relaxed);
}

/// Pops the top link and gives it; NULL for a bad exec env or an empty
/// chain (WAMR would crash).
///
/// # Safety
/// `exec_env` NULL or any pointer; the links pushed still readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_pop_local_obj_ref(exec_env: wasm_exec_env_t) -> *mut wasm_local_obj_ref_t {
    let Some(e) = self::exec_env(exec_env as usize) else { return std::ptr::null_mut() };
    let top = e.local_obj_ref.load(Ordering::Relaxed).cast::<WASMLocalObjectRef>();
    if !top.is_null() {
        // SAFETY: a link the client pushed and keeps (caller).
        let prev = unsafe { (*top).prev };
        e.local_obj_ref.store(prev.cast::<c_void>(), Ordering::Relaxed);
    }
    top
}

/// Pops `n` links (fewer if the chain is shorter); nothing for a bad
/// exec env.
///
/// # Safety
/// As for [`wasm_runtime_pop_local_obj_ref`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_pop_local_obj_refs(exec_env: wasm_exec_env_t, n: u32) {
    for _ in 0..n {
        // SAFETY: as the caller promises.
        if unsafe { wasm_runtime_pop_local_obj_ref(exec_env) }.is_null() {
            break;
        }
    }
}

/// The top link, left in place; NULL for a bad exec env or an empty chain.
///
/// # Safety
/// `exec_env` NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_cur_local_obj_ref(exec_env: wasm_exec_env_t) -> *mut wasm_local_obj_ref_t {
    self::exec_env(exec_env as usize)
        .map_or(std::ptr::null_mut(), |e| e.local_obj_ref.load(Ordering::Relaxed).cast::<WASMLocalObjectRef>())
}
