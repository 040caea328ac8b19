//! What stands in for `compile.rs` in a runtime-only build (without the
//! `compiler` feature): modules come only from compiled-code files, and
//! WebAssembly bytes are refused with an error naming the feature.

use crate::environ::compiled::CompiledImage;
use crate::environ::error::Result;
use crate::environ::module_info::ModuleInfo;
use crate::runtime::codegen::needs_compiler;
use crate::runtime::engine::Engine;
use crate::runtime::vm::module_code::ModuleCode;

/// Refuses `wasm`: compiling needs the compiler.
pub(super) fn compile(_: &Engine, wasm: &[u8]) -> Result<ModuleCode> {
    let what = if wasm.starts_with(b"\0asm") { "loading a WebAssembly binary" } else { "loading these bytes" };
    Err(needs_compiler(what))
}

/// No module here was compiled lazily, so none needs this.
pub(super) fn compile_eagerly(_: &Engine, _: &[u8]) -> Result<(ModuleInfo, CompiledImage)> {
    Err(needs_compiler("compiling a module"))
}

/// Trampolines are compiled code; a runtime-only build only carries on
/// those its files brought.
pub(super) fn exit_trampolines(_: &Engine, _: &ModuleInfo) -> Result<Vec<(u32, Vec<u8>)>> {
    Err(needs_compiler("writing a compiled-code file"))
}

impl super::Module {
    /// Checking a module is the compiler's work (its validator): refused in
    /// a runtime-only build.
    pub fn validate(_: &Engine, _: impl AsRef<[u8]>) -> Result<()> {
        Err(needs_compiler("validating a WebAssembly binary"))
    }
}
