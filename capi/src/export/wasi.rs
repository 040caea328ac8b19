//! WASI through `wasm_export.h`: `wasm_runtime_set_wasi_args` and co. on a
//! module (or an `InstantiationArgs2`), a WASI context per instance of a
//! module that imports WASI, `wasm_runtime_is_wasi_mode`,
//! `_lookup_wasi_start_function` and `_get_wasi_exit_code`. The
//! functions themselves are the core's ([`cranewasm::wasi`]), for both
//! `wasi_snapshot_preview1` and `wasi_unstable` imports, as in WAMR.
//!
//! As WAMR: `dir_list` entries are preopened under their own names,
//! `map_dir_list` entries are `GUEST::HOST`; stdio handles of -1 mean the
//! process's own streams, others are duplicated. The socket address pool
//! (`ADDRESS/MASK` entries) and the name-lookup pool are where the guest's
//! sockets may go (WAMR's socket extension, [`cranewasm::wasi`]'s `sock`);
//! a malformed pool entry fails the instantiation with WAMR's message.

use std::ffi::c_char;
use std::sync::atomic::Ordering;

use cranewasm::{Func, ImportType, Linker, Module, Store};

use crate::core::module::module;
use crate::export::instance::{InstData, inst};
use crate::export::types::*;
use crate::wasm_module_t;

/// Reads `n` C strings (NULL ones skipped; none for a NULL array).
///
/// # Safety
/// `list` NULL or `n` readable pointers, each NULL or NUL-terminated.
pub unsafe fn strings(list: *const *const c_char, n: u32) -> Vec<String> {
    if list.is_null() {
        return Vec::new();
    }
    (0..n as usize)
        // SAFETY: `n` readable pointers (caller).
        .filter_map(|i| unsafe { crate::export::cstr(*list.add(i)) })
        .map(String::from)
        .collect()
}

pub use crate::core::wasi::{WasiArgs, is_wasi_module, provides};

/// The WASI function for `import` in an instance's store (over the
/// instance's WASI context, when it has one), defining WASI in `linker` on
/// first use.
pub fn func(
    linker: &mut Option<Linker<InstData>>,
    store: &mut Store<InstData>,
    module: &Module,
    import: &ImportType,
) -> Option<Func> {
    let has_context = |d: &mut InstData| Ok((!d.wasi.is_empty()).then_some(0));
    crate::core::wasi::resolve(linker, store, module, import, has_context).ok().flatten()
}

/// Runs `f` on a live module's WASI settings.
///
/// # Safety
/// `module` may be NULL or any pointer.
pub(crate) unsafe fn with(module: wasm_module_t, f: impl FnOnce(&mut WasiArgs)) {
    // SAFETY: as the caller promises.
    if let Some(m) = unsafe { self::module(module) } {
        f(&mut m.wasi.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

/// Sets the WASI settings instances of `module` get: preopened
/// directories, environment, arguments and stdio fds (-1 for the
/// process's own).
///
/// # Safety
/// `module` may be NULL or any pointer; each list NULL or holding its
/// count of strings (NULL or NUL-terminated), copied here.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_args_ex(
    module: wasm_module_t,
    dir_list: *const *const c_char,
    dir_count: u32,
    map_dir_list: *const *const c_char,
    map_dir_count: u32,
    env: *const *const c_char,
    env_count: u32,
    argv: *mut *mut c_char,
    argc: i32,
    stdinfd: i64,
    stdoutfd: i64,
    stderrfd: i64,
) {
    // SAFETY: as the caller promises.
    let (dirs, map_dirs, env, argv) = unsafe {
        (
            strings(dir_list, dir_count),
            strings(map_dir_list, map_dir_count),
            strings(env, env_count),
            strings(argv.cast(), argc.max(0) as u32),
        )
    };
    // SAFETY: as the caller promises.
    unsafe {
        with(module, |w| {
            w.dirs = dirs;
            w.map_dirs = map_dirs;
            w.env = env;
            w.argv = argv;
            w.stdio = [stdinfd, stdoutfd, stderrfd];
        })
    }
}

/// [`wasm_runtime_set_wasi_args_ex`] with the process's stdio.
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_args(
    module: wasm_module_t,
    dir_list: *const *const c_char,
    dir_count: u32,
    map_dir_list: *const *const c_char,
    map_dir_count: u32,
    env: *const *const c_char,
    env_count: u32,
    argv: *mut *mut c_char,
    argc: i32,
) {
    // SAFETY: as the caller promises.
    unsafe {
        wasm_runtime_set_wasi_args_ex(
            module,
            dir_list,
            dir_count,
            map_dir_list,
            map_dir_count,
            env,
            env_count,
            argv,
            argc,
            -1,
            -1,
            -1,
        )
    }
}

/// Sets the socket address pool: `ADDRESS/MASK` entries, the addresses the
/// guest's sockets may bind, connect and send to.
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_addr_pool(
    module: wasm_module_t,
    addr_pool: *const *const c_char,
    addr_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(addr_pool, addr_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with(module, |w| w.addr_pool = v) }
}

/// Sets the name lookup pool: the names the guest may look up (`*SUFFIX`
/// for any name ending in SUFFIX).
///
/// # Safety
/// As for [`wasm_runtime_set_wasi_args_ex`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_wasi_ns_lookup_pool(
    module: wasm_module_t,
    ns_lookup_pool: *const *const c_char,
    ns_lookup_pool_size: u32,
) {
    // SAFETY: as the caller promises.
    let v = unsafe { strings(ns_lookup_pool, ns_lookup_pool_size) };
    // SAFETY: as the caller promises.
    unsafe { with(module, |w| w.ns_lookup_pool = v) }
}

/// Whether the instance's module imports WASI.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_wasi_mode(module_inst: wasm_module_inst_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.is_some_and(|i| i.is_wasi)
}

/// The instance's `_start` if it exports one of type `() -> ()` (NULL
/// otherwise).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_lookup_wasi_start_function(
    module_inst: wasm_module_inst_t,
) -> wasm_function_inst_t {
    // SAFETY: as the caller promises.
    let f = unsafe { crate::export::lookup::wasm_runtime_lookup_function(module_inst, c"_start".as_ptr()) };
    // SAFETY: `f` is NULL or a function handle just made.
    let ok = unsafe { crate::export::lookup::func_inst(f) }
        .is_some_and(|fi| fi.ty.params().is_empty() && fi.ty.results().is_empty());
    if !f.is_null() && !ok {
        crate::core::runtime::log(1, format_args!("Lookup wasi _start function failed: invalid function type."));
        return std::ptr::null_mut();
    }
    f
}

/// The status the WASI program gave `proc_exit` (0 if it did not, and for
/// anything but a live instance).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_wasi_exit_code(module_inst: wasm_module_inst_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(0, |i| i.wasi_exit_code.load(Ordering::Relaxed))
}
