//! cranewasm: an embeddable WebAssembly runtime.
//!
//! Modules are validated by wasmparser and compiled by Cranelift to native
//! code; instances run in a [`Store`]. Data flows one way:
//!
//! ```text
//! bytes ──parse──▶ ModuleInfo ──translate──▶ Cranelift IR ──compile──▶ code memory
//! Module + imports ──instantiate──▶ Instance (VMContext) in a Store
//! Func::call ──entry trampoline──▶ wasm ──exit trampoline──▶ host function
//! ```
//!
//! ```
//! use cranewasm::*;
//!
//! let engine = Engine::default();
//! let module = Module::new(&engine, r#"(module
//!     (import "host" "double" (func $double (param i32) (result i32)))
//!     (func (export "run") (param i32) (result i32)
//!         (i32.add (call $double (local.get 0)) (i32.const 1))))"#)?;
//! let mut store = Store::new(&engine, ());
//! let double = Func::new(&mut store, FuncType::new([ValType::I32], [ValType::I32]), |_, params, results| {
//!     results[0] = Val::I32(params[0].i32().unwrap() * 2);
//!     Ok(())
//! });
//! let instance = Instance::new(&mut store, &module, &[double.into()])?;
//! let run = instance.get_func(&store, "run").unwrap();
//! let mut result = [Val::I32(0)];
//! run.call(&mut store, &[Val::I32(20)], &mut result)?;
//! assert_eq!(result[0].i32(), Some(41));
//! # Ok::<(), cranewasm::Error>(())
//! ```

#![warn(missing_docs)]
// Every unsafe operation sits in an `unsafe` block that says why it is
// sound, also inside `unsafe fn`s, as in the C layer.
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]
// Without the compiler, much of what `environ` describes for it (builtins,
// relocations, VMContext offsets the generated code uses) has no reader.
#![cfg_attr(not(feature = "compiler"), allow(dead_code))]

mod cache;
#[cfg(feature = "compiler")]
mod compile;
mod environ;
mod runtime;
#[cfg(feature = "wasi")]
pub mod wasi;

pub use environ::config::{BoundsChecks, Config, Profiler, Regalloc, BOUNDS_CHECKS_ENV, PROFILER_ENV};
pub use environ::config_cache::{CACHE_DIR_ENV, DEFAULT_CACHE_SIZE_LIMIT};
pub use environ::config_wasmtime::{Cache, OptLevel, Strategy};
pub use environ::error::{Error, LinkError, Result};
pub use environ::trap::{FrameInfo, Trap as TrapError, TrapCode as Trap, WasmBacktrace};

/// The old name of [`Trap`], the enum of trap reasons.
#[deprecated(note = "renamed `Trap`, as in wasmtime")]
pub type TrapCode = Trap;
pub use environ::types::{
    ExportType, ExternType, FuncType, GlobalType, HeapType, ImportType, IndexType, Limits, MemoryType, Mutability,
    RefType, TableType, TagType, ValType,
};
pub use environ::val_raw::{ValRaw, V128};
pub use runtime::caller::Caller;
pub use runtime::engine::Engine;
pub use runtime::extern_::Extern;
pub use runtime::externref::ExternRef;
pub use runtime::func::Func;
pub use runtime::global::Global;
pub use runtime::instance::Instance;
pub use runtime::interrupt::InterruptHandle;
pub use runtime::limits::{
    GrowFailureReason, InstanceLimits, MemoryGrowFailure, MemoryGrowth, ResourceLimiter, StoreLimits,
    StoreLimitsBuilder,
};
pub use runtime::linker::Linker;
pub use runtime::memory::Memory;
pub use runtime::module::Module;
pub use runtime::native::NativeCall;
pub use runtime::shared_memory::{SharedMemory, WaitResult};
pub use runtime::store::{AsContext, AsContextMut, Store, StoreContext, StoreContextMut, StoreOpaque};
pub use runtime::table::Table;
pub use runtime::tag::{Exn, ExnRef, Tag};
pub use runtime::typed::{HostResult, IntoFunc, TypedFunc, WasmList, WasmTy};
pub use runtime::values::Val;
pub use runtime::vm::arch::running_on_valgrind;
pub use runtime::vm::stack::native_stack_floor;
pub use runtime::vm::store_claim::{ClaimGuard, StoreClaim};

/// What the C library (`cranewasm-capi`) needs of the machine and the OS
/// beyond the embedding API: the entry of C variadic functions, the
/// calling thread's stack bounds, and the few C-library calls that differ
/// between Linux and macOS. Not a stable API.
#[doc(hidden)]
pub mod __sys {
    pub use crate::runtime::vm::arch::{c_variadic_entry, VaArgs};
    pub use crate::runtime::vm::os::{
        drain_signal, malloc_usable_size, set_errno, signal_thread, thread_id, thread_stack, ThreadStack,
    };
}

/// The checksum of a compiled-module file's bytes (all but its last 8),
/// for tests that damage files and make the checksum match again. Not a
/// stable API.
#[doc(hidden)]
pub fn __compiled_module_checksum(bytes: &[u8]) -> u64 {
    cache::checksum(bytes)
}
