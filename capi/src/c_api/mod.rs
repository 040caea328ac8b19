//! The functions of WAMR's `wasm_c_api.h`, one file per concept of the
//! header: [`vec`], [`types`], [`import_export`], [`val`], [`config`],
//! [`engine`], [`store`], [`module`], [`instance`] (and [`link`], how its
//! imports are linked), [`func`], [`global`],
//! [`table`], [`memory`], [`extern_`], [`ref_`] (and [`anyref`], GC
//! references as `wasm_ref_t`s), [`trap`], [`frame`];
//! [`wat`] holds our own `cranewasm_*` extensions.

pub mod anyref;
pub mod config;
pub mod engine;
pub mod extern_;
pub mod frame;
pub mod func;
pub mod global;
pub mod import_export;
pub mod instance;
pub mod link;
pub mod memory;
pub mod module;
pub mod ref_;
pub mod store;
pub mod table;
pub mod trap;
pub mod types;
pub mod val;
pub mod vec;
pub mod wat;
