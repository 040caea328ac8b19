//! The [`Config`] switch of cross-compilation: the target an engine
//! generates code for, when it is not this host (wasmtime's
//! `Config::target`). Such an engine only writes compiled-code files
//! (`Engine::precompile_module`); it never runs code, since its code is
//! for another CPU (`runtime::engine_target`).

use std::str::FromStr;

use super::config::Config;
use super::error::{Error, Result};

/// The target an engine compiles for: `None` for this host, with every CPU
/// feature the host has; otherwise the target's baseline CPU, so that the
/// code runs on any CPU of its architecture (for aarch64, ARMv8.0-A
/// without LSE atomics, as on a Raspberry Pi 4).
#[derive(Clone, Debug, Default)]
pub(crate) struct TargetSettings {
    pub triple: Option<target_lexicon::Triple>,
}

impl Config {
    /// Generates code for `target`, a target triple such as
    /// `aarch64-unknown-linux-gnu`, for its architecture's baseline CPU
    /// rather than this host's. An engine for another architecture or
    /// system than this host's makes compiled-code files only
    /// ([`Engine::precompile_module`](crate::Engine::precompile_module)),
    /// which the runtime for that target loads; [`Module::new`](crate::Module::new),
    /// loading compiled code and host functions fail in it with an error,
    /// never run its code. The code generator for the target must be
    /// built in: the library has only the host's, `iwasm` (feature
    /// `cross`) has x86-64's and aarch64's too; [`Engine::new`](crate::Engine::new)
    /// names a missing one.
    ///
    /// Fails on a triple that is not well formed.
    pub fn target(&mut self, target: &str) -> Result<&mut Config> {
        let triple = target_lexicon::Triple::from_str(target)
            .map_err(|e| Error::Usage(format!("target {target:?} is not a target triple: {e}")))?;
        self.target.triple = Some(triple);
        Ok(self)
    }
}
