//! The engine's code generator: Cranelift configured for this host, and
//! the per-signature trampolines it compiles on request. The one part of
//! the engine that needs the `compiler` feature (`no_codegen.rs` stands in
//! for it without).

use std::sync::Arc;

use cranelift_codegen::isa::{OwnedTargetIsa, TargetIsa};
use cranelift_codegen::settings::{self, Configurable};

use crate::compile;
use crate::environ::config::{Config, Regalloc};
use crate::environ::error::{Error, Result};
use crate::environ::types::{FuncType, ValType};
use crate::runtime::engine::Engine;
use crate::runtime::vm::code_memory::CodeMemory;

/// Cranelift for this host (or the configured target), with the engine's
/// settings.
pub(crate) fn host_isa(config: &Config) -> Result<OwnedTargetIsa> {
    let mut flags = settings::builder();
    let set = |flags: &mut settings::Builder, name: &str, value: &str| {
        flags.set(name, value).map_err(|e| Error::Unsupported(format!("cranelift setting {name}: {e}")))
    };
    set(&mut flags, "opt_level", if config.optimize { "speed" } else { "none" })?;
    let regalloc = match config.regalloc {
        Regalloc::Backtracking => "backtracking",
        Regalloc::SinglePass => "single_pass",
    };
    set(&mut flags, "regalloc_algorithm", regalloc)?;
    // Frame pointers give trap backtraces a chain to follow.
    set(&mut flags, "preserve_frame_pointers", "true")?;
    // Prologues check the stack limit before allocating, so no probes.
    set(&mut flags, "enable_probestack", "false")?;
    set(&mut flags, "enable_multi_ret_implicit_sret", "true")?;
    set(&mut flags, "enable_verifier", if cfg!(debug_assertions) { "true" } else { "false" })?;
    // Guard pages keep heap accesses in bounds; table indices are
    // checked against the length right before use.
    set(&mut flags, "enable_heap_access_spectre_mitigation", "false")?;
    set(&mut flags, "enable_table_access_spectre_mitigation", "false")?;
    set(&mut flags, "unwind_info", "false")?;
    // Block offsets and edges, to place functions by their loops
    // (`compile::loop_align`).
    set(&mut flags, "machine_code_cfg_info", "true")?;
    super::engine_target::isa_builder(config)?
        .finish(settings::Flags::new(flags))
        .map_err(|e| Error::Unsupported(format!("cannot configure Cranelift: {e}")))
}

/// The code generator's part of [`Engine::fingerprint`]: the target, its CPU
/// features and every Cranelift setting.
pub(crate) fn fingerprint(isa: &dyn TargetIsa, out: &mut Vec<(String, String)>) {
    out.push(("target".to_string(), isa.triple().to_string()));
    for v in isa.isa_flags() {
        let text = v.to_string();
        let value = text.split_once('=').map_or(text.as_str(), |(_, v)| v).to_string();
        out.push((format!("cpu.{}", v.name), value));
    }
    for v in isa.flags().iter() {
        let text = v.to_string();
        let value = text.split_once('=').map_or(text.as_str(), |(_, v)| v).to_string();
        out.push((format!("cranelift.{}", v.name), value));
    }
}

/// The wasm→host trampoline for `ty`, compiled into its own pages.
pub(crate) fn exit_trampoline(engine: &Engine, ty: &FuncType) -> Result<Arc<CodeMemory>> {
    engine.check_runs_here("a host function's wasm-to-host trampoline")?;
    Ok(Arc::new(CodeMemory::new(&compile::exit_trampoline(engine.isa(), ty)?)?))
}

/// The host→C trampoline for `params` and `results`, compiled into its own
/// pages.
pub(crate) fn native_trampoline(engine: &Engine, params: &[ValType], results: &[ValType]) -> Result<Arc<CodeMemory>> {
    engine.check_runs_here("calling a C function natively")?;
    Ok(Arc::new(CodeMemory::new(&compile::native_trampoline(engine.isa(), params, results)?)?))
}
