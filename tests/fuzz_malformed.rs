//! Malformed-input fuzzing of `Module::new` and `Module::validate`: random
//! bytes and mutations of real modules (wasm-smith's, with every proposal
//! including ones cranewasm lacks, and every module of the spec suite).
//!
//! For every input: no panic; `validate` and `new` agree; a rejection is
//! `Error::Invalid` (or `Unsupported`); each input finishes within a time
//! bound (a watchdog fails the test on a hang); and across the run, heap
//! bytes and memory mappings stay flat (a counting allocator and
//! `/proc/self/maps`), so rejected and dropped modules leak nothing.
//!
//! `CRANEWASM_FUZZ_SECONDS=N` spends N seconds on random seeds instead of
//! the default few; the fixed seeds always run. A failure prints its seed
//! and saves the input under `target/fuzz-failures/`.

mod support;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use cranewasm::*;
use support::{alloc_counter, mappings};

/// Longest one input may take (compiling the largest wasm-smith modules
/// unoptimised under load takes well under a second).
const PER_INPUT: Duration = Duration::from_secs(20);

struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x2545_f491_4f6c_dd1d | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Every module the spec suite encodes as binary (valid, invalid and
/// malformed ones alike), in a fixed order.
fn spec_modules() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/core");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("spec suite at {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wast"))
        .collect();
    files.sort();
    let mut modules = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let Ok(buf) = wast::parser::ParseBuffer::new(&text) else { continue };
        let Ok(wast) = wast::parser::parse::<wast::Wast>(&buf) else { continue };
        for directive in wast.directives {
            use wast::WastDirective as D;
            let module = match directive {
                D::Module(m) | D::ModuleDefinition(m) => m,
                D::AssertMalformed { module, .. } | D::AssertInvalid { module, .. } => module,
                _ => continue,
            };
            let mut module = module;
            if let Ok(bytes) = module.encode() {
                modules.push(bytes);
            }
        }
    }
    modules
}

/// A wasm-smith module from every proposal it knows, so unsupported ones
/// get rejected cleanly too.
fn smith_module(seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let bytes: Vec<u8> = (0..500 + rng.below(8000)).map(|_| rng.next() as u8).collect();
    let mut u = arbitrary::Unstructured::new(&bytes);
    let mut config: wasm_smith::Config = u.arbitrary().unwrap_or_default();
    config.max_memory32_bytes = config.max_memory32_bytes.min(1 << 24);
    config.max_memory64_bytes = config.max_memory64_bytes.min(1 << 24);
    config.max_funcs = config.max_funcs.min(20);
    config.max_instructions = config.max_instructions.min(200);
    config.generate_custom_sections = rng.below(2) == 0;
    wasm_smith::Module::new(config, &mut u).map(|m| m.to_bytes()).unwrap_or_default()
}

/// Bytes that often matter to a decoder: LEB continuation bits, limits,
/// section ids, type codes, `end`.
const INTERESTING: [u8; 12] = [0x00, 0x01, 0x0b, 0x40, 0x60, 0x70, 0x7f, 0x80, 0xff, 0xfe, 0x0c, 0x41];

/// Applies one to four mutations, some structure-aware.
fn mutate(rng: &mut Rng, bytes: &mut Vec<u8>, donors: &[Vec<u8>]) {
    for _ in 0..1 + rng.below(4) {
        let len = bytes.len();
        let at = rng.below(len);
        match rng.below(9) {
            0 if len > 0 => bytes[at] ^= 1 << rng.below(8),
            1 if len > 0 => bytes[at] = rng.next() as u8,
            2 if len > 0 => bytes[at] = INTERESTING[rng.below(INTERESTING.len())],
            3 => {
                let n = 1 + rng.below(8);
                let insert: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                bytes.splice(at..at, insert);
            }
            4 if len > 0 => {
                let end = (at + 1 + rng.below(16)).min(len);
                bytes.drain(at..end);
            }
            5 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                let copy = bytes[at..end].to_vec();
                let to = rng.below(len);
                bytes.splice(to..to, copy);
            }
            6 => {
                // Splice in a piece of another module.
                let donor = &donors[rng.below(donors.len())];
                if !donor.is_empty() {
                    let from = rng.below(donor.len());
                    let end = (from + 1 + rng.below(128)).min(donor.len());
                    let cut = (at + rng.below(32)).min(len);
                    bytes.splice(at..cut, donor[from..end].iter().copied());
                }
            }
            7 if len > 0 => {
                // A huge LEB (a count or size claiming billions).
                let end = (at + 1).min(len);
                bytes.splice(at..end, [0xff, 0xff, 0xff, 0xff, 0x0f]);
            }
            _ => bytes.truncate(at),
        }
    }
}

/// Random bytes after a valid header: section ids and sizes out of thin air.
fn random_module(rng: &mut Rng) -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    for _ in 0..rng.below(6) {
        bytes.push(rng.below(14) as u8);
        let size = rng.below(40);
        bytes.push(size as u8);
        bytes.extend((0..size).map(|_| rng.next() as u8));
    }
    bytes
}

#[derive(Default, Debug)]
struct Counts {
    inputs: u64,
    accepted: u64,
    rejected: u64,
}

/// What checking one input found wrong, if anything.
fn check(engines: &[Engine], bytes: &[u8]) -> Result<bool, String> {
    let mut verdict = None;
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
        if let Err(e) = &compiled {
            if !matches!(e, Error::Invalid { .. } | Error::Unsupported(_)) {
                return Err(format!("rejected with an unexpected kind of error: {e:?}"));
            }
        }
        if *verdict.get_or_insert(compiled.is_ok()) != compiled.is_ok() {
            return Err("engines with different code generation settings disagree".into());
        }
    }
    Ok(verdict.unwrap())
}

/// Runs `inputs` through `check` on a worker thread under a watchdog.
fn run(name: &str, inputs: impl Iterator<Item = (u64, Vec<u8>)> + Send + 'static, counts: &mut Counts) {
    let (to_worker, work) = mpsc::sync_channel::<(u64, Vec<u8>)>(1);
    let (to_main, results) = mpsc::channel::<(u64, Result<bool, String>, Vec<u8>)>();
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
            Ok(true) => counts.accepted += 1,
            Ok(false) => counts.rejected += 1,
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

/// Inputs of one seed: a mutated spec module, a mutated wasm-smith module,
/// an unmutated wasm-smith module (exercising unsupported proposals), and
/// random sections.
fn inputs_of(seed: u64, spec: &[Vec<u8>]) -> Vec<(u64, Vec<u8>)> {
    let mut rng = Rng::new(seed);
    let mut from_spec = spec[rng.below(spec.len())].clone();
    mutate(&mut rng, &mut from_spec, spec);
    let smith = smith_module(seed);
    let mut from_smith = smith.clone();
    mutate(&mut rng, &mut from_smith, spec);
    vec![(seed, from_spec), (seed, from_smith), (seed, smith), (seed, random_module(&mut rng))]
}

/// Held by each test of this file for its whole run: the heap count is
/// thrown off when another thread allocates or frees in shared structures
/// (the signature interner, say) meanwhile.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..1500;

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
    let heap_before = alloc_counter::live_bytes();
    run("mutated", fixed(spec.clone()), &mut counts);
    let first_pass = alloc_counter::live_bytes() - heap_before;
    // The same inputs again: everything a first sight may keep for good
    // (interned signatures, per-thread state, caches) is in place, so any
    // growth now is a leak.
    let heap_before = alloc_counter::live_bytes();
    let maps_before = mappings();
    run("mutated again", fixed(spec), &mut counts);
    let heap_growth = alloc_counter::live_bytes() - heap_before;
    let maps_growth = mappings() as i64 - maps_before as i64;
    eprintln!(
        "malformed: {counts:?}; heap kept by the first pass {first_pass} bytes (interned signatures), \
         by the second {heap_growth} bytes; mappings {maps_growth:+}"
    );
    assert!(counts.rejected > counts.inputs / 4 && counts.accepted > counts.inputs / 20, "{counts:?}");
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
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let inputs = (first..).take_while(move |_| Instant::now() < deadline).flat_map(move |s| inputs_of(s, &spec));
    let mut counts = Counts::default();
    run("random", inputs, &mut counts);
    eprintln!("malformed (random): {counts:?}");
}
