//! What both C headers share: the conversions between the core's types and
//! the C kind codes.
//!
//! `c_api/` (`wasm_c_api.h`) and `export/` (`wasm_export.h`) build on this
//! layer and not on each other.

pub mod kinds;
