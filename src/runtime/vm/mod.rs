//! The unsafe internals of the runtime: everything compiled code reads or
//! calls, and every raw pointer the runtime follows.
//!
//! - Store objects, named `VM*` like the layouts they share with compiled
//!   code in `vmctx.rs`: [`instance::VMInstance`] (a VMContext and what it
//!   owns), [`memory::VMMemory`] (on a reservation from
//!   [`memory_pool`], initialised from a [`memory_image`] where it can), [`table::VMTable`], [`func::VMHostFunc`],
//!   `VMGlobal` ([`global`]) and [`externref::VMExternData`]; handles to
//!   them are [`stored::Stored`].
//! - Calls: [`entry`] (host → wasm, with [`scratch`] slots), the exit side
//!   in [`func`], and [`libcalls`] (the builtins compiled code calls).
//! - Traps: [`signals`] (faults to traps), [`unwind`] (the jump back to
//!   the entry), [`stack`] (the stack limit), [`thread`] (per-thread
//!   state).
//! - Code: [`code_memory`] (executable pages) and [`code_registry`]
//!   (which addresses are wasm code, for the signal handler and
//!   backtraces).
//!
//! Later mechanisms belong here too: interruption (an epoch or fuel field
//! in `VMStoreContext` checked by compiled code), resource limits (checked
//! where `VMMemory::grow` and `VMTable::grow` are), shared memories (a
//! `VMMemory` whose definition is shared between stores) and a code cache
//! (loading images into [`code_memory`]).

pub mod code_memory;
pub mod code_registry;
pub mod entry;
pub mod externref;
pub mod func;
pub mod global;
pub mod instance;
pub mod libcalls;
pub mod memory;
pub mod memory_image;
pub mod memory_pool;
pub mod scratch;
pub mod signals;
pub mod stack;
pub mod stored;
pub mod table;
pub mod thread;
pub mod unwind;
