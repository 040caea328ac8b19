//! WAMR's `wasm_c_api.h` over cranewasm: the `libiwasm` C library.
//!
//! Every function of the header is exported with C linkage. The layer is
//! thin: it checks and converts C values, calls the core crate and converts
//! back. Three rules shape it:
//!
//! * **NULL is always allowed.** Every pointer argument may be NULL; the
//!   function then returns NULL / 0 / false or does nothing.
//! * **Objects belong to their store.** Everything created in a store
//!   (functions, globals, tables, memories, instances, modules, traps,
//!   frames, foreign objects) is registered with it; deleting the store frees
//!   whatever the client did not delete itself ([`object`]).
//! * **Buffers come from the C allocator**, so clients may free what they
//!   are given and give what they allocated ([`vec`]).
//!
//! One file per concept of the header: [`vec`], [`types`], [`import_export`],
//! [`val`], [`config`], [`engine`], [`store`], [`module`], [`instance`],
//! [`func`], [`global`], [`table`], [`memory`], [`extern_`], [`ref_`],
//! [`trap`], [`frame`]; [`wat`] holds our own `cranewasm_*` extensions.

#![allow(non_camel_case_types)]
// The exported functions check their pointers for NULL themselves; each
// `unsafe` block below names the invariant it relies on.
#![allow(clippy::missing_safety_doc)]

pub mod config;
pub mod engine;
pub mod extern_;
pub mod frame;
pub mod func;
pub mod global;
pub mod import_export;
pub mod instance;
pub mod memory;
pub mod module;
pub mod object;
pub mod ref_;
pub mod store;
pub mod table;
pub mod trap;
pub mod types;
pub mod val;
pub mod vec;
pub mod wat;

/// Declares the C API's opaque handle types.
///
/// They have no Rust fields: a pointer to one is really a pointer to a
/// runtime object (`engine::EngineObj`, `store::StoreObj`,
/// `types::ValTypeObj`, `types::ExternTypeObj` for the entity types,
/// `import_export::*TypeObj`, `extern_::ExternObj` for the five extern
/// kinds, `instance::InstanceObj`, `trap::TrapObj`, `frame::FrameObj`,
/// `ref_::ForeignObj`), and the functions that take one cast it back. Being plain (not `repr(C)`) structs, they appear in the
/// header as incomplete `struct` types, as in WAMR's header.
macro_rules! opaque_types {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        $(#[$doc])*
        pub struct $name {
            _private: [u8; 0],
        }
    )*};
}

opaque_types! {
    /// The process-wide engine (one, reference-counted).
    wasm_engine_t;
    /// A store: owns everything created in it, freed when it is deleted.
    wasm_store_t;
    /// A value type.
    wasm_valtype_t;
    /// A function type; also a `wasm_externtype_t`.
    wasm_functype_t;
    /// A global type; also a `wasm_externtype_t`.
    wasm_globaltype_t;
    /// A table type; also a `wasm_externtype_t`.
    wasm_tabletype_t;
    /// A memory type; also a `wasm_externtype_t`.
    wasm_memorytype_t;
    /// The type of a function, global, table or memory.
    wasm_externtype_t;
    /// An import of a module: module name, field name and type.
    wasm_importtype_t;
    /// An export of a module: name and type.
    wasm_exporttype_t;
    /// Any reference object (function, global, table, memory, instance,
    /// trap or foreign object); the `_as_ref` casts are free.
    wasm_ref_t;
    /// A frame of a trap's backtrace.
    wasm_frame_t;
    /// A trap: a message and the frames where it happened.
    wasm_trap_t;
    /// A host object with no content but its identity and host info.
    wasm_foreign_t;
    /// A function; also a `wasm_extern_t`.
    wasm_func_t;
    /// A global; also a `wasm_extern_t`.
    wasm_global_t;
    /// A table; also a `wasm_extern_t`.
    wasm_table_t;
    /// A linear memory; also a `wasm_extern_t`.
    wasm_memory_t;
    /// A function, global, table or memory of a store.
    wasm_extern_t;
    /// An instance of a module.
    wasm_instance_t;
    /// What a `wasm_module_t` points at.
    WASMModuleCommon;
}

/// WAMR's module handle is a pointer typedef, so API functions take and
/// return `wasm_module_t *`: a pointer to a runtime-owned slot.
pub type wasm_module_t = *mut WASMModuleCommon;
/// A module handle that may move to another thread (the same slot type).
pub type wasm_shared_module_t = wasm_module_t;

/// Writes one diagnostic line to stderr, for failures the C API cannot
/// report otherwise (a malformed module, an instantiation without a trap
/// pointer, ...).
pub(crate) fn log(args: std::fmt::Arguments<'_>) {
    eprintln!("[cranewasm] {args}");
}
