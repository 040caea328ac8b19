//! The C types of `wasm_export.h` that the core keeps: a module's
//! package type and its reader, the running modes, log levels, and the
//! handles and kinds of the reflection entries. `export/types.rs` holds
//! the rest of the header's types and re-exports these, so that the
//! header's functions see one list.

use std::ffi::c_char;

/// `package_type_t`: `Wasm_Module_Bytecode` (0), `Wasm_Module_AoT` (1),
/// `Package_Type_Unknown` (0xFFFF).
pub type package_type_t = u32;
pub(crate) const WASM_MODULE_BYTECODE: package_type_t = 0;
pub(crate) const WASM_MODULE_AOT: package_type_t = 1;
pub(crate) const PACKAGE_TYPE_UNKNOWN: package_type_t = 0xFFFF;

/// `RunningMode`: `Mode_Interp` (1), `Mode_Fast_JIT`, `Mode_LLVM_JIT`,
/// `Mode_Multi_Tier_JIT` (4); 0 is WAMR's internal "default".
pub type RunningMode = u32;
pub(crate) const MODE_DEFAULT: RunningMode = 0;
pub(crate) const MODE_INTERP: RunningMode = 1;
pub(crate) const MODE_LLVM_JIT: RunningMode = 3;

/// `log_level_t`: `WASM_LOG_LEVEL_FATAL` (0) .. `WASM_LOG_LEVEL_VERBOSE` (4).
pub type log_level_t = u32;
pub(crate) const WASM_LOG_LEVEL_WARNING: log_level_t = 2;
pub(crate) const WASM_LOG_LEVEL_VERBOSE: log_level_t = 4;

/// `wasm_import_export_kind_t`: func 0, table 1, memory 2, global 3.
pub type wasm_import_export_kind_t = u32;
pub(crate) const KIND_FUNC: wasm_import_export_kind_t = 0;
pub(crate) const KIND_TABLE: wasm_import_export_kind_t = 1;
pub(crate) const KIND_MEMORY: wasm_import_export_kind_t = 2;
pub(crate) const KIND_GLOBAL: wasm_import_export_kind_t = 3;

/// Opaque: a function type of a module's import or export.
pub struct WASMFuncType {
    _private: [u8; 0],
}
pub type wasm_func_type_t = *mut WASMFuncType;
/// Opaque: a table type of a module's import or export.
pub struct WASMTableType {
    _private: [u8; 0],
}
pub type wasm_table_type_t = *mut WASMTableType;
/// Opaque: a global type of a module's import or export.
pub struct WASMGlobalType {
    _private: [u8; 0],
}
pub type wasm_global_type_t = *mut WASMGlobalType;
/// Opaque: a memory type of a module's import or export
/// (`WASMMemoryType`, `struct WASMMemory` in the header).
pub struct WASMMemory {
    _private: [u8; 0],
}
pub type wasm_memory_type_t = *mut WASMMemory;

/// Reads a module file for multi-module loading.
pub type module_reader = Option<
    unsafe extern "C" fn(
        module_type: package_type_t,
        module_name: *const c_char,
        p_buffer: *mut *mut u8,
        p_size: *mut u32,
    ) -> bool,
>;
/// Releases a buffer a [`module_reader`] gave.
pub type module_destroyer = Option<unsafe extern "C" fn(buffer: *mut u8, size: u32)>;
