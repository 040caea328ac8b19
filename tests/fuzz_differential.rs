//! Differential fuzzing against wasmi (see `differential/mod.rs` for what
//! is compared and how).
//!
//! The normal test run covers a fixed range of seeds (the same every time)
//! and then random seeds for a bounded time, printing each failing seed.
//! Both print their counts; modules that ended with both runtimes out of
//! stack are among them, and are asserted: none for the fixed seeds, at
//! most one in a thousand for random ones.
//! Environment variables:
//! - `CRANEWASM_FUZZ_SECONDS=N`: spend N seconds on random seeds (the long
//!   run: `CRANEWASM_FUZZ_SECONDS=3600 cargo test --release --test
//!   fuzz_differential random -- --nocapture`).
//! - `CRANEWASM_FUZZ_SEED=N`: run only seed N (to replay a failure).
//! - `CRANEWASM_FUZZ_FIXED=N`: only the first N fixed seeds (for runs
//!   under emulation, `tests/aarch64.sh`).
//!
//! Modules that once diverged are kept in `tests/regressions/` (binary, or
//! text when minimised by hand) and run on every engine configuration.
//! `cargo run --release --example fuzz_replay -- FILE.wasm [SEED]` replays
//! one module; as it exits with 1 on a divergence, it is also the
//! predicate for shrinking one (`wasm-tools shrink`).

// Each fuzzer uses one oracle and its generator profile of the shared code.
#[allow(dead_code)]
mod differential;

use differential::oracle::Oracle;
use differential::run_seed;
use differential::runs;

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..10_000;

/// Default time for random seeds: with the fixed seeds on the other core,
/// the file takes about a minute on two cores.
const RANDOM_SECONDS: u64 = 45;

#[test]
fn fixed_seeds() {
    runs::fixed_seeds(FIXED_SEEDS, run_seed);
}

#[test]
fn random_seeds() {
    runs::random_seeds(RANDOM_SECONDS, run_seed);
}

#[test]
fn regressions() {
    // Every engine configuration, each with its own arguments.
    runs::regressions::<Oracle>("regressions", 0..4);
}
