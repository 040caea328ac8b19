//! The unsafe internals of the runtime: everything compiled code reads or
//! calls, and every raw pointer the runtime follows.
//!
//! - Store objects, named `VM*` like the layouts they share with compiled
//!   code in `vmctx.rs`: [`instance::VMInstance`] (a VMContext and what it
//!   owns), [`memory::VMMemory`] (on a reservation from
//!   [`memory_pool`], initialised from a [`memory_image`] where it can, or
//!   referring to a [`shared_memory::VMSharedMemory`] that several stores
//!   use), [`table::VMTable`], [`func::VMHostFunc`],
//!   `VMGlobal` ([`global`]) and [`externref::VMExternData`]; handles to
//!   them are [`stored::Stored`].
//! - Threads: [`parking_lot`] (`memory.atomic.wait`/`notify`).
//! - Calls: [`entry`] (host → wasm, with [`scratch`] slots), the exit side
//!   in [`func`], and [`libcalls`] (the builtins compiled code calls).
//! - Traps: [`signals`] (faults to traps), [`unwind`] (the jump back to
//!   the entry), [`stack`] (the stack limit), [`thread`] (per-thread
//!   state).
//! - Code: [`code_memory`] (executable pages), [`lazy_code`] and
//!   [`lazy_stub`] (the region and stubs of lazily compiled modules),
//!   [`code_registry`] (which
//!   addresses are wasm code, for the signal handler and backtraces) and
//!   [`profiling`] (telling perf about it).
//!
//! - Limits: [`limits`] (every creation and growth of a memory or table
//!   asks the store's resource limiter there).
//! - Interruption: [`interrupt`] (a signal that stops compiled code from
//!   another thread; epoch and fuel checks are compiled code reading
//!   `VMStoreContext`) and [`blocking`] (host functions that wait, woken
//!   by a stop).
//!
//! - Threads: [`shared_memory`] (memories several stores use at once) and
//!   [`parking_lot`] (`memory.atomic.wait` and `notify`).
//!
//! Later mechanisms belong here too: a code cache's loading of images into
//! [`code_memory`] sits in `crate::cache`.

pub mod arch;
pub mod blocking;
pub mod code_memory;
pub mod code_registry;
pub mod entry;
pub mod exception;
pub mod export;
pub mod externref;
pub mod fault_regions;
pub mod func;
pub mod gc;
pub mod global;
pub mod instance;
pub mod interrupt;
pub mod late_exit;
pub mod lazy;
pub mod lazy_code;
pub mod lazy_stub;
pub mod libcalls;
pub mod limits;
pub mod link;
pub mod mapped_file;
pub mod memory;
pub mod memory_image;
pub mod memory_pool;
pub mod module_code;
pub mod null_call;
pub mod os;
pub mod parking_lot;
pub mod profiling;
pub mod scratch;
pub mod shared_memory;
pub mod signals;
pub mod stack;
pub mod store;
pub mod store_claim;
pub mod stored;
pub mod table;
pub mod thread;
pub mod tier;
pub mod unwind;
