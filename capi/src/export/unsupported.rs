//! The functions of features cranewasm builds without. Each behaves as
//! WAMR does when built without the feature (where WAMR then has no such
//! symbol, as the failure its signature allows), and none claims success:
//!
//! | feature | functions | here |
//! |---|---|---|
//! | shared heap | `wasm_runtime_create_shared_heap`, `_chain_shared_heaps`, `_reset_shared_heap_chain`, `_attach_shared_heap`, `_detach_shared_heap`, `_shared_heap_malloc`, `_shared_heap_free` | NULL / false / 0; detach and free do nothing |
//! | debug instance | `wasm_runtime_start_debug_instance`, `_with_port` | 0 (no debug server) |
//! | PGO | `wasm_runtime_get_pgo_prof_data_size`, `_dump_pgo_prof_data_to_buf` | 0 |
//! | XIP (AOT execute-in-place) | `wasm_runtime_is_xip_file` | false (compiled files, cranewasm's AOT files, are never XIP) |
//! | call stack copies | `wasm_copy_callstack` | 0, with WAMR's message |
//! | memory and performance profiling | `wasm_runtime_dump_mem_consumption`, `_dump_perf_profiling`, `_sum_wasm_exec_time`, `_get_wasm_func_exec_time` | nothing / 0.0 |
//!
//! Execution control works and lives elsewhere: `wasm_runtime_terminate`
//! with exceptions ([`instance`](crate::export::instance)), the
//! enlarge-error callback and `wasm_runtime_set_instruction_count_limit`
//! in [`exec_control`](crate::export::exec_control) (counting is compiled
//! into modules loaded under the default running mode `Mode_Interp`, where
//! WAMR counts, or under `CRANEWASM_INSTRUCTION_METERING=1`; elsewhere a
//! limit has no effect, as in WAMR's JIT modes), and compiled
//! files (`iwasm compile`) load as AOT files in
//! [`module`](crate::export::module).

use std::ffi::{c_char, c_void};
use std::ptr;

use crate::export::types::*;

/// Creates no shared heap: NULL.
///
/// # Safety
/// `init_args` is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_create_shared_heap(init_args: *mut SharedHeapInitArgs) -> wasm_shared_heap_t {
    let _ = init_args;
    ptr::null_mut()
}

/// Chains no shared heaps: NULL.
///
/// # Safety
/// The heaps are not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_chain_shared_heaps(
    head: wasm_shared_heap_t,
    body: wasm_shared_heap_t,
) -> wasm_shared_heap_t {
    let _ = (head, body);
    ptr::null_mut()
}

/// Resets no shared heap chain: false.
///
/// # Safety
/// The heap is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_reset_shared_heap_chain(shared_heap: wasm_shared_heap_t) -> bool {
    let _ = shared_heap;
    false
}

/// Attaches no shared heap: false.
///
/// # Safety
/// Neither pointer is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_attach_shared_heap(
    module_inst: wasm_module_inst_t,
    shared_heap: wasm_shared_heap_t,
) -> bool {
    let _ = (module_inst, shared_heap);
    false
}

/// Nothing is attached, so nothing is detached.
///
/// # Safety
/// The instance is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_detach_shared_heap(module_inst: wasm_module_inst_t) {
    let _ = module_inst;
}

/// Allocates nothing from a shared heap: 0, and NULL in `*p_native_addr`.
///
/// # Safety
/// `p_native_addr` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_shared_heap_malloc(
    module_inst: wasm_module_inst_t,
    size: u64,
    p_native_addr: *mut *mut c_void,
) -> u64 {
    let _ = (module_inst, size);
    if !p_native_addr.is_null() {
        // SAFETY: writable (caller).
        unsafe { p_native_addr.write(ptr::null_mut()) };
    }
    0
}

/// Frees nothing.
///
/// # Safety
/// The instance is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_shared_heap_free(module_inst: wasm_module_inst_t, ptr: u64) {
    let _ = (module_inst, ptr);
}

/// Starts no debug server: 0.
///
/// # Safety
/// The exec env is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_start_debug_instance_with_port(exec_env: wasm_exec_env_t, port: i32) -> u32 {
    let _ = (exec_env, port);
    0
}

/// Starts no debug server: 0.
///
/// # Safety
/// The exec env is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_start_debug_instance(exec_env: wasm_exec_env_t) -> u32 {
    let _ = exec_env;
    0
}

/// No PGO profile: 0 bytes.
///
/// # Safety
/// The instance is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_pgo_prof_data_size(module_inst: wasm_module_inst_t) -> u32 {
    let _ = module_inst;
    0
}

/// No PGO profile: 0 bytes written.
///
/// # Safety
/// Nothing is read or written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_dump_pgo_prof_data_to_buf(
    module_inst: wasm_module_inst_t,
    buf: *mut c_char,
    len: u32,
) -> u32 {
    let _ = (module_inst, buf, len);
    0
}

/// No buffer is an XIP AOT file here: false.
///
/// # Safety
/// Nothing is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_xip_file(buf: *const u8, size: u32) -> bool {
    let _ = (buf, size);
    false
}

/// Copies no call stack (WAMR without its call-stack features): 0, with
/// WAMR's message in `error_buf`.
///
/// # Safety
/// `error_buf` NULL or writable for `error_buf_size` bytes; nothing else
/// is read or written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_copy_callstack(
    exec_env: wasm_exec_env_t,
    buffer: *mut WASMCApiFrame,
    length: u32,
    skip_n: u32,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> u32 {
    let _ = (exec_env, buffer, length, skip_n);
    // SAFETY: as the caller promises.
    unsafe { crate::export::set_error_buf(error_buf, error_buf_size, "No copy_callstack API was actually executed") };
    0
}

/// No memory profiling: prints nothing.
///
/// # Safety
/// The exec env is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_dump_mem_consumption(exec_env: wasm_exec_env_t) {
    let _ = exec_env;
}

/// No performance profiling: prints nothing.
///
/// # Safety
/// The instance is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_dump_perf_profiling(module_inst: wasm_module_inst_t) {
    let _ = module_inst;
}

/// No performance profiling: 0.0 ms.
///
/// # Safety
/// The instance is not read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_sum_wasm_exec_time(module_inst: wasm_module_inst_t) -> f64 {
    let _ = module_inst;
    0.0
}

/// No performance profiling: 0.0 ms.
///
/// # Safety
/// Nothing is read.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_wasm_func_exec_time(
    inst: wasm_module_inst_t,
    func_name: *const c_char,
) -> f64 {
    let _ = (inst, func_name);
    0.0
}
