//! The layer both C headers call, below them (as WAMR's wasm-c-api sits on
//! its runtime): `c_api/` (`wasm_c_api.h`) and `export/` (`wasm_export.h`)
//! build on it and not on each other (`capi/tests/layers.rs` checks it).
//!
//! - [`call`]: the one call path, raw slots for every call into wasm;
//! - [`host`]: the one host-function path, for callbacks and natives;
//! - [`link`]: the one linker, a chain of resolvers (the positional rule,
//!   WASI, sub-modules; natives and stand-ins from each header);
//! - [`store`]: the one store-data type and externref map;
//! - [`wasi`]: WASI settings and the WASI resolver;
//! - [`runtime`]: the runtime's state (initialisation, the engines,
//!   diagnostics), with [`pool`] (the budget of `Alloc_With_Pool`);
//! - [`module`]: the runtime's modules and the module registry of
//!   multi-module, with [`reflect`] (their imports and exports) and
//!   [`natives`] (the registered natives imports link to);
//! - [`kinds`], [`val`], [`options`], [`types`]: the C kind codes,
//!   `wasm_val_t`, the option structs both headers take, and the
//!   `wasm_export.h` types the core keeps.

pub mod call;
pub mod host;
pub mod kinds;
pub mod link;
pub mod module;
pub mod natives;
pub mod options;
pub mod pool;
pub mod reflect;
pub mod runtime;
pub mod store;
pub mod types;
pub mod val;
pub mod wasi;
