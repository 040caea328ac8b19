//! The [`Config`] switches of tiered lazy compilation: a lazily compiled
//! function is first compiled cheaply (the baseline tier) and compiled
//! again, optimised, once it has been called often (`runtime::vm::tier`).

use super::config::{from_environment, Config};

/// The environment variable that sets the default of [`Config::tiering`]:
/// `1` (on) or `0` (off). Any other value makes
/// [`Engine::new`](crate::Engine::new) fail with an error naming it.
pub const TIER_ENV: &str = "CRANEWASM_TIER";

/// The environment variable that sets the default of
/// [`Config::tier_threshold`]: a number of calls from 1 up. `1` tiers a
/// function up at its first call, which the tests use to run optimised
/// code placed by the tier-up path everywhere.
pub const TIER_THRESHOLD_ENV: &str = "CRANEWASM_TIER_THRESHOLD";

/// Calls after which a baseline function is compiled optimised, unless
/// [`Config::tier_threshold`] says otherwise: high enough that a short
/// run's start-up code (called a few times) stays baseline, low enough
/// that an interpreter's or a library's hot functions tier up within
/// milliseconds (benches/README.md, "Tiers").
pub const DEFAULT_TIER_THRESHOLD: u32 = 1000;

/// Whether lazy compilation tiers, and when a function tiers up.
#[derive(Clone, Debug)]
pub(crate) struct TierSettings {
    pub on: bool,
    pub threshold: u32,
    /// Why the environment could not be used, until the setters make it
    /// irrelevant; [`Engine::new`](crate::Engine::new) reports it.
    pub env_error: Option<String>,
}

impl Default for TierSettings {
    fn default() -> TierSettings {
        let mut errors = Vec::new();
        let on = from_environment(TIER_ENV, &[("1", true), ("0", false)], || true).unwrap_or_else(|e| {
            errors.push(e);
            true
        });
        let threshold = match std::env::var(TIER_THRESHOLD_ENV) {
            Err(_) => DEFAULT_TIER_THRESHOLD,
            Ok(v) => match v.parse::<u32>() {
                Ok(n) if n >= 1 && n <= i32::MAX as u32 => n,
                _ => {
                    errors.push(format!("{TIER_THRESHOLD_ENV}={v:?}: expected a number of calls from 1 up"));
                    DEFAULT_TIER_THRESHOLD
                }
            },
        };
        TierSettings { on, threshold, env_error: errors.into_iter().next() }
    }
}

impl Config {
    /// The settings of the baseline tier: these with Cranelift's
    /// optimiser off and none of our passes that only make code faster
    /// (inlining does not apply to a function compiled alone). The
    /// register allocator stays the backtracking one: the single-pass one
    /// compiles Lua's first run 30 % faster but gives each value a stack
    /// slot of its own, so baseline frames grew several times and a
    /// recursion that fits the wasm stack eagerly (15,000 frames of
    /// `tests/lazy.rs` in 1 MiB) overflowed (benches/README.md, "Tiers").
    pub(crate) fn baseline(&self) -> Config {
        let mut c = self.clone();
        c.optimize = false;
        c.inlining = false;
        c.loop_passes = false;
        c.widen_loads = false;
        c.address_steps = false;
        c.mul_consts = false;
        c
    }

    /// With [`lazy_compilation`](Self::lazy_compilation), compile each
    /// function first with the cheap settings (Cranelift's `opt_level`
    /// none, none of our own passes),
    /// and again optimised, on a background thread, once it has been
    /// called [`tier_threshold`](Self::tier_threshold) times; its next
    /// calls run the optimised code. On by default ([`TIER_ENV`] sets the
    /// default) where the host supports it (x86-64; elsewhere lazy
    /// functions are compiled optimised at once). Without lazy compilation
    /// it changes nothing.
    ///
    /// A loop in a baseline function runs at baseline speed until the
    /// function returns: only calls are counted, so a function entered
    /// once that loops for long never tiers up.
    pub fn tiering(&mut self, on: bool) -> &mut Config {
        self.tier.on = on;
        self.tier.env_error = None;
        self
    }

    /// Calls after which a baseline function is compiled optimised (at
    /// least 1, at most `i32::MAX`; default [`DEFAULT_TIER_THRESHOLD`],
    /// [`TIER_THRESHOLD_ENV`] sets the default).
    pub fn tier_threshold(&mut self, calls: u32) -> &mut Config {
        self.tier.threshold = calls.clamp(1, i32::MAX as u32);
        self.tier.env_error = None;
        self
    }
}
