//! WAMR's `wasm_c_api.h` over cranewasm: the `libiwasm` C library.
//!
//! Every function of the header is exported with C linkage. The layer is
//! thin: it checks and converts C values, calls the core crate and converts
//! back. Three rules shape it:
//!
//! * **NULL is always allowed**, and so is any pointer to an object: every
//!   object argument is looked up in the live-object table ([`handle`]),
//!   so NULL, a pointer the library never handed out and a deleted object
//!   are refused alike (the function returns NULL / 0 / false or does
//!   nothing), never read.
//! * **Objects belong to their store.** Everything created in a store
//!   (functions, globals, tables, memories, instances, modules, traps,
//!   frames, foreign objects) is registered with it; deleting the store frees
//!   whatever the client did not delete itself ([`object`]).
//! * **Buffers come from the C allocator**, so clients may free what they
//!   are given and give what they allocated ([`vec`]).
//!
//! [`c_api`] holds the functions of `wasm_c_api.h`, one file per concept
//! of the header. [`object`] holds the object model (and the macro that
//! declares each C object type) and [`handle`] the live-object table; both
//! serve every C API of the library.

#![allow(non_camel_case_types)]
// Every exported function says what it requires of its pointers, and every
// `unsafe` block why it is sound.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

pub mod c_api;
pub mod core;
pub mod diag;
pub mod export;
pub mod ext;
pub mod handle;
pub mod libc_builtin;
pub mod object;

pub use c_api::engine::wasm_engine_t;
pub use c_api::extern_::wasm_extern_t;
pub use c_api::frame::wasm_frame_t;
pub use c_api::func::wasm_func_t;
pub use c_api::global::wasm_global_t;
pub use c_api::import_export::{wasm_exporttype_t, wasm_importtype_t};
pub use c_api::instance::wasm_instance_t;
pub use c_api::memory::wasm_memory_t;
pub use c_api::ref_::wasm_foreign_t;
pub use c_api::store::wasm_store_t;
pub use c_api::table::wasm_table_t;
pub use c_api::trap::wasm_trap_t;
pub use c_api::types::{
    wasm_externtype_t, wasm_functype_t, wasm_globaltype_t, wasm_memorytype_t, wasm_tabletype_t, wasm_valtype_t,
};

/// What a `wasm_module_t` points at: opaque to clients, who only pass the
/// pointer on. Being a plain (not `repr(C)`) struct, it appears in the
/// header as an incomplete `struct`, as in WAMR's header.
pub struct WASMModuleCommon {
    _private: [u8; 0],
}

// Declared here, not with its functions in `c_api::ref_`, because the
// `wasm_val_t` both headers pass points at one (`core::val`).
/// Any reference object (function, global, table, memory, instance,
/// trap or foreign object, or a GC reference: an i31, struct or array).
pub struct wasm_ref_t {
    _private: [u8; 0],
}

/// WAMR's module handle is a pointer typedef, so API functions take and
/// return `wasm_module_t *`: a pointer to a runtime-owned slot.
pub type wasm_module_t = *mut WASMModuleCommon;
/// A module handle that may move to another thread (the same slot type).
pub type wasm_shared_module_t = wasm_module_t;

/// Writes one diagnostic line to stderr, for failures the C API cannot
/// report otherwise (a malformed module, an instantiation without a trap
/// pointer, ...): an error line of [`diag`], silenced below level 1.
pub(crate) fn log(args: std::fmt::Arguments<'_>) {
    diag::line(diag::ERROR, args);
}
