//! [`Config`] knobs by wasmtime's names, mapped onto ours: an embedder
//! moving from wasmtime keeps its configuration code.

use std::path::PathBuf;

use super::config::{BoundsChecks, Config};
use super::types::GUARDED_RESERVATION_BYTES;

/// How much Cranelift optimises (wasmtime's `OptLevel`).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OptLevel {
    /// No optimisation: [`Config::cranelift_optimize`]`(false)`.
    None,
    /// Optimise for speed (the default).
    Speed,
    /// Optimise for speed and size: Cranelift's optimiser is the same as
    /// for [`Speed`](Self::Speed).
    SpeedAndSize,
}

/// Which code generator compiles modules (wasmtime's `Strategy`). Only
/// Cranelift exists here: wasmtime's `Winch` has no counterpart, so naming
/// it is a compile error rather than a silent fallback.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Strategy {
    /// The runtime's choice: Cranelift.
    #[default]
    Auto,
    /// Cranelift.
    Cranelift,
}

/// Where compiled code is kept across runs (wasmtime's `Cache`): a
/// directory of the code cache (see [`Config::cache_dir`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// A cache in `dir`, made if missing.
    pub fn new(dir: impl Into<PathBuf>) -> Cache {
        Cache { dir: dir.into() }
    }

    /// A cache in the user's cache directory: `$XDG_CACHE_HOME/cranewasm`,
    /// else `$HOME/.cache/cranewasm`; `None` when neither is set. (`iwasm`
    /// uses it too, after its options and `CRANEWASM_CACHE_DIR`.)
    pub fn from_default_dir() -> Option<Cache> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        // The XDG base directory specification: a relative value is
        // invalid and to be ignored.
        let base = var("XDG_CACHE_HOME").filter(|d| d.is_absolute()).or_else(|| Some(var("HOME")?.join(".cache")))?;
        Some(Cache::new(base.join("cranewasm")))
    }

    /// The directory.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }
}

impl Config {
    /// Cranelift's optimisation level (wasmtime's name for
    /// [`cranelift_optimize`](Self::cranelift_optimize)).
    pub fn cranelift_opt_level(&mut self, level: OptLevel) -> &mut Config {
        self.cranelift_optimize(level != OptLevel::None)
    }

    /// The code generator: Cranelift, whichever is asked for.
    pub fn strategy(&mut self, strategy: Strategy) -> &mut Config {
        match strategy {
            Strategy::Auto | Strategy::Cranelift => self,
        }
    }

    /// The compiled-code cache (wasmtime's name for
    /// [`cache_dir`](Self::cache_dir)); `None` turns it off.
    pub fn cache(&mut self, cache: Option<Cache>) -> &mut Config {
        self.cache_dir(cache.map(|c| c.dir))
    }

    /// How much address space a 32-bit memory reserves. Memories here
    /// never move: with at least what guard pages need (a little over 8
    /// GiB: twice the 32-bit index space, plus a guard) accesses are kept in
    /// bounds by guard pages, with less by explicit checks (see
    /// [`BoundsChecks`]), which is what wasmtime does with a small
    /// reservation too.
    pub fn memory_reservation(&mut self, bytes: u64) -> &mut Config {
        let mode = if bytes >= GUARDED_RESERVATION_BYTES { BoundsChecks::GuardPages } else { BoundsChecks::Explicit };
        self.bounds_checks(mode)
    }

    /// The guard region after a memory. Ours is fixed by the reservation:
    /// a size of 0 asks for no guard pages, so accesses are checked
    /// explicitly; any other size keeps the current mode.
    pub fn memory_guard_size(&mut self, bytes: u64) -> &mut Config {
        match bytes {
            0 => self.bounds_checks(BoundsChecks::Explicit),
            _ => self,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wasmtime_knobs_set_ours() {
        let mut c = Config::new();
        c.cranelift_opt_level(OptLevel::None);
        assert!(!c.optimize);
        c.cranelift_opt_level(OptLevel::SpeedAndSize);
        assert!(c.optimize);
        c.memory_reservation(1 << 20);
        assert_eq!(c.bounds_checks, BoundsChecks::Explicit);
        c.memory_reservation(GUARDED_RESERVATION_BYTES);
        assert_eq!(c.bounds_checks, BoundsChecks::GuardPages);
        c.memory_guard_size(0);
        assert_eq!(c.bounds_checks, BoundsChecks::Explicit);
        c.cache(Some(Cache::new("/tmp/x")));
        assert_eq!(c.get_cache_dir(), Some(std::path::Path::new("/tmp/x")));
        c.cache(None);
        assert_eq!(c.get_cache_dir(), None);
    }
}
