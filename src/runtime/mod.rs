//! The runtime: stores and the objects in them, as the embedder sees them.
//!
//! Each file here is one public concept ([`Store`](crate::Store),
//! [`Instance`](crate::Instance), [`Func`](crate::Func), ...) and holds
//! handles and checks, not raw pointers: a handle is a
//! [`Stored`](vm::stored::Stored) (store id plus address), checked against
//! the store on every use. What compiled code shares with the runtime
//! (VMContexts, memory and table storage, host function contexts) and the
//! machinery of calls and traps live in [`vm`], where the unsafe code is.

pub mod caller;
pub mod collector;
pub(crate) mod code_cache;
#[cfg(feature = "compiler")]
mod codegen;
#[cfg(not(feature = "compiler"))]
#[path = "no_codegen.rs"]
mod codegen;
pub mod engine;
pub mod eqref;
mod engine_target;
pub mod extern_;
pub mod anyref;
pub mod arrayref;
pub mod externref;
pub mod func;
pub(crate) mod gc_object;
pub mod global;
pub mod instance;
pub mod interrupt;
pub mod limits;
pub mod linker;
pub mod memory;
pub mod module;
pub mod root_scope;
pub mod native;
pub mod shared_memory;
pub mod store;
pub mod structref;
mod store_wasmtime;
pub mod table;
pub mod tag;
pub mod typed;
pub mod values;
pub mod vm;
