//! `wasm_config_t` and the option structs of WAMR's header, field by
//! field.
//!
//! cranewasm has no pluggable allocator and no segment-register memory
//! access, so those options are accepted and ignored, never rejected. The
//! one option with an effect is `enable_linux_perf`: we take it as the
//! request to profile, which turns on the timing behind
//! `wasm_instance_sum_wasm_exec_time` (see [`crate::instance`]).

use std::ffi::{c_char, c_void};
use std::ptr;

/// How WAMR would allocate its memory (`Alloc_With_Pool`,
/// `Alloc_With_Allocator`, `Alloc_With_System_Allocator`). Ignored.
pub type mem_alloc_type_t = u32;

/// `Alloc_With_System_Allocator`, the default.
pub const ALLOC_WITH_SYSTEM_ALLOCATOR: mem_alloc_type_t = 2;

/// A user heap for WAMR's pool allocator. Ignored.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct MemAllocPool {
    pub heap_buf: *mut c_void,
    pub heap_size: u32,
}

/// User allocation functions for WAMR. Ignored.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct MemAllocAllocator {
    pub malloc_func: *mut c_void,
    pub realloc_func: *mut c_void,
    pub free_func: *mut c_void,
    pub user_data: *mut c_void,
}

/// `MemAllocOption`: the options of the allocator type.
#[repr(C)]
#[derive(Copy, Clone)]
pub union MemAllocOption {
    pub pool: MemAllocPool,
    pub allocator: MemAllocAllocator,
}

/// Engine configuration, laid out as WAMR's `struct wasm_config_t`.
#[repr(C)]
pub struct wasm_config_t {
    pub mem_alloc_type: mem_alloc_type_t,
    pub mem_alloc_option: MemAllocOption,
    pub segue_flags: u32,
    pub enable_linux_perf: bool,
}

impl Default for wasm_config_t {
    fn default() -> wasm_config_t {
        wasm_config_t {
            mem_alloc_type: ALLOC_WITH_SYSTEM_ALLOCATOR,
            mem_alloc_option: MemAllocOption {
                allocator: MemAllocAllocator {
                    malloc_func: ptr::null_mut(),
                    realloc_func: ptr::null_mut(),
                    free_func: ptr::null_mut(),
                    user_data: ptr::null_mut(),
                },
            },
            segue_flags: 0,
            enable_linux_perf: false,
        }
    }
}

/// `InstantiationArgs` of `wasm_instance_new_with_args_ex`.
#[repr(C)]
#[derive(Copy, Clone, Default)]
pub struct InstantiationArgs {
    pub default_stack_size: u32,
    pub host_managed_heap_size: u32,
    pub max_memory_pages: u32,
}

/// `LoadArgs` of `wasm_module_new_ex`.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct LoadArgs {
    pub name: *mut c_char,
    pub clone_wasm_binary: bool,
    pub wasm_binary_freeable: bool,
    pub no_resolve: bool,
}

/// A configuration with WAMR's defaults: the system allocator, no perf.
#[no_mangle]
pub extern "C" fn wasm_config_new() -> *mut wasm_config_t {
    Box::into_raw(Box::default())
}

/// Deletes a configuration (engines keep no pointer to it).
#[no_mangle]
pub unsafe extern "C" fn wasm_config_delete(config: *mut wasm_config_t) {
    if !config.is_null() {
        drop(Box::from_raw(config));
    }
}

/// Records WAMR's allocator choice. cranewasm always uses the system
/// allocator, so the option is accepted and has no effect. Returns
/// `config`.
#[no_mangle]
pub unsafe extern "C" fn wasm_config_set_mem_alloc_opt(
    config: *mut wasm_config_t,
    mem_alloc_type: mem_alloc_type_t,
    option: *mut MemAllocOption,
) -> *mut wasm_config_t {
    let Some(c) = config.as_mut() else { return ptr::null_mut() };
    c.mem_alloc_type = mem_alloc_type;
    if let Some(o) = option.as_ref() {
        c.mem_alloc_option = *o;
    }
    config
}

/// Turns profiling on or off. cranewasm writes no perf map; instead the
/// flag makes calls into instances timed, for
/// `wasm_instance_sum_wasm_exec_time`. Returns `config`.
#[no_mangle]
pub unsafe extern "C" fn wasm_config_set_linux_perf_opt(
    config: *mut wasm_config_t,
    enable: bool,
) -> *mut wasm_config_t {
    let Some(c) = config.as_mut() else { return ptr::null_mut() };
    c.enable_linux_perf = enable;
    config
}

/// Records WAMR's segment-register flags. cranewasm's memory accesses do
/// not use segment registers, so the flags are accepted and have no effect.
/// Returns `config`.
#[no_mangle]
pub unsafe extern "C" fn wasm_config_set_segue_flags(
    config: *mut wasm_config_t,
    segue_flags: u32,
) -> *mut wasm_config_t {
    let Some(c) = config.as_mut() else { return ptr::null_mut() };
    c.segue_flags = segue_flags;
    config
}
