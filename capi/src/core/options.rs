//! The option structs both C headers take, field by field in WAMR's
//! layout: the allocator choice of `wasm_config_t` and
//! `RuntimeInitArgs` (`mem_alloc_type_t`, `MemAllocOption`), and the load
//! and instantiation arguments of `wasm_module_new_ex` /
//! `wasm_runtime_load_ex` (`LoadArgs`) and `wasm_instance_new_with_args_ex`
//! / `wasm_runtime_instantiate_ex` (`InstantiationArgs`).
//!
//! cranewasm has no pluggable allocator, so the allocator options are
//! accepted and ignored, never rejected.

use std::ffi::{c_char, c_void};

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
