//! How the fuzzers run seeds: the fixed range, random seeds for a time,
//! and the regression modules, shared by `fuzz_differential.rs` (wasmi)
//! and `fuzz_wasmtime.rs` (wasmtime).

use std::time::{Duration, Instant};

use super::model::Runtime;
use super::{compare_with, on_big_stack, Stats};

/// A number from the environment variable `name`, if set.
pub fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name} must be a number")))
}

/// Runs `one` on `seeds` until `deadline`, printing each divergence as it
/// comes and the counts at the end; fails with every divergence found.
pub fn run_seeds(
    seeds: impl Iterator<Item = u64>,
    deadline: Option<Instant>,
    one: impl Fn(u64, &mut Stats) -> Result<(), String>,
) -> Stats {
    // A panic inside a runtime is caught and reported with its seed; one
    // line for it is enough.
    std::panic::set_hook(Box::new(|info| eprintln!("panic: {info}")));
    let mut stats = Stats::default();
    let mut failures = Vec::new();
    for seed in seeds {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if let Err(e) = one(seed, &mut stats) {
            eprintln!("FAILED {e}");
            failures.push(e);
        }
    }
    eprintln!("differential: {stats:?}");
    assert!(failures.is_empty(), "{} divergences:\n{}", failures.len(), failures.join("\n"));
    stats
}

/// The fixed seeds `all` (only the first `CRANEWASM_FUZZ_FIXED` of them,
/// if set), each through `one`, with the checks of their counts every
/// fuzzer makes; the seeds run and the counts. `None` when the seed
/// `CRANEWASM_FUZZ_SEED` was replayed instead.
pub fn fixed_seeds(
    all: std::ops::Range<u64>,
    one: fn(u64, &mut Stats) -> Result<(), String>,
) -> Option<(std::ops::Range<u64>, Stats)> {
    if let Some(seed) = env_u64("CRANEWASM_FUZZ_SEED") {
        on_big_stack(move || run_seeds(std::iter::once(seed), None, one));
        return None;
    }
    let seeds = match env_u64("CRANEWASM_FUZZ_FIXED") {
        Some(n) => all.start..all.end.min(all.start + n),
        None => all,
    };
    let run = seeds.clone();
    let stats = on_big_stack(move || run_seeds(run, None, one));
    assert_eq!(stats.modules, seeds.end - seeds.start);
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
    Some((seeds, stats))
}

/// Random seeds for `CRANEWASM_FUZZ_SECONDS` (else `default_seconds`),
/// each through `one`, unless one seed is being replayed.
pub fn random_seeds(default_seconds: u64, one: fn(u64, &mut Stats) -> Result<(), String>) {
    if env_u64("CRANEWASM_FUZZ_SEED").is_some() {
        return;
    }
    let seconds = env_u64("CRANEWASM_FUZZ_SECONDS").unwrap_or(default_seconds);
    let start = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    // Far from the fixed range; consecutive from a random start, so a log
    // line of the first seed tells every seed tried.
    let first = (start | 1 << 40) & !(1 << 63);
    eprintln!("random seeds from {first} for {seconds} s");
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let stats = on_big_stack(move || run_seeds(first.., Some(deadline), one));
    // Random seeds may find the rare module whose recursion the fuel does
    // not bound (each is printed with its seed); more than one in a
    // thousand would mean the generator changed.
    assert!(
        stats.both_exhausted * 1000 <= stats.modules,
        "too many modules ended in mutual stack exhaustion: {stats:?}"
    );
}

/// Compares every module of `tests/FOLDER` (binary, or text when minimised
/// by hand) against the oracle `O` with the config seeds `seeds` (each
/// picks an engine configuration and the arguments).
pub fn regressions<O: Runtime>(folder: &str, seeds: std::ops::Range<u64>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join(folder);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm" || e == "wat"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression modules in {}", dir.display());
    on_big_stack(move || {
        let mut stats = Stats::default();
        for file in &files {
            let wasm = wat::parse_file(file).unwrap();
            for seed in seeds.clone() {
                if let Err(e) = compare_with::<O>(&wasm, seed, &mut stats) {
                    panic!("{}: {e}", file.display());
                }
            }
        }
        eprintln!("regressions: {stats:?}");
    });
}
