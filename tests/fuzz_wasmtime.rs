//! Differential fuzzing of the WebAssembly 3.0 features against wasmtime
//! (see `differential/mod.rs` for what is compared, and
//! `differential/oracle_wasmtime.rs` for the oracle): wasm-smith modules
//! with exceptions (`try_table`, `throw`, `throw_ref`, exnref), 64-bit
//! memories and tables, wide arithmetic, custom page sizes, typed function
//! references on some seeds and GC on others, on top of the 2.0 features.
//! Modules cranewasm refuses for want of a GC heap (struct and array
//! operators, issue 40) are counted, not compared.
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

// wasmtime is a dev-dependency on x86-64 only (see Cargo.toml).
#![cfg(target_arch = "x86_64")]

// Each fuzzer uses one oracle and its generator profile of the shared code.
#[allow(dead_code)]
mod differential;

use differential::generate::{self, Features};
use differential::oracle_wasmtime::Wasmtime;
use differential::runs;
use differential::{run_seed_with, Stats};

/// Seeds every run covers.
const FIXED_SEEDS: std::ops::Range<u64> = 0..5_000;

/// Default time for random seeds: with the fixed seeds on the other core,
/// the file takes about a minute on two cores.
const RANDOM_SECONDS: u64 = 40;

/// Every third seed with GC, alternately all of it and all but struct and
/// array operators; of the others, even seeds without typed references,
/// odd ones with them (see `generate::Features`).
fn features(seed: u64) -> Features {
    match (seed % 3, seed % 2) {
        (2, 0) => Features::Wasm3Gc,
        (2, _) => Features::Wasm3GcNoHeap,
        (_, 0) => Features::Wasm3,
        _ => Features::Wasm3FuncRefs,
    }
}

fn run_seed(seed: u64, stats: &mut Stats) -> Result<(), String> {
    run_seed_with::<Wasmtime>(features(seed), seed, stats)
}

/// How many modules use each 3.0 feature.
#[derive(Default, Debug)]
struct Census {
    exceptions: u64,
    memory64: u64,
    func_refs: u64,
    /// Modules with a GC type (struct, array, subtyping, a recursion group
    /// of more than one type) or operator.
    gc: u64,
    /// Modules with a cast (`ref.test`, `ref.cast`, `br_on_cast[_fail]`).
    casts: u64,
    /// Modules with an i31 operator or `ref.eq`.
    i31_or_eq: u64,
    /// Modules with a struct or array operator (refused until the heap).
    heap: u64,
}

impl Census {
    fn add(&mut self, wasm: &[u8]) {
        use wasmparser::{Operator as O, Payload, ValType};
        let (mut exn, mut mem64, mut refs) = (false, false, false);
        let (mut gc, mut casts, mut i31) = (false, false, false);
        let typed = |t: &ValType| matches!(t, ValType::Ref(r) if !r.is_nullable() || r.is_concrete_type_ref());
        for payload in wasmparser::Parser::new(0).parse_all(wasm).flatten() {
            match payload {
                Payload::TagSection(s) => exn |= s.count() > 0,
                Payload::MemorySection(s) => mem64 |= s.into_iter().flatten().any(|m| m.memory64),
                Payload::TableSection(s) => mem64 |= s.into_iter().flatten().any(|t| t.ty.table64),
                Payload::TypeSection(s) => {
                    for group in s.into_iter().flatten() {
                        gc |= group.is_explicit_rec_group();
                        for sub in group.into_types() {
                            gc |= !sub.is_final || !sub.supertype_idxs.is_empty();
                            match &sub.composite_type.inner {
                                wasmparser::CompositeInnerType::Func(ty) => {
                                    refs |= ty.params().iter().chain(ty.results()).any(typed)
                                }
                                _ => gc = true,
                            }
                        }
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
                            O::RefTestNonNull { .. }
                            | O::RefTestNullable { .. }
                            | O::RefCastNonNull { .. }
                            | O::RefCastNullable { .. }
                            | O::BrOnCast { .. }
                            | O::BrOnCastFail { .. } => casts = true,
                            O::RefI31 | O::I31GetS | O::I31GetU | O::RefEq => i31 = true,
                            O::AnyConvertExtern | O::ExternConvertAny => gc = true,
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
        self.gc += (gc || casts || i31) as u64;
        self.casts += casts as u64;
        self.i31_or_eq += i31 as u64;
        self.heap += generate::needs_gc_heap(wasm) as u64;
    }
}

#[test]
fn fixed_seeds() {
    let Some((seeds, stats)) = runs::fixed_seeds(FIXED_SEEDS, run_seed) else { return };
    // Beyond the checks every fuzzer makes: the modules must use what this
    // file is about, and raise exceptions; a configuration change that left
    // a feature out would hollow the test out.
    let mut census = Census::default();
    for seed in seeds.clone() {
        census.add(&generate::module_with(features(seed), seed));
    }
    eprintln!("modules using each feature: {census:?}");
    let count = seeds.end - seeds.start;
    // Typed references are in fewer (see `generate::Features`).
    // A third of the seeds are GC ones (see `features`).
    let gc = [(census.gc, 4), (census.casts, 10), (census.i31_or_eq, 10), (census.heap, 10)];
    for (used, share) in [(census.exceptions, 2), (census.memory64, 5), (census.func_refs, 20)].into_iter().chain(gc) {
        assert!(used * share > count, "a feature is in too few modules: {census:?}");
    }
    assert!(stats.exceptions * 500 > stats.calls, "too few uncaught exceptions: {stats:?}");
    assert!(stats.skipped_calls * 4 < stats.calls, "{stats:?}");
    // What the GC heap (issue 40 stage 2) is needed for, and nothing else:
    // fewer than the modules with struct or array operators.
    assert!(stats.refused_needs_gc_heap <= census.heap, "{stats:?} {census:?}");
    // Heap limits differ, but rarely matter to modules this small.
    assert!(stats.one_out_of_memory * 100 < stats.modules, "{stats:?}");
}

#[test]
fn random_seeds() {
    runs::random_seeds(RANDOM_SECONDS, run_seed);
}

#[test]
fn regressions() {
    // Every engine configuration twice, so that the second run of each
    // reuses what the first left in the engine's pools.
    runs::regressions::<Wasmtime>("regressions/wasm3", 0..8);
}
