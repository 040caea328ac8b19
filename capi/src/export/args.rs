//! `struct InstantiationArgs2`: instantiation arguments that can grow
//! without breaking the ABI (`wasm_runtime_instantiation_args_create`, its
//! setters, `wasm_runtime_instantiate_ex2`). An object of the live-object
//! table, so setters given anything else do nothing.

use std::ffi::{c_char, c_void};
use std::ptr;

use crate::core::options::InstantiationArgs;
use crate::export::types::*;
use crate::export::wasi::{WasiArgs, strings};
use crate::handle::Kind;
use crate::object::{self, Handle, Object, get, get_mut};

/// What a `struct InstantiationArgs2 *` points at.
pub struct InstArgs {
    pub v1: InstantiationArgs,
    pub custom_data: *mut c_void,
    /// WASI settings, once a WASI setter was called: they then override
    /// the module's.
    pub wasi: Option<WasiArgs>,
}

// SAFETY: InstArgs cells hold `InstArgs`, named by `InstantiationArgs2`.
unsafe impl Object for InstArgs {
    fn kind(&self) -> Kind {
        Kind::InstArgs
    }
}

// SAFETY: InstArgs cells hold `InstArgs`.
unsafe impl Handle for InstantiationArgs2 {
    type Obj = InstArgs;
    const KINDS: u32 = Kind::InstArgs.bit();
    const NAME: &'static str = "InstantiationArgs2";
}

/// The arguments behind a handle, if it is a live one.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn instantiation_args<'a>(p: *const InstantiationArgs2) -> Option<&'a InstArgs> {
    // SAFETY: as the caller promises.
    unsafe { get::<InstantiationArgs2>(p) }
}

/// Makes arguments with WAMR's defaults (all zero, WASI from the module)
/// in `*p`. False for NULL.
///
/// # Safety
/// `p` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_create(p: *mut *mut InstantiationArgs2) -> bool {
    if p.is_null() {
        return false;
    }
    let h = object::new::<InstantiationArgs2>(InstArgs {
        v1: InstantiationArgs::default(),
        custom_data: ptr::null_mut(),
        wasi: None,
    });
    // SAFETY: writable (caller).
    unsafe { p.write(h) };
    !h.is_null()
}

/// Frees arguments; anything but live ones is ignored.
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_destroy(p: *mut InstantiationArgs2) {
    // SAFETY: as the caller promises.
    unsafe { object::delete::<InstantiationArgs2>(p) }
}

/// Runs `f` on live arguments.
///
/// # Safety
/// `p` may be NULL or any pointer; no other thread may use it meanwhile.
unsafe fn with(p: *mut InstantiationArgs2, f: impl FnOnce(&mut InstArgs)) {
    // SAFETY: as the caller promises.
    if let Some(a) = unsafe { get_mut::<InstantiationArgs2>(p) } {
        f(a);
    }
}

/// Sets the stack size (see `wasm_runtime_instantiate`).
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_default_stack_size(p: *mut InstantiationArgs2, v: u32) {
    // SAFETY: as the caller promises.
    unsafe { with(p, |a| a.v1.default_stack_size = v) }
}

/// Sets the host-managed heap size.
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_host_managed_heap_size(
    p: *mut InstantiationArgs2,
    v: u32,
) {
    // SAFETY: as the caller promises.
    unsafe { with(p, |a| a.v1.host_managed_heap_size = v) }
}

/// Caps the memories' maximum pages.
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_max_memory_pages(p: *mut InstantiationArgs2, v: u32) {
    // SAFETY: as the caller promises.
    unsafe { with(p, |a| a.v1.max_memory_pages = v) }
}

/// Sets the custom data the instance starts with.
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_custom_data(
    p: *mut InstantiationArgs2,
    custom_data: *mut c_void,
) {
    // SAFETY: as the caller promises.
    unsafe { with(p, |a| a.custom_data = custom_data) }
}

/// Runs `f` on the arguments' WASI settings (made on first use).
///
/// # Safety
/// As for [`with`].
unsafe fn with_wasi(p: *mut InstantiationArgs2, f: impl FnOnce(&mut WasiArgs)) {
    // SAFETY: as the caller promises.
    unsafe { with(p, |a| f(a.wasi.get_or_insert_with(WasiArgs::default))) }
}

/// Sets the WASI program arguments.
///
/// # Safety
/// `p` may be NULL or any pointer; `argv` NULL or `argc` readable strings
/// (each NULL or NUL-terminated).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_arg(
    p: *mut InstantiationArgs2,
    argv: *mut *mut c_char,
    argc: i32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(argv.cast(), argc.max(0) as u32) };
    // SAFETY: as the caller promises.
    unsafe { with_wasi(p, |w| w.argv = v) }
}

/// Sets the WASI environment (`KEY=VALUE` strings).
///
/// # Safety
/// As for [`wasm_runtime_instantiation_args_set_wasi_arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_env(
    p: *mut InstantiationArgs2,
    env: *const *const c_char,
    env_count: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(env, env_count) };
    // SAFETY: as the caller promises.
    unsafe { with_wasi(p, |w| w.env = v) }
}

/// Sets the WASI preopened directories (`dir_list` as themselves,
/// `map_dir_list` as `GUEST::HOST`).
///
/// # Safety
/// As for [`wasm_runtime_instantiation_args_set_wasi_arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_dir(
    p: *mut InstantiationArgs2,
    dir_list: *const *const c_char,
    dir_count: u32,
    map_dir_list: *const *const c_char,
    map_dir_count: u32,
) {
    // SAFETY: as the caller promises.
    let (d, m) = unsafe { (strings(dir_list, dir_count), strings(map_dir_list, map_dir_count)) };
    // SAFETY: as the caller promises.
    unsafe {
        with_wasi(p, |w| {
            w.dirs = d;
            w.map_dirs = m;
        })
    }
}

/// Sets the host fds behind WASI's stdin, stdout and stderr (-1: the
/// process's own).
///
/// # Safety
/// `p` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_stdio(
    p: *mut InstantiationArgs2,
    stdinfd: i64,
    stdoutfd: i64,
    stderrfd: i64,
) {
    // SAFETY: as the caller promises.
    unsafe { with_wasi(p, |w| w.stdio = [stdinfd, stdoutfd, stderrfd]) }
}

/// Sets the WASI socket address pool (see [`crate::export::wasi`]).
///
/// # Safety
/// As for [`wasm_runtime_instantiation_args_set_wasi_arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_addr_pool(
    p: *mut InstantiationArgs2,
    addr_pool: *const *const c_char,
    addr_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(addr_pool, addr_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with_wasi(p, |w| w.addr_pool = v) }
}

/// Sets the WASI name lookup pool (see [`crate::export::wasi`]).
///
/// # Safety
/// As for [`wasm_runtime_instantiation_args_set_wasi_arg`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiation_args_set_wasi_ns_lookup_pool(
    p: *mut InstantiationArgs2,
    ns_lookup_pool: *const *const c_char,
    ns_lookup_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(ns_lookup_pool, ns_lookup_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with_wasi(p, |w| w.ns_lookup_pool = v) }
}
