//! The runtime: stores and the objects in them, calls in and out of
//! compiled code, and trap handling.

pub mod caller;
pub mod code_registry;
pub mod entry;
pub mod extern_;
pub mod externref;
pub mod func;
pub mod global;
pub mod instance;
pub mod libcalls;
pub mod memory;
pub mod memory_pool;
pub mod signals;
pub mod stack;
pub mod store;
pub mod table;
pub mod thread;
pub mod typed;
pub mod unwind;
