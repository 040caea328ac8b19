//! Engine-wide settings: which proposals are on, and how code is generated.

use super::config_memory64::WideProposals;

/// How linear-memory accesses are kept in bounds.
///
/// The default comes from the environment, so that programs whose
/// configuration cannot be changed (C and Python clients) can choose too:
/// [`BOUNDS_CHECKS_ENV`] set to `explicit` or `guard-pages`; unset, explicit
/// checks under valgrind and guard pages otherwise. [`Config::bounds_checks`]
/// overrides both.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum BoundsChecks {
    /// Reserve the whole 32-bit index space plus a guard region per memory,
    /// so every access lands in mapped memory or faults; no compare in the
    /// generated code. The default on 64-bit hosts.
    ///
    /// An out-of-bounds access is a real access to an inaccessible page, so
    /// valgrind reports it ("Invalid read") before the fault becomes the
    /// trap. `call_indirect` of a null table element likewise faults on
    /// the signature load (at address 24) instead of testing for null.
    GuardPages,
    /// Compare every access against the current length. For hosts short of
    /// address space, and for running under valgrind: an out-of-bounds
    /// access traps before it touches memory, so valgrind reports nothing.
    /// `call_indirect` tests for a null element explicitly too. Memories
    /// still never move once created.
    Explicit,
}

/// The environment variable that chooses the default [`BoundsChecks`]:
/// `explicit` or `guard-pages`. Any other value makes [`Engine::new`]
/// fail with an error naming it.
///
/// [`Engine::new`]: crate::Engine::new
pub const BOUNDS_CHECKS_ENV: &str = "CRANEWASM_BOUNDS_CHECKS";

/// The value environment variable `var` names among `choices`, or
/// `unset()` when it is not set; an error quoting the value and the
/// choices otherwise.
pub(crate) fn from_environment<T: Copy>(
    var: &str,
    choices: &[(&str, T)],
    unset: impl FnOnce() -> T,
) -> Result<T, String> {
    let value = match std::env::var_os(var) {
        None => return Ok(unset()),
        Some(v) => v,
    };
    match choices.iter().find(|(name, _)| value == *name) {
        Some((_, choice)) => Ok(*choice),
        None => {
            let names: Vec<String> = choices.iter().map(|(name, _)| format!("{name:?}")).collect();
            Err(format!("{var}={value:?}: expected {}", names.join(" or ")))
        }
    }
}

impl BoundsChecks {
    /// The mode [`BOUNDS_CHECKS_ENV`] asks for; `None` when it is unset,
    /// which leaves the choice to the engine (explicit checks under
    /// valgrind, guard pages otherwise).
    fn from_environment() -> Result<Option<BoundsChecks>, String> {
        let choices = [("explicit", Some(BoundsChecks::Explicit)), ("guard-pages", Some(BoundsChecks::GuardPages))];
        from_environment(BOUNDS_CHECKS_ENV, &choices, || None)
    }
}

/// Which profiler learns the names and addresses of compiled functions.
///
/// The default comes from [`PROFILER_ENV`]: `perfmap` or `jitdump`; unset,
/// none. [`Config::profiler`] overrides it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Profiler {
    /// No profiler.
    None,
    /// Linux perf's map file: each compiled function's address, size and
    /// name (from the name section, or `wasm-function[N]`) is appended to
    /// `/tmp/perf-<pid>.map`, which `perf report` reads.
    PerfMap,
    /// Linux perf's jitdump format: `jit-<pid>.dump` in the current
    /// directory, with each function's code, for `perf record -k mono`
    /// followed by `perf inject --jit` (annotation of the machine code
    /// included).
    JitDump,
}

/// The environment variable that chooses the default [`Profiler`]:
/// `perfmap` or `jitdump` (or `none`). Any other value makes
/// [`Engine::new`](crate::Engine::new) fail with an error naming it.
pub const PROFILER_ENV: &str = "CRANEWASM_PROFILE";

impl Profiler {
    fn from_environment() -> Result<Profiler, String> {
        let choices = [("perfmap", Profiler::PerfMap), ("jitdump", Profiler::JitDump), ("none", Profiler::None)];
        from_environment(PROFILER_ENV, &choices, || Profiler::None)
    }
}

/// The environment variable that sets the default of
/// [`Config::lazy_compilation`]: `1` (on) or `0` (off). It is how the C API,
/// which has no setting for it, turns lazy compilation on. Any other value
/// makes [`Engine::new`](crate::Engine::new) fail with an error naming it.
pub const LAZY_ENV: &str = "CRANEWASM_LAZY";

/// Which register allocator Cranelift runs: the trade between compile time
/// and code speed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Regalloc {
    /// Better code, slower compilation. The default.
    Backtracking,
    /// Faster compilation, slower code (more spills and moves).
    SinglePass,
}

/// Settings shared by everything created from one [`Engine`](crate::Engine).
#[derive(Clone, Debug)]
pub struct Config {
    pub(crate) simd: bool,
    pub(crate) reference_types: bool,
    pub(crate) relaxed_simd: bool,
    pub(crate) tail_call: bool,
    pub(crate) extended_const: bool,
    pub(crate) multi_memory: bool,
    pub(crate) threads: bool,
    pub(crate) function_references: bool,
    pub(crate) exceptions: bool,
    pub(crate) gc: bool,
    pub(crate) legacy_exceptions: bool,
    /// memory64, custom page sizes, wide arithmetic (`config_memory64`).
    pub(crate) wide: WideProposals,
    pub(crate) bounds_checks: BoundsChecks,
    /// Whether neither [`Config::bounds_checks`] nor [`BOUNDS_CHECKS_ENV`]
    /// chose the mode: the engine then picks explicit checks under
    /// valgrind (see [`BoundsChecks`]).
    pub(crate) bounds_checks_unchosen: bool,
    /// Why [`BOUNDS_CHECKS_ENV`] could not be used, until
    /// [`Config::bounds_checks`] makes it irrelevant; [`Engine::new`]
    /// reports it.
    ///
    /// [`Engine::new`]: crate::Engine::new
    pub(crate) bounds_checks_env_error: Option<String>,
    pub(crate) max_wasm_stack: usize,
    pub(crate) parallel_compilation: bool,
    pub(crate) optimize: bool,
    pub(crate) module_analyses: bool,
    pub(crate) inlining: bool,
    pub(crate) widen_loads: bool,
    pub(crate) loop_passes: bool,
    pub(crate) address_steps: bool,
    pub(crate) mul_consts: bool,
    pub(crate) regalloc: Regalloc,
    pub(crate) memory_pool_capacity: usize,
    pub(crate) epoch_interruption: bool,
    pub(crate) consume_fuel: bool,
    pub(crate) profiler: Profiler,
    /// Why [`PROFILER_ENV`] could not be used, until [`Config::profiler`]
    /// makes it irrelevant; [`Engine::new`](crate::Engine::new) reports it.
    pub(crate) profiler_env_error: Option<String>,
    pub(crate) memory_images: bool,
    pub(crate) lazy_compilation: bool,
    /// Why [`LAZY_ENV`] could not be used, until
    /// [`Config::lazy_compilation`] makes it irrelevant.
    pub(crate) lazy_env_error: Option<String>,
    /// The code cache's directory and size (`config_cache`).
    pub(crate) cache: super::config_cache::CacheSettings,
    /// Tiered lazy compilation (`config_tier`).
    pub(crate) tier: super::config_tier::TierSettings,
    /// The target generated code is for (`config_target`).
    pub(crate) target: super::config_target::TargetSettings,
}

impl Default for Config {
    fn default() -> Config {
        let (chosen, bounds_checks_env_error) = match BoundsChecks::from_environment() {
            Ok(mode) => (mode, None),
            Err(e) => (None, Some(e)),
        };
        let (lazy_compilation, lazy_env_error) =
            match from_environment(LAZY_ENV, &[("1", true), ("0", false)], || false) {
                Ok(on) => (on, None),
                Err(e) => (false, Some(e)),
            };
        let (profiler, profiler_env_error) = match Profiler::from_environment() {
            Ok(p) => (p, None),
            Err(e) => (Profiler::None, Some(e)),
        };
        Config {
            simd: true,
            reference_types: true,
            relaxed_simd: true,
            tail_call: true,
            extended_const: true,
            multi_memory: true,
            threads: true,
            function_references: true,
            exceptions: true,
            gc: true,
            legacy_exceptions: true,
            wide: WideProposals::default(),
            bounds_checks: chosen.unwrap_or(BoundsChecks::GuardPages),
            bounds_checks_unchosen: chosen.is_none(),
            bounds_checks_env_error,
            max_wasm_stack: 1 << 20,
            parallel_compilation: true,
            optimize: true,
            module_analyses: true,
            inlining: true,
            widen_loads: true,
            loop_passes: true,
            address_steps: true,
            mul_consts: true,
            regalloc: Regalloc::Backtracking,
            memory_pool_capacity: 16,
            epoch_interruption: false,
            consume_fuel: false,
            profiler,
            profiler_env_error,
            memory_images: true,
            lazy_compilation,
            lazy_env_error,
            cache: Default::default(),
            tier: Default::default(),
            target: Default::default(),
        }
    }
}

impl Config {
    /// The default configuration: WebAssembly 2.0 plus the tail-call,
    /// extended-const, multi-memory, relaxed-SIMD and threads proposals, 1 MiB of wasm
    /// stack, and guard-page bounds checks unless the environment asks
    /// otherwise (see [`BoundsChecks`]).
    pub fn new() -> Config {
        Config::default()
    }

    /// 128-bit SIMD (part of WebAssembly 2.0).
    pub fn wasm_simd(&mut self, on: bool) -> &mut Config {
        self.simd = on;
        self
    }

    /// The reference-types proposal (part of WebAssembly 2.0): several
    /// tables, `externref`, the table instructions. On by default; off only
    /// for code (or test suites) that must be rejected without it.
    pub fn wasm_reference_types(&mut self, on: bool) -> &mut Config {
        self.reference_types = on;
        self
    }

    /// The relaxed-SIMD proposal.
    pub fn wasm_relaxed_simd(&mut self, on: bool) -> &mut Config {
        self.relaxed_simd = on;
        self
    }

    /// The tail-call proposal (`return_call`, `return_call_indirect`).
    pub fn wasm_tail_call(&mut self, on: bool) -> &mut Config {
        self.tail_call = on;
        self
    }

    /// The extended-constant-expressions proposal.
    pub fn wasm_extended_const(&mut self, on: bool) -> &mut Config {
        self.extended_const = on;
        self
    }

    /// The multi-memory proposal.
    pub fn wasm_multi_memory(&mut self, on: bool) -> &mut Config {
        self.multi_memory = on;
        self
    }

    /// The threads proposal: shared memories, atomic memory accesses,
    /// `memory.atomic.wait`/`notify` and `atomic.fence`.
    pub fn wasm_threads(&mut self, on: bool) -> &mut Config {
        self.threads = on;
        self
    }

    /// Typed function references (WebAssembly 3.0): `(ref $t)` types,
    /// `call_ref`, `return_call_ref`, `ref.as_non_null`, `br_on_null`,
    /// `br_on_non_null`, non-nullable locals and table initialisers.
    pub fn wasm_function_references(&mut self, on: bool) -> &mut Config {
        self.function_references = on;
        self
    }

    /// Garbage collection (WebAssembly 3.0): recursion groups, subtyping,
    /// struct and array types and their objects in a per-store heap (no
    /// collector yet, issue 40). Needs
    /// [`wasm_function_references`](Self::wasm_function_references).
    pub fn wasm_gc(&mut self, on: bool) -> &mut Config {
        self.gc = on;
        self
    }

    /// Exception handling (WebAssembly 3.0): tags, `throw`, `throw_ref`,
    /// `try_table` and `exnref`. A call inside `try_table` costs what a
    /// plain call costs; only a throw pays.
    pub fn wasm_exceptions(&mut self, on: bool) -> &mut Config {
        self.exceptions = on;
        self
    }

    /// The legacy exception instructions (`try`, `catch`, `catch_all`,
    /// `delegate`, `rethrow`), which clang emits by default and WAMR runs.
    /// On by default, as WAMR's build accepts them; they need
    /// [`wasm_exceptions`](Self::wasm_exceptions) too.
    pub fn wasm_legacy_exceptions(&mut self, on: bool) -> &mut Config {
        self.legacy_exceptions = on;
        self
    }

    /// How memory accesses are bounds-checked (see [`BoundsChecks`]); wins
    /// over what the environment chose.
    pub fn bounds_checks(&mut self, mode: BoundsChecks) -> &mut Config {
        self.bounds_checks = mode;
        self.bounds_checks_unchosen = false;
        self.bounds_checks_env_error = None;
        self
    }

    /// The most native stack that wasm frames may use before a call traps
    /// with "call stack exhausted". It is further capped by what is left of
    /// the calling thread's stack.
    pub fn max_wasm_stack(&mut self, bytes: usize) -> &mut Config {
        self.max_wasm_stack = bytes;
        self
    }

    /// The limit [`max_wasm_stack`](Self::max_wasm_stack) set: what an
    /// embedder sizes the threads it runs wasm on by.
    pub fn get_max_wasm_stack(&self) -> usize {
        self.max_wasm_stack
    }

    /// Compile the functions of a module on several threads.
    pub fn parallel_compilation(&mut self, on: bool) -> &mut Config {
        self.parallel_compilation = on;
        self
    }

    /// Run Cranelift's optimiser (on by default).
    pub fn cranelift_optimize(&mut self, on: bool) -> &mut Config {
        self.optimize = on;
        self
    }

    /// Use what the runtime proves about a module before compiling it (on
    /// by default): `call_indirect` through a table nothing can change
    /// skips the checks its segments make needless, and a table index or
    /// heap address whose range is known skips a bounds check or folds into
    /// one addressing mode. Off only to measure what that gains: such
    /// tables stay read-only to the host either way.
    pub fn module_analyses(&mut self, on: bool) -> &mut Config {
        self.module_analyses = on;
        self
    }

    /// Load a 32-, 16- or 8-bit value that is also used zero-extended (as a
    /// heap or table index) at 64 bits, so that the extension costs no
    /// instruction (on by default). Off only to measure what that gains.
    pub fn widen_loads(&mut self, on: bool) -> &mut Config {
        self.widen_loads = on;
        self
    }

    /// A counter that a one-block loop steps by a constant stays in one
    /// register (on by default): Cranelift's optimiser leaves the old and
    /// the stepped value both live up to the loop's branch (a test of the
    /// old value against a constant, or a use after the loop), which costs
    /// a second register and a copy on every iteration; the test is made
    /// on the stepped value and the old one recomputed after the loop.
    /// Off only to measure what that gains.
    pub fn loop_passes(&mut self, on: bool) -> &mut Config {
        self.loop_passes = on;
        self
    }

    /// An address a constant step (below 64 KiB) past one that was just
    /// accessed is formed in 64 bits, so that the step folds into the
    /// access's addressing mode and a loop steps its address with one
    /// 64-bit add (on by default). It relies on memories staying 64 KiB
    /// short of 4 GiB, which they do whatever this switch says (a memory
    /// declared with 65536 pages excepted, and then the module is compiled
    /// without it). Off only to measure what that gains.
    pub fn address_steps(&mut self, on: bool) -> &mut Config {
        self.address_steps = on;
        self
    }

    /// A multiplication by a constant such as 5, 24 or 31 becomes one or
    /// two single-cycle instructions (`lea`, a shift, an add), as native
    /// compilers emit it, instead of a three-cycle `imul` (on by default).
    /// Off only to measure what that gains.
    pub fn mul_consts(&mut self, on: bool) -> &mut Config {
        self.mul_consts = on;
        self
    }

    /// Inline small functions of a module into their callers, and unroll
    /// small self-recursive ones one level (on by default). Traps and
    /// backtraces in inlined code name the inlined function and offset as
    /// they would without inlining; a profiler (see [`Config::profiler`]),
    /// which goes by code ranges, counts inlined code as its caller's.
    pub fn cranelift_inlining(&mut self, on: bool) -> &mut Config {
        self.inlining = on;
        self
    }

    /// Cranelift's register allocator (see [`Regalloc`]).
    pub fn cranelift_regalloc(&mut self, algorithm: Regalloc) -> &mut Config {
        self.regalloc = algorithm;
        self
    }

    /// How many released linear-memory reservations the engine keeps for
    /// reuse by later instances (default 16). Reuse saves the system calls
    /// that map and unmap a reservation; each kept one holds its address
    /// space (8 GiB with guard pages) but no memory. 0 returns every
    /// reservation to the system at once.
    pub fn memory_pool_capacity(&mut self, reservations: usize) -> &mut Config {
        self.memory_pool_capacity = reservations;
        self
    }

    /// Let epoch deadlines stop calls: with it, a call traps with
    /// [`Trap::EpochDeadline`](crate::Trap::EpochDeadline) once
    /// [`Engine::increment_epoch`](crate::Engine::increment_epoch) reaches
    /// its store's deadline ([`Store::set_epoch_deadline`](crate::Store::set_epoch_deadline)).
    /// Nothing is compiled in: the deadline is delivered the way an
    /// [`InterruptHandle`](crate::InterruptHandle) stops a call, so code
    /// runs at full speed and a store with a deadline pays a few atomic
    /// operations per call. Off by default, like wasmtime's switch of the
    /// same name (whose checks are compiled in).
    pub fn epoch_interruption(&mut self, on: bool) -> &mut Config {
        self.epoch_interruption = on;
        self
    }

    /// Count the operators a call executes against the store's fuel
    /// ([`Store::set_fuel`](crate::Store::set_fuel)); running out traps
    /// with [`Trap::OutOfFuel`](crate::Trap::OutOfFuel). Each
    /// operator costs 1 except `nop`, `drop`, `block`, `loop`, `else`,
    /// `end`, `return` and `unreachable`, which are free. Off by default:
    /// the counting costs an add per straight-line run of code and a check
    /// at every function entry and loop header.
    pub fn consume_fuel(&mut self, on: bool) -> &mut Config {
        self.consume_fuel = on;
        self
    }

    /// Tells `profiler` about every function compiled (or loaded from a
    /// compiled-code file) by the engine; wins over [`PROFILER_ENV`].
    pub fn profiler(&mut self, profiler: Profiler) -> &mut Config {
        self.profiler = profiler;
        self.profiler_env_error = None;
        self
    }

    /// Initialise memories from a copy-on-write image of their data
    /// segments (on by default). A module whose active segments have
    /// constant offsets inside the memory's initial size and hold at least
    /// 16 KiB gets, on its first instantiation, a memory file with those
    /// bytes; each instance then maps it privately (one `mmap`) instead of
    /// copying the segments, and pages are copied only when written. Off,
    /// every instantiation copies the segments.
    pub fn memory_images(&mut self, on: bool) -> &mut Config {
        self.memory_images = on;
        self
    }

    /// Compile each function on its first call rather than the whole
    /// module when it is loaded (off by default; `CRANEWASM_LAZY` sets the
    /// default). Loading then validates the module and lays out a stub per
    /// function; the first call of a function compiles it, on whichever
    /// thread makes it, and later calls run the compiled code directly or
    /// through one extra jump. A module whose functions are mostly never
    /// called starts much sooner; one that calls all of them pays the
    /// same compile time, spread over its run and on one thread at a time.
    /// Invalid modules are still refused by [`Module::new`](crate::Module::new);
    /// a valid function the code generator cannot handle traps when
    /// called instead. [`Module::serialize`](crate::Module::serialize)
    /// compiles such a module in full.
    pub fn lazy_compilation(&mut self, on: bool) -> &mut Config {
        self.lazy_compilation = on;
        self.lazy_env_error = None;
        self
    }

    pub(crate) fn wasm_features(&self) -> wasmparser::WasmFeatures {
        use wasmparser::WasmFeatures as F;
        let mut f = F::WASM2;
        f.set(F::REFERENCE_TYPES, self.reference_types);
        f.set(F::SIMD, self.simd);
        f.set(F::RELAXED_SIMD, self.simd && self.relaxed_simd);
        f.set(F::TAIL_CALL, self.tail_call);
        f.set(F::EXTENDED_CONST, self.extended_const);
        f.set(F::MULTI_MEMORY, self.multi_memory);
        f.set(F::THREADS, self.threads);
        f.set(F::FUNCTION_REFERENCES, self.function_references);
        f.set(F::EXCEPTIONS, self.exceptions);
        f.set(F::GC, self.gc && self.function_references);
        f.set(F::LEGACY_EXCEPTIONS, self.exceptions && self.legacy_exceptions);
        self.wide.apply(&mut f);
        f
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    /// Runs `report_default_bounds_checks` in a child process of this test
    /// binary (the environment is per process, and other tests make engines
    /// at the same time), with `value` in `BOUNDS_CHECKS_ENV`, under
    /// `wrapper` if given; returns the line it printed.
    fn default_in_child(value: Option<&str>, wrapper: &[&str]) -> String {
        let exe = std::env::current_exe().unwrap();
        // Under emulation (tests/aarch64.sh), the emulator runs the child.
        let runner = std::env::var("CRANEWASM_TEST_RUNNER").unwrap_or_default();
        let runner: Vec<&str> = runner.split_whitespace().collect();
        let wrapper = if wrapper.is_empty() { &runner[..] } else { wrapper };
        let (program, args) = match wrapper.split_first() {
            Some((p, rest)) => (*p, rest.to_vec()),
            None => (exe.to_str().unwrap(), vec![]),
        };
        let mut cmd = Command::new(program);
        cmd.args(args);
        if !wrapper.is_empty() {
            cmd.arg(&exe);
        }
        cmd.args(["--exact", "environ::config::tests::report_default_bounds_checks", "--ignored", "--nocapture"]);
        cmd.env_remove(BOUNDS_CHECKS_ENV);
        if let Some(v) = value {
            cmd.env(BOUNDS_CHECKS_ENV, v);
        }
        let out = cmd.output().unwrap_or_else(|e| panic!("cannot run {program}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "child failed: {stdout}{}", String::from_utf8_lossy(&out.stderr));
        stdout.lines().find(|l| l.starts_with("default:")).expect("the child's report").to_string()
    }

    #[test]
    #[ignore = "run in a child process by the tests below"]
    fn report_default_bounds_checks() {
        let config = Config::default();
        let engine = crate::Engine::new(&config);
        let mode = engine.as_ref().map_or(config.bounds_checks, |e| e.config().bounds_checks);
        let engine = engine.map(|_| ()).map_err(|e| e.to_string());
        let mut chosen = Config::default();
        chosen.bounds_checks(BoundsChecks::GuardPages);
        let overridden = crate::Engine::new(&chosen).is_ok();
        println!("default: {mode:?}, engine: {engine:?}, explicit choice works: {overridden}");
    }

    #[test]
    fn the_environment_chooses_the_default_bounds_checks() {
        assert_eq!(default_in_child(None, &[]), "default: GuardPages, engine: Ok(()), explicit choice works: true");
        assert_eq!(
            default_in_child(Some("explicit"), &[]),
            "default: Explicit, engine: Ok(()), explicit choice works: true"
        );
        assert_eq!(
            default_in_child(Some("guard-pages"), &[]),
            "default: GuardPages, engine: Ok(()), explicit choice works: true"
        );
        // A typo is an error, not silently the other mode; a configuration
        // that chose its mode does not care.
        assert_eq!(
            default_in_child(Some("Explicit"), &[]),
            "default: GuardPages, engine: Err(\"CRANEWASM_BOUNDS_CHECKS=\\\"Explicit\\\": expected \\\"explicit\\\" \
             or \\\"guard-pages\\\"\"), explicit choice works: true"
        );
    }

    /// The point of the default: a program run under valgrind gets explicit
    /// checks, unless the variable says otherwise. Needs valgrind, as the C
    /// tests do (`tests/run-all.sh` installs it).
    #[test]
    fn valgrind_gets_explicit_bounds_checks() {
        let valgrind = ["valgrind", "-q", "--error-exitcode=0"];
        assert_eq!(default_in_child(None, &valgrind), "default: Explicit, engine: Ok(()), explicit choice works: true");
        assert_eq!(
            default_in_child(Some("guard-pages"), &valgrind),
            "default: GuardPages, engine: Ok(()), explicit choice works: true"
        );
    }
}
