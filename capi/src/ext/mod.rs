//! cranewasm's own extensions of the C API (`cranewasm_*`), beyond what
//! WAMR's headers offer, for bindings that want more than WAMR gives: the
//! Python package (`python/`) uses every one of them. Each concept has its
//! file; all are declared in `include/wasm_c_api.h` and listed in
//! `capi/README.md` ("cranewasm extensions").

pub mod engine_options;
pub mod exceptions;
pub mod gc_refs;
pub mod last_error;
pub mod limits64;
pub mod store_control;
pub mod trap_info;
pub mod wasi_readonly;
