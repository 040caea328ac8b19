//! The floor everything else stands on: what a module declares and what
//! compiled code and the runtime agree on, as plain data.
//!
//! - Types ([`types`]) and typed indices ([`index`]); errors ([`error`])
//!   and trap codes ([`trap`]); engine settings ([`config`]).
//! - A module's declarations ([`module_info`]), read from its binary by
//!   [`parse`], with two analyses: tables that never change
//!   ([`frozen_tables`]) and initial memory contents ([`data_image`]).
//! - The contract between compiled code and the runtime: the VMContext
//!   layout ([`vmctx`]), the runtime functions code calls ([`builtins`]),
//!   and the untyped value slot ([`val_raw`]).
//!
//! Nothing here imports the compiler, the runtime or the cache: each of
//! them builds on this, and `tests/layers.rs` keeps it so.

pub mod builtins;
pub mod compiled;
pub mod config;
pub mod config_cache;
pub mod config_memory64;
pub mod config_target;
pub mod config_tier;
pub mod config_wasmtime;
pub mod data_image;
pub mod error;
pub mod frozen_tables;
pub mod gc_layout;
pub mod index;
pub mod module_info;
pub mod parse;
pub mod trap;
pub mod type_registry;
pub mod types;
pub mod val_raw;
pub mod vmctx;
