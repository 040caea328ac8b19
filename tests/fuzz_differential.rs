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

use std::time::{Duration, Instant};

use differential::{env_u64, on_big_stack, run_seed, Stats};

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..10_000;

/// Default time for random seeds: with the fixed seeds on the other core,
/// the file takes about a minute on two cores.
const RANDOM_SECONDS: u64 = 45;

fn run(seeds: impl Iterator<Item = u64>, deadline: Option<Instant>) -> Stats {
    differential::run_seeds(seeds, deadline, run_seed)
}

#[test]
fn fixed_seeds() {
    if let Some(seed) = env_u64("CRANEWASM_FUZZ_SEED") {
        on_big_stack(move || run(std::iter::once(seed), None));
        return;
    }
    let seeds = match env_u64("CRANEWASM_FUZZ_FIXED") {
        Some(n) => FIXED_SEEDS.start..FIXED_SEEDS.end.min(FIXED_SEEDS.start + n),
        None => FIXED_SEEDS,
    };
    let count = seeds.end - seeds.start;
    let stats = on_big_stack(move || run(seeds, None));
    assert_eq!(stats.modules, count);
    // The generator must keep producing modules that run: a configuration
    // change that made most of them fail to instantiate would hollow the
    // test out.
    assert!(stats.instantiated * 2 > stats.modules, "{stats:?}");
    assert!(stats.calls > stats.modules, "{stats:?}");
    assert!(stats.oracle_rejected * 20 < stats.modules, "{stats:?}");
    // Fuel keeps recursion far below both runtimes' stack limits, so no
    // fixed seed should end with both exhausted (each such module's later
    // calls would go uncompared); the count is in the line printed above.
    assert_eq!(stats.both_exhausted, 0, "modules that ended in mutual stack exhaustion: {stats:?}");
}

#[test]
fn random_seeds() {
    if env_u64("CRANEWASM_FUZZ_SEED").is_some() {
        return;
    }
    let seconds = env_u64("CRANEWASM_FUZZ_SECONDS").unwrap_or(RANDOM_SECONDS);
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    // Far from the fixed range; consecutive from a random start, so a log
    // line of the first seed tells every seed tried.
    let first = (start | 1 << 40) & !(1 << 63);
    eprintln!("random seeds from {first} for {seconds} s");
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let stats = on_big_stack(move || run(first.., Some(deadline)));
    // Random seeds may find the rare module whose recursion the fuel does
    // not bound (each is printed with its seed); more than one in a
    // thousand would mean the generator changed.
    assert!(
        stats.both_exhausted * 1000 <= stats.modules,
        "too many modules ended in mutual stack exhaustion: {stats:?}"
    );
}

#[test]
fn regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/regressions exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm" || e == "wat"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression modules in {}", dir.display());
    on_big_stack(move || {
        let mut stats = Stats::default();
        for file in &files {
            // Hand-minimised reproducers are kept as text.
            let wasm = wat::parse_file(file).unwrap();
            // Every engine configuration, each with its own arguments.
            for seed in 0..4 {
                if let Err(e) = differential::compare(&wasm, seed, &mut stats) {
                    panic!("{}: {e}", file.display());
                }
            }
        }
        eprintln!("regressions: {stats:?}");
    });
}
