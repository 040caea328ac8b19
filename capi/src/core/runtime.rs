//! The runtime's state, which both headers share: its initialisation
//! count, the engines modules are compiled for (made on first use, so a
//! wasm-c-api client that never calls `wasm_runtime_init` gets one too),
//! the default running mode, the client's allocator, and the diagnostics.
//! The C functions that set it are `wasm_export.h`'s, in
//! `export/runtime.rs`.

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{Config, Engine, Profiler};

use crate::core::options::mem_alloc_type_t;
use crate::core::types::*;

pub(crate) type MallocFn = unsafe extern "C" fn(u32) -> *mut c_void;
pub(crate) type ReallocFn = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
pub(crate) type FreeFn = unsafe extern "C" fn(*mut c_void);

/// What the runtime was initialised with.
pub(crate) struct Runtime {
    /// `wasm_runtime_init` calls not yet matched by `wasm_runtime_destroy`.
    pub(crate) refs: usize,
    /// The engine modules are compiled for, made on first use.
    pub(crate) engine: Option<Engine>,
    /// The engine of modules loaded while the default running mode is
    /// `Mode_Interp`: the same settings with operator counting (see
    /// [`module_engine`]); made on first use.
    pub(crate) metering_engine: Option<Engine>,
    /// Whether `engine` counts operators already ([`metering_forced`]).
    pub(crate) engine_meters: bool,
    pub(crate) mem_alloc_type: mem_alloc_type_t,
    /// The client's allocator (`Alloc_With_Allocator`).
    pub(crate) allocator: Option<(MallocFn, Option<ReallocFn>, Option<FreeFn>)>,
    pub(crate) default_running_mode: RunningMode,
    /// `RuntimeInitArgs.enable_linux_perf`: the engine writes perf's map.
    pub(crate) linux_perf: bool,
    /// `RuntimeInitArgs.gc_heap_size`: the bound of each instance's GC
    /// heap (0: the core's default).
    pub(crate) gc_heap_size: u32,
}

static RUNTIME: Mutex<Runtime> = Mutex::new(Runtime {
    refs: 0,
    engine: None,
    metering_engine: None,
    engine_meters: false,
    mem_alloc_type: 2,
    allocator: None,
    default_running_mode: MODE_DEFAULT,
    linux_perf: false,
    gc_heap_size: 0,
});

pub(crate) fn runtime() -> MutexGuard<'static, Runtime> {
    RUNTIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Writes a diagnostic line on stderr if `level` is within the log level
/// ([`crate::diag`]).
pub fn log(level: log_level_t, args: std::fmt::Arguments<'_>) {
    crate::diag::line(level, args);
}

/// A warning line ([`log`] at `WASM_LOG_LEVEL_WARNING`).
pub fn warn(args: std::fmt::Arguments<'_>) {
    log(WASM_LOG_LEVEL_WARNING, args);
}

/// Makes the engine of `wasm_export.h` modules with `config` (the
/// `iwasm` command line's `--stack-size`): a Rust-level setting, before
/// the first module is loaded. False when an engine exists already or the
/// configuration is refused.
pub fn configure_engine(config: &Config) -> Result<(), String> {
    let mut rt = runtime();
    if rt.engine.is_some() {
        return Err("the engine is made already".into());
    }
    rt.engine = Some(Engine::new(config).map_err(|e| e.to_string())?);
    Ok(())
}

/// Whether `CRANEWASM_INSTRUCTION_METERING=1` asks for operator counting in
/// every module, whatever the running mode (the override from before
/// `Mode_Interp` selected it).
pub fn metering_forced() -> bool {
    std::env::var_os("CRANEWASM_INSTRUCTION_METERING").is_some_and(|v| v == "1")
}

/// The engine settings of `wasm_export.h` modules: the defaults, with
/// operator counting when [`metering_forced`] (see
/// [`exec_control`](crate::export::exec_control)), perf's map when
/// the runtime was initialised with `enable_linux_perf`, and the code
/// cache `CRANEWASM_CACHE_DIR` names. `iwasm` starts from these too.
pub fn default_config(linux_perf: bool) -> Config {
    let mut config = Config::new();
    config.cache_dir_from_environment();
    if metering_forced() {
        config.consume_fuel(true);
    }
    if linux_perf {
        // As WAMR's runtime with `enable_linux_perf`: /tmp/perf-<pid>.map.
        config.profiler(Profiler::PerfMap);
    }
    config
}

/// The engine of `wasm_export.h` modules, made on first use (the runtime
/// need not have been initialised, as after `wasm_engine_new` in WAMR).
pub fn engine() -> Result<Engine, String> {
    let mut rt = runtime();
    plain_engine(&mut rt)
}

pub(crate) fn plain_engine(rt: &mut Runtime) -> Result<Engine, String> {
    if let Some(e) = &rt.engine {
        return Ok(e.clone());
    }
    let config = default_config(rt.linux_perf);
    let engine = Engine::new(&config).map_err(|e| e.to_string())?;
    rt.engine = Some(engine.clone());
    rt.engine_meters = metering_forced();
    Ok(engine)
}

/// The engine a module of bytecode loaded now is compiled for: one that
/// counts operators when the default running mode is `Mode_Interp`.
///
/// WAMR meters instructions only in its interpreter, so a client that
/// wants `wasm_runtime_set_instruction_count_limit` picks `Mode_Interp`
/// (`RuntimeInitArgs.running_mode` or
/// `wasm_runtime_set_default_running_mode`) before loading; cranewasm has
/// no interpreter, and compiles the counting in instead, which costs about
/// 13 % (benches/README.md). Other modes pay nothing for it.
pub fn module_engine() -> Result<Engine, String> {
    let mut rt = runtime();
    let plain = plain_engine(&mut rt)?;
    if resolve_mode(rt.default_running_mode) != MODE_INTERP || rt.engine_meters {
        return Ok(plain);
    }
    if let Some(e) = &rt.metering_engine {
        return Ok(e.clone());
    }
    let mut config = plain.config().clone();
    config.consume_fuel(true);
    let engine = Engine::new(&config).map_err(|e| e.to_string())?;
    rt.metering_engine = Some(engine.clone());
    Ok(engine)
}

/// Whether the runtime is initialised (by `wasm_runtime_init` or
/// `_full_init`).
pub fn initialized() -> bool {
    runtime().refs > 0
}

/// `mode` with WAMR's "default" (0) resolved: `Mode_LLVM_JIT`, what WAMR
/// built with its LLVM JIT and no fast JIT picks.
fn resolve_mode(mode: RunningMode) -> RunningMode {
    match mode {
        MODE_DEFAULT => MODE_LLVM_JIT,
        m => m,
    }
}

/// The running mode instances start with.
/// The bound the runtime was initialised with for each instance's GC heap
/// (`RuntimeInitArgs.gc_heap_size`), if any.
pub fn gc_heap_size() -> Option<usize> {
    Some(runtime().gc_heap_size as usize).filter(|n| *n != 0)
}

pub fn default_running_mode() -> RunningMode {
    resolve_mode(runtime().default_running_mode)
}

/// Whether `mode` is one cranewasm runs: its only engine compiles every
/// function with Cranelift before running it, which is what WAMR's LLVM
/// JIT mode does; `Mode_Interp` is that with instruction counting compiled
/// in (see [`module_engine`]); 0 is WAMR's "default".
pub(crate) fn supported(mode: RunningMode) -> bool {
    matches!(mode, MODE_DEFAULT | MODE_INTERP | MODE_LLVM_JIT)
}
