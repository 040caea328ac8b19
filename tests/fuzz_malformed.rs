//! Malformed-input fuzzing of `Module::new` and `Module::validate`: random
//! bytes and mutations of real modules (wasm-smith's, with every proposal
//! including ones cranewasm lacks, and every module of the spec suite).
//! The 3.0 exception and function-reference modules, few among the
//! suite's, also get mutations of their own, spliced with each other.
//!
//! For every input: no panic; `validate` and `new` agree; a rejection is
//! `Error::Invalid` at an offset within the input (or `Unsupported`,
//! which then says at what offset);
//! each input finishes within a time
//! bound (a watchdog fails the test on a hang); and across the run, heap
//! bytes and memory mappings stay flat (a counting allocator and
//! `/proc/self/maps`), so rejected and dropped modules leak nothing.
//!
//! `CRANEWASM_FUZZ_SECONDS=N` spends N seconds on random seeds instead of
//! the default few; the fixed seeds always run. A failure prints its seed
//! and saves the input under `target/fuzz-failures/`.

#[path = "support/malformed_inputs.rs"]
mod inputs;
mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cranewasm::*;
use inputs::{inputs_of, mutate, mutate_wasm3_code, spec_modules, wasm3_modules, Rng};
use support::{alloc_counter, mappings};

/// Longest one input may take (compiling the largest wasm-smith modules
/// unoptimised under load takes well under a second).
const PER_INPUT: Duration = Duration::from_secs(20);

#[derive(Default, Debug)]
struct Counts {
    inputs: u64,
    accepted: u64,
    rejected: u64,
    /// Of the rejected, those refused as `Unsupported` (valid, but using
    /// something the runtime does not compile).
    unsupported: u64,
}

/// What became of an input that broke no rule.
enum Verdict {
    Accepted,
    Invalid,
    Unsupported,
}

/// What checking one input found wrong, if anything.
fn check(engines: &[Engine], bytes: &[u8]) -> Result<Verdict, String> {
    let mut verdict = None;
    let mut unsupported = false;
    for engine in engines {
        let outcome = catch_unwind(AssertUnwindSafe(|| (Module::validate(engine, bytes), Module::new(engine, bytes))));
        let (validated, compiled) = outcome.map_err(|_| "panicked".to_string())?;
        if validated.is_ok() != compiled.is_ok() {
            return Err(format!(
                "validate says {:?} but new says {:?}",
                validated.err(),
                compiled.err().map(|e| e.to_string())
            ));
        }
        match &compiled {
            Ok(_) => {}
            // Invalid carries the validator's offset, which lies in the input.
            Err(Error::Invalid { offset, .. }) if *offset <= bytes.len() => {}
            Err(e @ Error::Invalid { .. }) => return Err(format!("refused at an offset past the input: {e}")),
            Err(Error::Unsupported(m)) if m.contains("(at offset ") => unsupported = true,
            Err(e @ Error::Unsupported(_)) => return Err(format!("refused without an offset: {e}")),
            Err(e) => return Err(format!("rejected with an unexpected kind of error: {e:?}")),
        }
        if *verdict.get_or_insert(compiled.is_ok()) != compiled.is_ok() {
            return Err("engines with different code generation settings disagree".into());
        }
    }
    Ok(match verdict.unwrap() {
        true => Verdict::Accepted,
        false if unsupported => Verdict::Unsupported,
        false => Verdict::Invalid,
    })
}

/// Runs `inputs` through `check` on a worker thread under a watchdog.
fn run(name: &str, inputs: impl Iterator<Item = (u64, Vec<u8>)> + Send + 'static, counts: &mut Counts) {
    let (to_worker, work) = mpsc::sync_channel::<(u64, Vec<u8>)>(1);
    let (to_main, results) = mpsc::channel::<(u64, Result<Verdict, String>, Vec<u8>)>();
    let worker = std::thread::spawn(move || {
        let mut config = Config::new();
        config.parallel_compilation(false);
        let guard = Engine::new(&config).unwrap();
        config.bounds_checks(BoundsChecks::Explicit).cranelift_optimize(false);
        let explicit = Engine::new(&config).unwrap();
        let engines = [guard, explicit];
        for (seed, bytes) in work {
            let r = alloc_counter::counting(|| check(&engines, &bytes));
            if to_main.send((seed, r, bytes)).is_err() {
                return;
            }
        }
    });
    let mut failures = Vec::new();
    for (seed, bytes) in inputs {
        to_worker.send((seed, bytes)).unwrap();
        let started = Instant::now();
        let (seed, result, bytes) = results
            .recv_timeout(PER_INPUT)
            .unwrap_or_else(|_| panic!("{name}: seed {seed} took over {PER_INPUT:?} ({:?} so far)", started.elapsed()));
        counts.inputs += 1;
        match result {
            Ok(Verdict::Accepted) => counts.accepted += 1,
            Ok(Verdict::Invalid) => counts.rejected += 1,
            Ok(Verdict::Unsupported) => {
                counts.rejected += 1;
                counts.unsupported += 1;
            }
            Err(e) => {
                let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
                let _ = std::fs::create_dir_all(&dir);
                let path = dir.join(format!("{name}-{seed}.wasm"));
                let _ = std::fs::write(&path, &bytes);
                eprintln!("FAILED {name} seed {seed}: {e} (input saved to {})", path.display());
                failures.push(format!("seed {seed}: {e}"));
            }
        }
    }
    drop(to_worker);
    worker.join().unwrap();
    assert!(failures.is_empty(), "{name}: {} failures:\n{}", failures.len(), failures.join("\n"));
}

fn env_seconds() -> Option<u64> {
    std::env::var("CRANEWASM_FUZZ_SECONDS").ok().map(|s| s.parse().expect("CRANEWASM_FUZZ_SECONDS is a number"))
}

/// Held by each test of this file for its whole run: the heap count is
/// thrown off when another thread allocates or frees in shared structures
/// (the signature interner, say) meanwhile.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..1500;

/// Mutations of each 3.0 exception and function-reference module per run
/// (92 modules of the 5,400 `spec_modules` gives: seeds drawing from all
/// of them would rarely pick one).
const WASM3_MUTATIONS: u64 = 16;

/// The fixed mutations of the 3.0 exception and function-reference
/// modules: half of them the general ones, spliced with pieces of each
/// other (their instructions); half one byte turned into a 3.0 opcode or
/// type code, which more often leaves a module that decodes.
fn wasm3_inputs(modules: Vec<Vec<u8>>) -> impl Iterator<Item = (u64, Vec<u8>)> {
    (0..modules.len() as u64 * WASM3_MUTATIONS)
        .map(move |seed| (seed, wasm3_input(seed, &modules[(seed / WASM3_MUTATIONS) as usize], &modules)))
}

/// The mutation of `module` (one of `modules`) that `seed` picks.
fn wasm3_input(seed: u64, module: &[u8], modules: &[Vec<u8>]) -> Vec<u8> {
    let mut rng = Rng::new(seed | 1 << 50);
    let mut bytes = module.to_vec();
    if seed % 2 == 0 {
        mutate(&mut rng, &mut bytes, modules);
    } else {
        mutate_wasm3_code(&mut rng, &mut bytes);
    }
    bytes
}

#[test]
fn fixed_seeds_never_crash_hang_or_leak() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let spec = spec_modules();
    assert!(spec.len() > 1000, "only {} spec modules found", spec.len());
    let mut counts = Counts::default();
    // Every spec module once as it is.
    let unmutated: Vec<_> = spec.iter().cloned().enumerate().map(|(i, m)| (i as u64, m)).collect();
    run("spec", unmutated.into_iter(), &mut counts);
    let fixed = move |spec: Vec<Vec<u8>>| FIXED_SEEDS.flat_map(move |s| inputs_of(s, &spec));
    let wasm3 = wasm3_modules();
    let mut counts3 = Counts::default();
    let heap_before = alloc_counter::live_bytes();
    run("mutated", fixed(spec.clone()), &mut counts);
    run("mutated 3.0", wasm3_inputs(wasm3.clone()), &mut counts3);
    let first_pass = alloc_counter::live_bytes() - heap_before;
    // The same inputs again: everything a first sight may keep for good
    // (interned signatures, per-thread state, caches) is in place, so any
    // growth now is a leak.
    let heap_before = alloc_counter::live_bytes();
    let maps_before = mappings();
    run("mutated again", fixed(spec), &mut counts);
    run("mutated 3.0 again", wasm3_inputs(wasm3.clone()), &mut counts3);
    let heap_growth = alloc_counter::live_bytes() - heap_before;
    let maps_growth = mappings() as i64 - maps_before as i64;
    eprintln!(
        "malformed: {counts:?}; of the 3.0 exception and function-reference modules ({} of them): {counts3:?}; heap kept by the first pass {first_pass} bytes (interned signatures), \
         by the second {heap_growth} bytes; mappings {maps_growth:+}",
        wasm3.len()
    );
    assert!(counts.rejected > counts.inputs / 4 && counts.accepted > counts.inputs / 20, "{counts:?}");
    // Most mutations of small modules break them; enough stay valid that
    // the compiler sees the 3.0 instructions too.
    assert!(counts3.rejected > counts3.inputs / 4 && counts3.accepted > counts3.inputs / 20, "{counts3:?}");
    assert!(heap_growth <= 0, "heap grew by {heap_growth} bytes re-running inputs already seen");
    assert!(maps_growth <= 0, "{maps_growth} more memory mappings after the run");
}

#[test]
fn random_seeds() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let seconds = env_seconds().unwrap_or(15);
    let first = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1 << 40;
    eprintln!("malformed: random seeds from {first} for {seconds} s");
    let spec = spec_modules();
    let wasm3 = wasm3_modules();
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let inputs = (first..).take_while(move |_| Instant::now() < deadline).flat_map(move |s| {
        let mut inputs = inputs_of(s, &spec);
        inputs.push((s, wasm3_input(s, &wasm3[(s % wasm3.len() as u64) as usize], &wasm3)));
        inputs
    });
    let mut counts = Counts::default();
    run("random", inputs, &mut counts);
    eprintln!("malformed (random): {counts:?}");
}
