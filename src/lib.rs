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

mod builtins;
mod cache;
mod compile;
mod config;
mod engine;
mod error;
mod index;
mod linker;
mod module;
mod runtime;
mod trap;
mod types;
mod values;
mod vmctx;
#[cfg(feature = "wasi")]
pub mod wasi;

// The translator still names code memory by its old path: `crate::code_memory`.
use runtime::vm::code_memory;

pub use config::{running_on_valgrind, BoundsChecks, Config, Profiler, Regalloc, BOUNDS_CHECKS_ENV, PROFILER_ENV};
pub use engine::Engine;
pub use error::{Error, LinkError, Result};
pub use linker::Linker;
pub use module::Module;
pub use runtime::caller::Caller;
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
pub use runtime::memory::Memory;
pub use runtime::native::NativeCall;
pub use runtime::shared_memory::{SharedMemory, WaitResult};
pub use runtime::store::{AsContext, AsContextMut, Store, StoreContext, StoreContextMut, StoreOpaque};
pub use runtime::store_claim::{ClaimGuard, StoreClaim};
pub use runtime::table::Table;
pub use runtime::typed::{HostResult, IntoFunc, TypedFunc, WasmList, WasmTy};
pub use runtime::vm::stack::native_stack_floor;
pub use trap::{FrameInfo, Trap, TrapCode};
pub use types::{
    ExportType, ExternType, FuncType, GlobalType, ImportType, Limits, MemoryType, Mutability, TableType, ValType,
};
pub use values::{Val, ValRaw, V128};

/// The checksum of a compiled-module file's bytes (all but its last 8),
/// for tests that damage files and make the checksum match again. Not a
/// stable API.
#[doc(hidden)]
pub fn __compiled_module_checksum(bytes: &[u8]) -> u64 {
    cache::checksum(bytes)
}
