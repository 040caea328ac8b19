//! Read-only preopened directories for WASI through the C API: WAMR's
//! `wasm_runtime_set_wasi_args` opens every directory for writing too.

use std::ffi::c_char;

use crate::export::wasi::{strings, with};
use crate::wasm_module_t;

/// cranewasm extension: directories the WASI instances of `module` see
/// read-only, as `GUEST::HOST` mappings (the form of `map_dir_list` in
/// `wasm_runtime_set_wasi_args`), replacing earlier ones: the guest may
/// list, stat and read in them, and any write, create, rename or removal
/// fails with `ENOTCAPABLE`. A host path that does not open as a
/// directory, or a malformed mapping, fails the instantiation.
///
/// # Safety
/// `module` (the `wasm_module_t` of `wasm_export.h`, which `*module` of a
/// wasm-c-api module is) may be NULL or any pointer; `map_dirs` NULL or
/// `n` readable pointers, each NULL or NUL-terminated (copied here).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_module_set_wasi_readonly_dirs(
    module: wasm_module_t,
    map_dirs: *const *const c_char,
    n: u32,
) {
    // SAFETY: as the caller promises.
    let maps = unsafe { strings(map_dirs, n) };
    // SAFETY: as the caller promises.
    unsafe { with(module, |a| a.readonly_map_dirs = maps) };
}
