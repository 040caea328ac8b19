//! Cross-compilation: an engine whose [`Config::target`] is another
//! architecture or system than this host's compiles for it, and only
//! writes compiled-code files. Everything that would run its code here
//! (compiling a module to run, loading compiled code, host functions and
//! their trampolines) asks [`Engine::check_runs_here`] first and fails with
//! an error naming both targets.
//!
//! [`Config::target`]: crate::Config::target

use target_lexicon::{Triple, HOST};

use crate::environ::config::Config;
use crate::environ::error::{Error, Result};
use crate::runtime::engine::Engine;

/// Whether code for `triple` runs on this host: the same architecture and
/// system (vendor and environment do not change the code Cranelift makes).
fn runs_here(triple: &Triple) -> bool {
    triple.architecture == HOST.architecture && triple.operating_system == HOST.operating_system
}

/// The error of running code compiled for `triple` here.
fn foreign(triple: &Triple, what: &str) -> Error {
    Error::Unsupported(format!(
        "{what}: this engine compiles for {} ({triple}), this host is {} ({HOST}), so its code cannot run here; \
         Engine::precompile_module (iwasm compile --target) writes it to a file for that target",
        triple.architecture, HOST.architecture
    ))
}

/// Refuses a configuration [`Engine::new`] cannot make an engine of: a
/// foreign target without the compiler (such an engine could do nothing).
pub(crate) fn check_config(config: &Config) -> Result<()> {
    match &config.target.triple {
        Some(triple) if !cfg!(feature = "compiler") && !runs_here(triple) => Err(Error::Unsupported(format!(
            "target {triple}: compiling for another target needs the `compiler` feature, which this \
             runtime-only build of cranewasm leaves out"
        ))),
        _ => Ok(()),
    }
}

/// Cranelift's builder for the configured target: this host's CPU, or the
/// target's baseline CPU (Cranelift's defaults: ARMv8.0-A without LSE for
/// aarch64, SSE2 and no later extension for x86-64).
#[cfg(feature = "compiler")]
pub(crate) fn isa_builder(config: &Config) -> Result<cranelift_codegen::isa::Builder> {
    match &config.target.triple {
        None => cranelift_native::builder().map_err(|e| Error::Unsupported(format!("host not supported by Cranelift: {e}"))),
        Some(triple) => cranelift_codegen::isa::lookup(triple.clone()).map_err(|e| {
            Error::Unsupported(format!(
                "target {triple}: {e} (this build has no code generator for it: the library has its host's only, iwasm with its \
                 `cross` feature x86-64's and aarch64's)"
            ))
        }),
    }
}

impl Engine {
    /// The target this engine's code is for (this host's, unless
    /// [`Config::target`](crate::Config::target) chose another).
    pub fn target(&self) -> Triple {
        #[cfg(feature = "compiler")]
        return self.isa().triple().clone();
        #[cfg(not(feature = "compiler"))]
        HOST
    }

    /// Whether this engine's code runs on this host (false for an engine
    /// that cross-compiles).
    pub fn runs_here(&self) -> bool {
        runs_here(&self.target())
    }

    /// Fails, saying `what` was asked, when this engine's code is for
    /// another target: nothing of it may run here.
    pub(crate) fn check_runs_here(&self, what: &str) -> Result<()> {
        let target = self.target();
        if runs_here(&target) {
            Ok(())
        } else {
            Err(foreign(&target, what))
        }
    }
}
