//! The C types of `wasm_export.h` and `lib_export.h`, laid out as WAMR's
//! (`capi/tests/layout.rs` compares them with WAMR's headers).
//!
//! WAMR's enums are C `enum`s, which a client may fill with any value, so
//! here they are `u32` typedefs (a Rust enum read from an out-of-range C
//! value would be undefined behaviour); the header spells them out as the
//! enums they are (`capi/cbindgen-export.toml`). The handle types are
//! pointers to opaque structs, as in WAMR; what they point at is a cell of
//! the live-object table ([`crate::handle`]).

use std::ffi::{c_char, c_int, c_void};

use crate::core::options::{MemAllocOption, mem_alloc_type_t};
use crate::core::val::wasm_valkind_t;

pub use crate::core::types::*;

/// `enlarge_memory_error_reason_t`: `INTERNAL_ERROR` (0), `MAX_SIZE_REACHED` (1).
pub type enlarge_memory_error_reason_t = u32;

/// `NativeSymbol` of `lib_export.h`: a host function for wasm to import.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct NativeSymbol {
    pub symbol: *const c_char,
    pub func_ptr: *mut c_void,
    pub signature: *const c_char,
    pub attachment: *mut c_void,
}

/// `RuntimeInitArgs` of `wasm_runtime_full_init`.
#[repr(C)]
pub struct RuntimeInitArgs {
    pub mem_alloc_type: mem_alloc_type_t,
    pub mem_alloc_option: MemAllocOption,
    pub native_module_name: *const c_char,
    pub native_symbols: *mut NativeSymbol,
    pub n_native_symbols: u32,
    pub max_thread_num: u32,
    pub ip_addr: [c_char; 128],
    pub unused: c_int,
    pub instance_port: c_int,
    pub fast_jit_code_cache_size: u32,
    pub gc_heap_size: u32,
    pub running_mode: RunningMode,
    pub llvm_jit_opt_level: u32,
    pub llvm_jit_size_level: u32,
    pub segue_flags: u32,
    pub enable_linux_perf: bool,
}

/// `mem_alloc_info_t` of `wasm_runtime_get_mem_alloc_info`.
#[repr(C)]
pub struct mem_alloc_info_t {
    pub total_size: u32,
    pub total_free_size: u32,
    pub highmark_size: u32,
}

/// Opaque: what a `wasm_module_inst_t` points at.
pub struct WASMModuleInstanceCommon {
    _private: [u8; 0],
}
/// An instance of a module.
pub type wasm_module_inst_t = *mut WASMModuleInstanceCommon;

/// Opaque: what a `wasm_exec_env_t` points at.
pub struct WASMExecEnv {
    _private: [u8; 0],
}
/// An execution environment.
pub type wasm_exec_env_t = *mut WASMExecEnv;

/// A function of an instance (`void *` in the header).
pub type wasm_function_inst_t = *mut c_void;

/// Opaque: what a `wasm_memory_inst_t` points at.
pub struct WASMMemoryInstance {
    _private: [u8; 0],
}
/// A memory of an instance.
pub type wasm_memory_inst_t = *mut WASMMemoryInstance;

/// Opaque: a shared heap (a feature cranewasm builds without).
pub struct WASMSharedHeap {
    _private: [u8; 0],
}
pub type wasm_shared_heap_t = *mut WASMSharedHeap;

/// Opaque: extensible instantiation arguments.
pub struct InstantiationArgs2 {
    _private: [u8; 0],
}

/// The type of an import or export, by kind.
#[repr(C)]
#[derive(Copy, Clone)]
pub union wasm_import_export_type_t {
    pub func_type: wasm_func_type_t,
    pub table_type: wasm_table_type_t,
    pub global_type: wasm_global_type_t,
    pub memory_type: wasm_memory_type_t,
}

/// `wasm_import_t` of `wasm_runtime_get_import_type`.
#[repr(C)]
pub struct wasm_import_t {
    pub module_name: *const c_char,
    pub name: *const c_char,
    pub kind: wasm_import_export_kind_t,
    pub linked: bool,
    pub u: wasm_import_export_type_t,
}

/// `wasm_export_t` of `wasm_runtime_get_export_type`.
#[repr(C)]
pub struct wasm_export_t {
    pub name: *const c_char,
    pub kind: wasm_import_export_kind_t,
    pub u: wasm_import_export_type_t,
}

/// `wasm_global_inst_t`: an exported global and the address of its value.
#[repr(C)]
pub struct wasm_global_inst_t {
    pub kind: wasm_valkind_t,
    pub is_mutable: bool,
    pub global_data: *mut c_void,
}

/// `wasm_table_inst_t`: an exported table; `elems` identifies it for
/// `wasm_table_get_func_inst`.
#[repr(C)]
pub struct wasm_table_inst_t {
    pub elem_kind: wasm_valkind_t,
    pub cur_size: u32,
    pub max_size: u32,
    pub elems: *mut c_void,
}

/// `WASMCApiFrame` (`struct wasm_frame_t` of `wasm_export.h`): one frame
/// of `wasm_copy_callstack`.
#[repr(C)]
pub struct WASMCApiFrame {
    pub instance: *mut c_void,
    pub module_offset: u32,
    pub func_index: u32,
    pub func_offset: u32,
    pub func_name_wp: *const c_char,
    pub sp: *mut u32,
    pub frame_ref: *mut u8,
    pub lp: *mut u32,
}

/// `wasm_section_t`: one section of `wasm_runtime_load_from_sections`.
#[repr(C)]
pub struct wasm_section_t {
    pub next: *mut wasm_section_t,
    pub section_type: c_int,
    pub section_body: *mut u8,
    pub section_body_size: u32,
}
/// A list of sections (its first).
pub type wasm_section_list_t = *mut wasm_section_t;

/// `SharedHeapInitArgs` of `wasm_runtime_create_shared_heap`.
#[repr(C)]
pub struct SharedHeapInitArgs {
    pub size: u32,
    pub pre_allocated_addr: *mut c_void,
}

/// Called when `memory.grow` fails.
pub type enlarge_memory_error_callback_t = Option<
    unsafe extern "C" fn(
        inc_page_count: u32,
        current_memory_size: u64,
        memory_index: u32,
        failure_reason: enlarge_memory_error_reason_t,
        instance: wasm_module_inst_t,
        exec_env: wasm_exec_env_t,
        user_data: *mut c_void,
    ),
>;

/// A thread routine of `wasm_runtime_spawn_thread`.
pub type wasm_thread_callback_t = Option<unsafe extern "C" fn(wasm_exec_env_t, *mut c_void) -> *mut c_void>;
/// A thread of `wasm_runtime_spawn_thread`.
pub type wasm_thread_t = usize;

/// A context key's destructor.
pub type context_dtor_t = Option<unsafe extern "C" fn(inst: wasm_module_inst_t, ctx: *mut c_void)>;
