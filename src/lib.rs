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
//! Its Rust API has wasmtime's names and shapes (see [`migrating`] and the
//! README's table), plus additions of its own, marked so below. Each task
//! of an embedder, in a few lines:
//!
//! # Hello: compile, instantiate, call
//!
//! ```
//! use cranewasm::*;
//!
//! let mut store = Store::<()>::default();
//! let module = Module::new(store.engine(), r#"(module
//!     (func (export "add") (param i32 i32) (result i32)
//!         (i32.add (local.get 0) (local.get 1))))"#)?;
//! let instance = Instance::new(&mut store, &module, &[])?;
//! let add = instance.get_typed_func::<(i32, i32), i32>(&mut store, "add")?;
//! assert_eq!(add.call(&mut store, (20, 22))?, 42);
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Host functions
//!
//! Typed closures ([`Func::wrap`], [`Linker::func_wrap`]) or [`Val`]-based
//! ones ([`Func::new`], [`Linker::func_new`]); a [`Caller`] gives the
//! store's data and the calling instance's exports. An error traps.
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
//!
//! let mut linker = Linker::new(&engine);
//! linker.func_wrap("host", "double", |x: i32| -> Result<i32, TrapError> {
//!     if x < 0 { bail!("negative") }
//!     Ok(x * 2)
//! })?;
//! let instance = linker.instantiate(&mut store, &module)?;
//! let run = instance.get_typed_func::<i32, i32>(&mut store, "run")?;
//! assert_eq!(run.call(&mut store, 20)?, 41);
//! assert_eq!(run.call(&mut store, -1).unwrap_err().message(), "negative");
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Memory
//!
//! ```
//! use cranewasm::*;
//!
//! let mut store = Store::<()>::default();
//! let module = Module::new(store.engine(), r#"(module (memory (export "memory") 1)
//!     (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0))))"#)?;
//! let instance = Instance::new(&mut store, &module, &[])?;
//! let memory = instance.get_memory(&store, "memory").unwrap();
//! memory.write(&mut store, 100, &[7])?;
//! let load = instance.get_typed_func::<i32, i32>(&mut store, "load")?;
//! assert_eq!(load.call(&mut store, 100)?, 7);
//! let err = load.call(&mut store, 65536).unwrap_err();
//! assert_eq!(err.downcast_ref::<Trap>(), Some(&Trap::MemoryOutOfBounds));
//! assert_eq!(memory.grow(&mut store, 1)?, 1);
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Linking modules
//!
//! [`Linker::module`] defines a module's exports by name (a reactor is
//! instantiated once, a command per call); [`Linker::instance`] an
//! instance's.
//!
//! ```
//! use cranewasm::*;
//!
//! let engine = Engine::default();
//! let mut store = Store::new(&engine, ());
//! let mut linker = Linker::new(&engine);
//! let lib = Module::new(&engine, r#"(module (func (export "seven") (result i32) (i32.const 7)))"#)?;
//! linker.module(&mut store, "lib", &lib)?;
//! let app = Module::new(&engine, r#"(module (import "lib" "seven" (func $s (result i32)))
//!     (func (export "run") (result i32) (i32.mul (call $s) (i32.const 6))))"#)?;
//! let instance = linker.instantiate(&mut store, &app)?;
//! assert_eq!(instance.get_typed_func::<(), i32>(&mut store, "run")?.call(&mut store, ())?, 42);
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # WASI
//!
//! WASI preview 1 (an addition, with the `wasi` feature): see [`wasi`] for
//! a complete example.
//!
//! ```
//! # #[cfg(feature = "wasi")] {
//! use cranewasm::{wasi::{self, WasiCtx}, *};
//!
//! let engine = Engine::default();
//! let module = Module::new(&engine, r#"(module
//!     (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
//!     (func (export "_start") (call $exit (i32.const 3))))"#)?;
//! let mut store = Store::new(&engine, WasiCtx::builder().build()?);
//! let mut linker = Linker::new(&engine);
//! linker.define_wasi(&mut store, |ctx: &mut WasiCtx| ctx)?;
//! let instance = linker.instantiate(&mut store, &module)?;
//! assert_eq!(wasi::start(&mut store, &instance)?, 3);   // _start's exit status
//! # }
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Threads
//!
//! A [`Store`] is used by one thread at a time; threads share a
//! [`SharedMemory`] (or an [`Engine`] and [`Module`]s), each with its own
//! store. `wasi::threads` runs wasi-threads programs.
//!
//! ```
//! use cranewasm::*;
//!
//! let engine = Engine::default();
//! let module = Module::new(&engine, r#"(module (import "env" "memory" (memory 1 1 shared))
//!     (func (export "bump") (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))))"#)?;
//! let memory = SharedMemory::new(&engine, MemoryType::shared(1, 1))?;
//! let threads: Vec<_> = (0..2).map(|_| {
//!     let (engine, module, memory) = (engine.clone(), module.clone(), memory.clone());
//!     std::thread::spawn(move || -> Result<()> {
//!         let mut store = Store::new(&engine, ());
//!         let memory = memory.to_memory(&mut store)?;
//!         let instance = Instance::new(&mut store, &module, &[memory.into()])?;
//!         instance.get_typed_func::<(), ()>(&mut store, "bump")?.call(&mut store, ())?;
//!         Ok(())
//!     })
//! }).collect();
//! for t in threads { t.join().unwrap()?; }
//! // SAFETY: the threads have finished.
//! assert_eq!(unsafe { *memory.data()[0].get() }, 2);
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Fuel and epochs
//!
//! ```
//! use cranewasm::*;
//!
//! let mut config = Config::new();
//! config.consume_fuel(true).epoch_interruption(true);
//! let engine = Engine::new(&config)?;
//! let module = Module::new(&engine, r#"(module (func (export "spin") (loop (br 0))))"#)?;
//! let mut store = Store::new(&engine, ());
//! store.set_fuel(10_000)?;
//! let spin = Instance::new(&mut store, &module, &[])?.get_typed_func::<(), ()>(&mut store, "spin")?;
//! assert_eq!(spin.call(&mut store, ()).unwrap_err().downcast_ref::<Trap>(), Some(&Trap::OutOfFuel));
//!
//! store.set_fuel(u64::MAX)?;
//! store.epoch_deadline_trap();
//! store.set_epoch_deadline(1);
//! engine.increment_epoch();
//! assert_eq!(spin.call(&mut store, ()).unwrap_err().downcast_ref::<Trap>(), Some(&Trap::EpochDeadline));
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Interrupts
//!
//! An addition: [`Store::interrupt_handle`] stops a call from any thread
//! (WAMR's `wasm_runtime_terminate`).
//!
//! ```
//! use cranewasm::*;
//!
//! let mut store = Store::<()>::default();
//! let module = Module::new(store.engine(), r#"(module (func (export "spin") (loop (br 0))))"#)?;
//! let spin = Instance::new(&mut store, &module, &[])?.get_typed_func::<(), ()>(&mut store, "spin")?;
//! let handle = store.interrupt_handle();
//! std::thread::spawn(move || handle.interrupt());
//! assert_eq!(spin.call(&mut store, ()).unwrap_err().downcast_ref::<Trap>(), Some(&Trap::Interrupt));
//! # Ok::<(), cranewasm::Error>(())
//! ```
//!
//! # Caching compiled code
//!
//! [`Config::cache`] keeps compiled code across runs; [`Module::serialize`]
//! and [`Engine::precompile_module`] make files that
//! [`Module::deserialize_file`] loads without compiling.
//!
//! ```
//! use cranewasm::*;
//!
//! let dir = std::env::temp_dir().join(format!("cranewasm-doc-cache-{}", std::process::id()));
//! let mut config = Config::new();
//! config.cache(Some(Cache::new(&dir)));
//! let engine = Engine::new(&config)?;
//! let wat = r#"(module (func (export "f") (result i32) (i32.const 1)))"#;
//! Module::new(&engine, wat)?;                 // compiled and stored
//! let module = Module::new(&engine, wat)?;    // loaded from the cache
//! let bytes = engine.precompile_module(wat.as_bytes())?;
//! // SAFETY: the bytes were just made by this engine.
//! let again = unsafe { Module::deserialize(&engine, &bytes)? };
//! assert_eq!(module.exports().len(), again.exports().len());
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), cranewasm::Error>(())
//! ```

#![deny(missing_docs)]
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
pub mod migrating;
mod runtime;
#[cfg(feature = "wasi")]
pub mod wasi;

pub use environ::config::{BoundsChecks, Config, Profiler, Regalloc, BOUNDS_CHECKS_ENV, LAZY_ENV, PROFILER_ENV};
pub use environ::config_cache::{CACHE_DIR_ENV, DEFAULT_CACHE_SIZE_LIMIT};
pub use environ::config_tier::{DEFAULT_TIER_THRESHOLD, TIER_ENV, TIER_THRESHOLD_ENV};
pub use environ::config_wasmtime::{Cache, OptLevel, Strategy};
pub use runtime::code_cache::LOG_ENV as CACHE_LOG_ENV;
pub use environ::error::{Error, LinkError, Result};
pub use environ::trap::{FrameInfo, Trap as TrapError, TrapCode as Trap, WasmBacktrace};

/// The old name of [`Trap`], the enum of trap reasons.
#[deprecated(note = "renamed `Trap`, as in wasmtime")]
pub type TrapCode = Trap;
pub use environ::types::{
    ExportType, ExternType, FuncType, GlobalType, HeapType, ImportType, IndexType, Limits, MemoryType, Mutability,
    RefType, TableType, TagType, ValType,
};
// The type section's entries, for reflection on GC types (`Module::defined_type`).
pub use environ::types::{CompositeType, FieldType, StorageType, SubType};
pub use environ::val_raw::{ValRaw, V128};
pub use runtime::caller::Caller;
pub use runtime::collector::GcStats;
pub use runtime::vm::gc::heap::STRESS_ENV as GC_STRESS_ENV;
pub use runtime::engine::Engine;
pub use runtime::extern_::Extern;
pub use runtime::anyref::{AnyRef, ObjectRef, I31};
pub use runtime::arrayref::ArrayRef;
pub use runtime::eqref::EqRef;
pub use runtime::structref::StructRef;
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
pub use runtime::root_scope::RootScope;
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
