//! Differential fuzzing: a module runs in cranewasm and in an oracle
//! (wasmi for 2.0 features, `oracle.rs`; wasmtime for 3.0 ones,
//! `oracle_wasmtime.rs`) with the same imports and arguments, and
//! everything observable must agree.
//!
//! Rules of comparison (see `model.rs` for the value and trap mappings):
//! - Both runtimes must accept every generated module.
//! - Instantiation, then every call, must end the same way: the same
//!   results, or traps of the same kind, or the same uncaught exception
//!   (tag and payload), or both a non-trap error.
//! - After every step, exported globals, memories (every byte) and tables
//!   (element null-ness, externref contents), the host entities made for
//!   imports, and the log of host-function calls must be equal.
//! - Stack exhaustion: fuel bounds recursion far below both runtimes'
//!   limits, so neither should run out of stack. If both do, the module is
//!   done (they stop at different depths, so state after it legitimately
//!   differs); if only one does, that is a divergence.
//! - GC heap exhaustion: heap limits differ, so a runtime out of GC heap
//!   where the other allocates ends the module (counted), not the run.
//! - Not compared, only counted: modules cranewasm refuses for want of a
//!   GC heap (`Error::Unsupported`, issue 40), and modules importing a
//!   function of a type cranewasm's API cannot give a host function.

pub mod generate;
pub mod model;
pub mod oracle;
// wasmtime is a dev-dependency on x86-64 only (see Cargo.toml).
#[cfg(target_arch = "x86_64")]
pub mod oracle_wasmtime;
pub mod runs;
pub mod subject;
pub mod without_gc;
pub mod without_heap;

use model::{Outcome, Runtime, Ty};
use oracle::Oracle;
use subject::Subject;

/// Counters over a run.
#[derive(Default, Debug, Clone, Copy)]
pub struct Stats {
    pub modules: u64,
    pub instantiated: u64,
    pub calls: u64,
    pub traps: u64,
    /// Calls that ended in an uncaught exception (in both runtimes).
    pub exceptions: u64,
    /// Calls not made: the export takes a non-nullable reference, which
    /// the harness cannot make.
    pub skipped_calls: u64,
    /// Modules ended early because both runtimes exhausted their stacks.
    pub both_exhausted: u64,
    /// Modules the oracle refused (an oracle limitation, not ours; listed
    /// so a silent rise would show).
    pub oracle_rejected: u64,
    /// Modules cranewasm refuses as `Error::Unsupported` for want of a GC
    /// heap (struct and array operators, issue 40 stage 2); none once the
    /// heap is in.
    pub refused_needs_gc_heap: u64,
    /// Modules not run: they import a function of a type that is not
    /// plain, which cranewasm's API cannot give a host function (see
    /// `model::host_funcs_makeable`).
    pub unmakeable_imports: u64,
    /// Modules ended early because one runtime ran out of GC heap where
    /// the other did not: their heap limits differ (an allocation may fail
    /// in either, as the spec allows), so neither is wrong, and later
    /// state legitimately differs.
    pub one_out_of_memory: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.modules += o.modules;
        self.instantiated += o.instantiated;
        self.calls += o.calls;
        self.traps += o.traps;
        self.exceptions += o.exceptions;
        self.skipped_calls += o.skipped_calls;
        self.both_exhausted += o.both_exhausted;
        self.oracle_rejected += o.oracle_rejected;
        self.refused_needs_gc_heap += o.refused_needs_gc_heap;
        self.unmakeable_imports += o.unmakeable_imports;
        self.one_out_of_memory += o.one_out_of_memory;
    }
}

/// Calls per module at most, over all its exports.
const MAX_CALLS: usize = 60;

/// The start of an oracle's `Outcome::Failed` text for a module it does
/// not compile.
pub const ORACLE_REJECTS: &str = "the oracle rejects the module";

/// The start of cranewasm's `Outcome::Failed` text for a module it
/// refuses with `Error::Unsupported` because it needs the GC heap.
pub const NEEDS_GC_HEAP: &str = "refused: needs the GC heap";

/// Runs `wasm` in cranewasm and wasmi (see `compare_with`).
pub fn compare(wasm: &[u8], seed: u64, stats: &mut Stats) -> Result<(), String> {
    compare_with::<Oracle>(wasm, seed, stats)
}

/// Runs `wasm` in cranewasm and in the oracle `O`; `seed` picks
/// cranewasm's engine settings and the call arguments. `Err` describes the
/// first divergence.
pub fn compare_with<O: Runtime>(wasm: &[u8], seed: u64, stats: &mut Stats) -> Result<(), String> {
    let oracle = O::NAME;
    stats.modules += 1;
    if !model::host_funcs_makeable(wasm) {
        stats.unmakeable_imports += 1;
        return Ok(());
    }
    let (mut ours, ours_inst) = Subject::instantiate(wasm, seed);
    let (mut theirs, theirs_inst) = O::instantiate(wasm, seed);
    if let Outcome::Failed(why) = &theirs_inst {
        if why.starts_with(ORACLE_REJECTS) {
            stats.oracle_rejected += 1;
            eprintln!("note: seed {seed}: {why}");
            return Ok(());
        }
    }
    if let Outcome::Failed(why) = &ours_inst {
        if why.starts_with(NEEDS_GC_HEAP) {
            stats.refused_needs_gc_heap += 1;
            return Ok(());
        }
    }
    let engine = subject::engine_name(seed);
    if ours_inst.is_out_of_memory() != theirs_inst.is_out_of_memory() {
        stats.one_out_of_memory += 1;
        return Ok(());
    }
    if !ours_inst.agrees(&theirs_inst) {
        return Err(format!("instantiation ({engine}): cranewasm {ours_inst:?}, {oracle} {theirs_inst:?}"));
    }
    if let Some(d) = ours.snapshot().difference(&theirs.snapshot()) {
        return Err(format!("after instantiation ({engine}, {ours_inst:?}): cranewasm vs {oracle}: {d}"));
    }
    if ours_inst != Outcome::Returned(Vec::new()) {
        return Ok(());
    }
    stats.instantiated += 1;
    let funcs = ours.exported_funcs();
    if funcs != theirs.exported_funcs() {
        return Err(format!("exports differ: {funcs:?} vs {:?}", theirs.exported_funcs()));
    }
    let mut rng = generate::Rng::new(seed ^ 0x5eed_a865);
    let calls = funcs.iter().cycle().take(MAX_CALLS.min(funcs.len() * 3));
    for (n, (name, params, _)) in calls.enumerate() {
        if params.contains(&Ty::NonNull) {
            stats.skipped_calls += 1;
            continue;
        }
        let args: Vec<_> = params.iter().map(|t| generate::arg(&mut rng, *t)).collect();
        ours.set_global_i32(generate::FUEL_EXPORT, generate::FUEL);
        theirs.set_global_i32(generate::FUEL_EXPORT, generate::FUEL);
        let a = ours.call(name, &args);
        let b = theirs.call(name, &args);
        stats.calls += 1;
        let what = || format!("call {n} of export {name:?} ({engine}) with {args:?}");
        if a.is_stack_overflow() && b.is_stack_overflow() {
            stats.both_exhausted += 1;
            // Counted and bounded by the tests: the module's later calls go
            // uncompared, so many of these would hollow the run out.
            eprintln!("note: seed {seed}: {}: both exhausted their stacks; later calls not compared", what());
            return Ok(());
        }
        if a.is_out_of_memory() != b.is_out_of_memory() {
            stats.one_out_of_memory += 1;
            return Ok(());
        }
        if !a.agrees(&b) {
            return Err(format!("{}: cranewasm {a:?}, {oracle} {b:?}", what()));
        }
        match a {
            Outcome::Trapped(_) => stats.traps += 1,
            Outcome::Exception { .. } => stats.exceptions += 1,
            _ => {}
        }
        if let Some(d) = ours.snapshot().difference(&theirs.snapshot()) {
            return Err(format!("after {} ({a:?}): cranewasm vs {oracle}: {d}", what()));
        }
    }
    Ok(())
}

/// Generates the module of `seed` and compares it; a divergence or a panic
/// (of either runtime or of the harness) saves the module under
/// `target/fuzz-failures/` and fails with the seed in the message.
pub fn run_seed(seed: u64, stats: &mut Stats) -> Result<(), String> {
    run_seed_with::<Oracle>(generate::Features::Wasm2, seed, stats)
}

/// `run_seed` for a generator profile and an oracle.
pub fn run_seed_with<O: Runtime>(features: generate::Features, seed: u64, stats: &mut Stats) -> Result<(), String> {
    let wasm = std::panic::catch_unwind(|| generate::module_with(features, seed))
        .map_err(|_| format!("seed {seed}: generation panicked"))?;
    let mut local = Stats::default();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| compare_with::<O>(&wasm, seed, &mut local)));
    *stats += local;
    let error = match result {
        Ok(Ok(())) => return Ok(()),
        Ok(Err(divergence)) => divergence,
        Err(panic) => {
            let text = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            format!("panic: {text}")
        }
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("seed-{seed}{}.wasm", features.file_suffix()));
    let _ = std::fs::write(&path, &wasm);
    Err(format!(
        "seed {seed} diverged (module saved to {}; replay with CRANEWASM_FUZZ_SEED={seed}): {error}",
        path.display()
    ))
}

/// Runs `body` on a thread with a large stack: the budget `MAX_WASM_STACK`
/// gives wasm needs the thread's stack to hold it.
pub fn on_big_stack<R: Send + 'static>(body: impl FnOnce() -> R + Send + 'static) -> R {
    std::thread::Builder::new()
        .stack_size(subject::MAX_WASM_STACK * 2)
        .spawn(body)
        .expect("spawn")
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
}
