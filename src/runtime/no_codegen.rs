//! What stands in for the engine's code generator (`codegen.rs`) in a
//! runtime-only build, without the `compiler` feature: every request for
//! new machine code fails with an error that names the missing feature.

use std::sync::Arc;

use crate::environ::error::{Error, Result};
use crate::environ::types::{FuncType, ValType};
use crate::runtime::engine::Engine;
use crate::runtime::vm::code_memory::CodeMemory;

/// The error of everything a runtime-only build cannot do: `what` needs
/// the compiler.
pub(crate) fn needs_compiler(what: &str) -> Error {
    Error::Unsupported(format!(
        "{what} needs the `compiler` feature, which this runtime-only build of cranewasm leaves out: \
         it runs compiled-code files (`iwasm compile`, Module::serialize)"
    ))
}

/// Wasm→host trampolines come only from compiled-code files here
/// (`Engine::add_exit_trampolines`): one for every function type of a
/// loaded module.
pub(crate) fn exit_trampoline(_: &Engine, ty: &FuncType) -> Result<Arc<CodeMemory>> {
    Err(needs_compiler(&format!(
        "a host function of type {ty} that no loaded compiled module declares (its wasm-to-host trampoline)"
    )))
}

/// Host→C trampolines are generated code.
pub(crate) fn native_trampoline(_: &Engine, params: &[ValType], results: &[ValType]) -> Result<Arc<CodeMemory>> {
    Err(needs_compiler(&format!("calling a C function natively ({params:?} -> {results:?})")))
}
