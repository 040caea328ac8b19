//! Moving from wasmtime, and from this crate's earlier names.
//!
//! # From wasmtime
//!
//! Rename the crate (`use cranewasm::*;` for `use wasmtime::*;`); the
//! names shared with wasmtime have its shapes. The README's table "The same
//! API as wasmtime's" lists each type as the same, different (and why) or
//! missing; the programs in `examples/` are wasmtime's examples written
//! against this crate. What differs in code that compiles:
//!
//! - Host functions return `Result<_, TrapError>` rather than
//!   `wasmtime::Result`; `?` on an [`Error`](crate::Error) and
//!   [`bail!`](crate::bail) work in them unchanged.
//! - [`TypedFunc::call`](crate::TypedFunc::call) fails with a
//!   [`TrapError`](crate::TrapError), which has the same `downcast_ref`
//!   as [`Error`](crate::Error).
//! - An epoch deadline traps with [`Trap::EpochDeadline`](crate::Trap::EpochDeadline),
//!   not `Trap::Interrupt` (which is what an
//!   [`InterruptHandle`](crate::InterruptHandle) gives).
//! - `Store::epoch_deadline_callback` does not compile: its error names
//!   the missing feature.
//!
//! # From this crate's earlier names
//!
//! | Before | Now | Old name kept? |
//! |---|---|---|
//! | `TrapCode` (enum of reasons) | [`Trap`](crate::Trap) | yes, `#[deprecated]` alias `TrapCode`, for one release |
//! | `TrapCode::Unreachable` | `Trap::UnreachableCodeReached` | yes, hidden deprecated constant, for one release |
//! | `TrapCode::Interrupted` | `Trap::Interrupt` | yes, hidden deprecated constant, for one release |
//! | `TrapCode::UninitializedElement` | `Trap::IndirectCallToNull` | yes, hidden deprecated constant, for one release |
//! | `Trap` (the error of a trapping call) | [`TrapError`](crate::TrapError) | no: its name is the enum's now |
//! | `Linker` | [`Linker<T>`](crate::Linker), generic over the store's data | — |
//! | `Linker::new()` | `Linker::new(&engine)` (`Linker::default()` still works) | — |
//! | `linker.define(module, name, item)` | `linker.define(&store, module, name, item)?` | — |
//! | `linker.instance(&store, name, instance)` | the same, now returning `Result` | — |
//! | `linker.get(module, name)` | `linker.get(&mut store, module, name)` | — |
//! | a second definition of a name replaced the first | an error unless [`Linker::allow_shadowing`](crate::Linker::allow_shadowing)`(true)` | — |
//! | `Module::serialize() -> Vec<u8>` | `Module::serialize() -> Result<Vec<u8>>` | — |
//! | `Config::cranelift_optimize(bool)` | also [`Config::cranelift_opt_level`](crate::Config::cranelift_opt_level) | both stay |
//! | `Config::cache_dir(Option<PathBuf>)` | also [`Config::cache`](crate::Config::cache)`(Option<Cache>)` | both stay |
//!
//! Error messages (what the C layer and its clients see) did not change.
//!
//! # Our additions
//!
//! Kept and documented as additions to wasmtime's API:
//! [`Store::interrupt_handle`](crate::Store::interrupt_handle) (stop a
//! call from any thread), [`SharedMemory`](crate::SharedMemory) with host
//! atomics, [`StoreClaim`](crate::StoreClaim), per-instance limits
//! ([`InstanceLimits`](crate::InstanceLimits)), the WAMR-compatible knobs
//! ([`BoundsChecks`](crate::BoundsChecks), [`Config::lazy_compilation`](crate::Config::lazy_compilation),
//! [`Config::memory_images`](crate::Config::memory_images), the
//! environment variables the C layer reads), and WASI preview 1
//! (`Linker::define_wasi`).
