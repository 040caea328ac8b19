//! Differential fuzzing of the WebAssembly 3.0 features against wasmtime
//! (see `differential/mod.rs` for what is compared, and
//! `differential/oracle_wasmtime.rs` for the oracle): wasm-smith modules
//! with exceptions (`try_table`, `throw`, `throw_ref`, exnref), 64-bit
//! memories and tables, wide arithmetic, custom page sizes and, on odd
//! seeds, typed function references, on top of the 2.0 features; no GC.
//!
//! As `fuzz_differential.rs` does for wasmi: a fixed range of seeds, then
//! random seeds for a bounded time, with the same environment variables:
//! - `CRANEWASM_FUZZ_SECONDS=N`: spend N seconds on random seeds (the long
//!   run: `CRANEWASM_FUZZ_SECONDS=1200 cargo test --release --test
//!   fuzz_wasmtime random -- --nocapture`).
//! - `CRANEWASM_FUZZ_SEED=N`: run only seed N (to replay a failure).
//! - `CRANEWASM_FUZZ_FIXED=N`: only the first N fixed seeds.
//!
//! Modules that once diverged are kept in `tests/regressions/wasm3/` and
//! run on every engine configuration.

// Each fuzzer uses one oracle and its generator profile of the shared code.
#[allow(dead_code)]
mod differential;

use std::time::{Duration, Instant};

use differential::generate::{self, Features};
use differential::oracle_wasmtime::Wasmtime;
use differential::{env_u64, on_big_stack, run_seed_with, Stats};

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..5_000;

/// Default time for random seeds: with the fixed seeds on the other core,
/// the file takes about a minute on two cores.
const RANDOM_SECONDS: u64 = 40;

/// Even seeds without typed references, odd ones with them (see
/// `Features::Wasm3FuncRefs`).
fn features(seed: u64) -> Features {
    if seed % 2 == 0 {
        Features::Wasm3
    } else {
        Features::Wasm3FuncRefs
    }
}

fn run_seed(seed: u64, stats: &mut Stats) -> Result<(), String> {
    run_seed_with::<Wasmtime>(features(seed), seed, stats)
}

fn run(seeds: impl Iterator<Item = u64>, deadline: Option<Instant>) -> Stats {
    differential::run_seeds(seeds, deadline, run_seed)
}

/// How many modules use each 3.0 feature.
#[derive(Default, Debug)]
struct Census {
    exceptions: u64,
    memory64: u64,
    func_refs: u64,
}

impl Census {
    fn add(&mut self, wasm: &[u8]) {
        use wasmparser::{Operator as O, Payload, ValType};
        let (mut exn, mut mem64, mut refs) = (false, false, false);
        let typed = |t: &ValType| matches!(t, ValType::Ref(r) if !r.is_nullable() || r.is_concrete_type_ref());
        for payload in wasmparser::Parser::new(0).parse_all(wasm).flatten() {
            match payload {
                Payload::TagSection(s) => exn |= s.count() > 0,
                Payload::MemorySection(s) => mem64 |= s.into_iter().flatten().any(|m| m.memory64),
                Payload::TableSection(s) => mem64 |= s.into_iter().flatten().any(|t| t.ty.table64),
                Payload::TypeSection(s) => {
                    for ty in s.into_iter_err_on_gc_types().flatten() {
                        refs |= ty.params().iter().chain(ty.results()).any(typed);
                    }
                }
                Payload::CodeSectionEntry(body) => {
                    let mut ops = body.get_operators_reader().expect("generated code reads");
                    while let Ok(op) = ops.read() {
                        match op {
                            O::TryTable { .. } | O::Throw { .. } | O::ThrowRef => exn = true,
                            O::CallRef { .. }
                            | O::ReturnCallRef { .. }
                            | O::RefAsNonNull
                            | O::BrOnNull { .. }
                            | O::BrOnNonNull { .. } => refs = true,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        self.exceptions += exn as u64;
        self.memory64 += mem64 as u64;
        self.func_refs += refs as u64;
    }
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
    let stats = on_big_stack(move || run(seeds.clone(), None));
    assert_eq!(stats.modules, count);
    // The generator must keep producing modules that run and use what this
    // file is about: a configuration change that made most modules fail to
    // instantiate, or left a feature out, would hollow the test out.
    let mut census = Census::default();
    for seed in FIXED_SEEDS.start..FIXED_SEEDS.start + count {
        census.add(&generate::module_with(features(seed), seed));
    }
    eprintln!("modules using each feature: {census:?}");
    // The generator must keep producing modules that run and use what this
    // file is about: a configuration change that made most modules fail to
    // instantiate, or left a feature out, would hollow the test out.
    assert!(stats.instantiated * 2 > stats.modules, "{stats:?}");
    assert!(stats.calls > stats.modules, "{stats:?}");
    assert!(stats.oracle_rejected * 20 < stats.modules, "{stats:?}");
    assert!(stats.exceptions * 500 > stats.calls, "too few uncaught exceptions: {stats:?}");
    assert!(stats.skipped_calls * 4 < stats.calls, "{stats:?}");
    // Typed references are in fewer (see `generate::Features`).
    for (used, share) in [(census.exceptions, 2), (census.memory64, 5), (census.func_refs, 20)] {
        assert!(used * share > count, "a feature is in too few modules: {census:?}");
    }
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
    assert!(
        stats.both_exhausted * 1000 <= stats.modules,
        "too many modules ended in mutual stack exhaustion: {stats:?}"
    );
}

#[test]
fn regressions() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/wasm3");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/regressions/wasm3 exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wasm" || e == "wat"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no regression modules in {}", dir.display());
    on_big_stack(move || {
        let mut stats = Stats::default();
        for file in &files {
            let wasm = wat::parse_file(file).unwrap();
            // Every engine configuration twice, so that the second run of
            // each reuses what the first left in the engine's pools.
            for seed in 0..8 {
                if let Err(e) = differential::compare_with::<Wasmtime>(&wasm, seed, &mut stats) {
                    panic!("{}: {e}", file.display());
                }
            }
        }
        eprintln!("regressions: {stats:?}");
    });
}
