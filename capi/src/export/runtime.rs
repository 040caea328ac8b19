//! The runtime as a whole: initialisation and its reference count, the
//! engine modules are compiled for, runtime memory, log level, running
//! modes and the version.
//!
//! WAMR manages its own memory in one of three ways (`mem_alloc_type_t`).
//! cranewasm serves all three from the C allocator: `Alloc_With_Pool`'s
//! buffer size is a budget that bounds what the runtime allocates for the
//! embedder ([`pool`](crate::export::pool); `wasm_runtime_get_mem_alloc_info`
//! reports on it), while `Alloc_With_Allocator`'s functions are honoured by
//! `wasm_runtime_malloc`, `_realloc` and `_free`. Linear memories are
//! always reserved by the core, not allocated here.

use std::ffi::c_void;
use std::sync::{Mutex, MutexGuard};

use cranewasm::{Config, Engine, Profiler};

use crate::core::options::mem_alloc_type_t;
use crate::export::pool;
use crate::export::types::*;

/// `Alloc_With_Pool`.
const ALLOC_WITH_POOL: mem_alloc_type_t = 0;
/// `Alloc_With_Allocator`.
const ALLOC_WITH_ALLOCATOR: mem_alloc_type_t = 1;

type MallocFn = unsafe extern "C" fn(u32) -> *mut c_void;
type ReallocFn = unsafe extern "C" fn(*mut c_void, u32) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);

/// What the runtime was initialised with.
struct Runtime {
    /// `wasm_runtime_init` calls not yet matched by `wasm_runtime_destroy`.
    refs: usize,
    /// The engine modules are compiled for, made on first use.
    engine: Option<Engine>,
    /// The engine of modules loaded while the default running mode is
    /// `Mode_Interp`: the same settings with operator counting (see
    /// [`module_engine`]); made on first use.
    metering_engine: Option<Engine>,
    /// Whether `engine` counts operators already ([`metering_forced`]).
    engine_meters: bool,
    mem_alloc_type: mem_alloc_type_t,
    /// The client's allocator (`Alloc_With_Allocator`).
    allocator: Option<(MallocFn, Option<ReallocFn>, Option<FreeFn>)>,
    default_running_mode: RunningMode,
    /// `RuntimeInitArgs.enable_linux_perf`: the engine writes perf's map.
    linux_perf: bool,
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
});

fn runtime() -> MutexGuard<'static, Runtime> {
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
/// [`exec_control`](crate::export::exec_control)), and perf's map when
/// the runtime was initialised with `enable_linux_perf`.
fn default_config(linux_perf: bool) -> Config {
    let mut config = Config::new();
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

fn plain_engine(rt: &mut Runtime) -> Result<Engine, String> {
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
pub fn default_running_mode() -> RunningMode {
    resolve_mode(runtime().default_running_mode)
}

/// Whether `mode` is one cranewasm runs: its only engine compiles every
/// function with Cranelift before running it, which is what WAMR's LLVM
/// JIT mode does; `Mode_Interp` is that with instruction counting compiled
/// in (see [`module_engine`]); 0 is WAMR's "default".
fn supported(mode: RunningMode) -> bool {
    matches!(mode, MODE_DEFAULT | MODE_INTERP | MODE_LLVM_JIT)
}

/// Initialises the runtime, or counts one more initialisation. Marks the
/// calling thread's environment as initialised.
fn init(args: Option<&RuntimeInitArgs>) -> bool {
    {
        let mut rt = runtime();
        if rt.refs == 0 {
            if let Some(a) = args {
                if !supported(a.running_mode) {
                    return false;
                }
                rt.mem_alloc_type = a.mem_alloc_type;
                rt.default_running_mode = a.running_mode;
                rt.linux_perf = a.enable_linux_perf;
                rt.allocator = None;
                let pool_size = if a.mem_alloc_type == ALLOC_WITH_POOL {
                    // SAFETY: the pool variant is the one in use.
                    Some(unsafe { a.mem_alloc_option.pool.heap_size } as usize)
                } else {
                    None
                };
                pool::start(pool_size);
                if a.mem_alloc_type == ALLOC_WITH_ALLOCATOR {
                    // SAFETY: the allocator variant is the one in use.
                    let f = unsafe { a.mem_alloc_option.allocator };
                    // SAFETY: non-null function pointers of the types the
                    // header documents (or NULL, which leaves `None`).
                    unsafe {
                        let malloc = std::mem::transmute::<*mut c_void, Option<MallocFn>>(f.malloc_func);
                        let realloc = std::mem::transmute::<*mut c_void, Option<ReallocFn>>(f.realloc_func);
                        let free = std::mem::transmute::<*mut c_void, Option<FreeFn>>(f.free_func);
                        rt.allocator = malloc.map(|m| (m, realloc, free));
                    }
                }
            } else {
                rt.mem_alloc_type = 2;
                rt.allocator = None;
                rt.default_running_mode = MODE_DEFAULT;
                rt.linux_perf = false;
                pool::start(None);
            }
            if rt.linux_perf && rt.engine.is_some() {
                warn(format_args!("enable_linux_perf ignored: the runtime's engine was made before"));
            }
            if let Err(e) = plain_engine(&mut rt) {
                crate::log(format_args!("Init runtime environment failed: {e}"));
                return false;
            }
        }
        rt.refs += 1;
    }
    crate::export::threads::mark_thread_inited();
    true
}

/// Initialises the runtime with default settings (or counts one more
/// initialisation: each needs a `wasm_runtime_destroy`).
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_init() -> bool {
    init(None)
}

/// Initialises the runtime with `init_args` and registers its natives.
/// The allocator options are served from the C allocator, within the
/// pool's size for `Alloc_With_Pool` (see the module documentation);
/// `max_thread_num` is kept for the thread manager; `enable_linux_perf`
/// makes the engine write perf's map (when it is made here, before any
/// module); the debug and JIT options are accepted and ignored. False for
/// NULL, for a running mode cranewasm does not have, and when the natives'
/// signatures are refused.
///
/// # Safety
/// `init_args` must be NULL or point at a `RuntimeInitArgs`; its native
/// symbols as for `wasm_runtime_register_natives`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_full_init(init_args: *mut RuntimeInitArgs) -> bool {
    // SAFETY: NULL or valid (caller).
    let Some(args) = (unsafe { init_args.as_ref() }) else { return false };
    if !init(Some(args)) {
        return false;
    }
    crate::export::thread_mgr::set_max_thread_num(args.max_thread_num);
    if args.n_native_symbols > 0 {
        // SAFETY: as the caller promises.
        let ok = unsafe {
            crate::export::natives::register(args.native_module_name, args.native_symbols, args.n_native_symbols, false)
        };
        if !ok {
            wasm_runtime_destroy();
            return false;
        }
    }
    true
}

/// Drops one initialisation; the last one frees the modules, instances and
/// exec envs the client left (its later destroy calls for them are
/// accepted silently) and forgets the registered natives, the module
/// registry and the context keys, as WAMR does.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_destroy() {
    let last = {
        let mut rt = runtime();
        if rt.refs == 0 {
            return;
        }
        rt.refs -= 1;
        rt.refs == 0
    };
    if last {
        crate::export::teardown::free_all();
        // WAMR's pool goes with the runtime; what is left of it is no
        // longer counted.
        pool::start(None);
        crate::export::natives::clear();
        crate::export::module::clear_registry();
        crate::export::context::clear_keys();
    }
}

/// Sets the level of the library's diagnostics (`WASM_LOG_LEVEL_FATAL` 0
/// .. `WASM_LOG_LEVEL_VERBOSE` 4; warnings by default), the one
/// `bh_log_set_verbose_level` sets too; 0 silences the library.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_set_log_level(level: log_level_t) {
    crate::diag::set_level(level);
}

/// Whether cranewasm runs modules in `running_mode`: `Mode_LLVM_JIT`
/// (ahead-of-call compilation by Cranelift), `Mode_Interp` (the same with
/// instruction counting compiled in, for instruction limits) and 0,
/// "default"; not the fast JIT or multi-tier JIT.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_is_running_mode_supported(running_mode: RunningMode) -> bool {
    supported(running_mode)
}

/// Sets the mode new instances run in; false for an unsupported one.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_set_default_running_mode(running_mode: RunningMode) -> bool {
    if !supported(running_mode) {
        return false;
    }
    runtime().default_running_mode = running_mode;
    true
}

/// `size` bytes from the runtime's allocator (the client's under
/// `Alloc_With_Allocator`, else the C allocator); a request for 0 bytes
/// gets 1, as in WAMR.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_malloc(size: u32) -> *mut c_void {
    let size = size.max(1);
    match runtime().allocator {
        // SAFETY: the client's malloc, as it registered it.
        Some((malloc, _, _)) => unsafe { malloc(size) },
        // SAFETY: plain malloc.
        None => pool_checked(unsafe { libc::malloc(size as usize) }),
    }
}

/// `p`, a fresh block of the C allocator, charged to the pool if one is
/// running; NULL (and `p` freed) if it does not fit, as WAMR's pool then
/// has no room.
fn pool_checked(p: *mut c_void) -> *mut c_void {
    if p.is_null() || !pool::active() {
        return p;
    }
    // SAFETY: a live block of the C allocator.
    if pool::charge_block(unsafe { cranewasm::__sys::malloc_usable_size(p) }) {
        return p;
    }
    // SAFETY: ours, unused.
    unsafe { libc::free(p) };
    std::ptr::null_mut()
}

/// Releases a block of the C allocator from the pool (if one is running)
/// before it is freed or moved.
fn pool_release(p: *mut c_void) {
    if pool::active() {
        // SAFETY: a live block of the C allocator (the caller's promise).
        pool::release_block(unsafe { cranewasm::__sys::malloc_usable_size(p) });
    }
}

/// Memory of `size` bytes aligned to `alignment`: only with
/// `Alloc_With_Pool`, as in WAMR (NULL otherwise), and only for an
/// alignment that is a power of two from 8 to the page size dividing
/// `size`.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_aligned_alloc(size: u32, alignment: u32) -> *mut c_void {
    // SAFETY: a plain query.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) }.max(4096) as u32;
    let ok = runtime().mem_alloc_type == ALLOC_WITH_POOL
        && alignment.is_power_of_two()
        && (8..=page).contains(&alignment)
        && size > 0
        && size.is_multiple_of(alignment);
    if !ok {
        return std::ptr::null_mut();
    }
    let mut p = std::ptr::null_mut();
    // SAFETY: a valid alignment (checked) and an out pointer of ours.
    match unsafe { libc::posix_memalign(&mut p, alignment as usize, size as usize) } {
        0 => pool_checked(p),
        _ => std::ptr::null_mut(),
    }
}

/// Resizes memory from [`wasm_runtime_malloc`]; NULL `ptr` allocates.
///
/// # Safety
/// `ptr` must be NULL or come from this allocator and not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_realloc(ptr: *mut c_void, size: u32) -> *mut c_void {
    if ptr.is_null() {
        return wasm_runtime_malloc(size);
    }
    let allocator = runtime().allocator;
    match allocator {
        // SAFETY: the client's realloc, for memory its malloc gave.
        Some((_, Some(realloc), _)) => unsafe { realloc(ptr, size) },
        Some((_, None, _)) => std::ptr::null_mut(),
        None if pool::active() => {
            // As a new block: charged first, the old one released once
            // moved (a failed move keeps it, and its charge).
            let q = wasm_runtime_malloc(size);
            if q.is_null() {
                return q;
            }
            // SAFETY: both live blocks of the C allocator; the copy is the
            // smaller of their sizes.
            unsafe {
                let n = cranewasm::__sys::malloc_usable_size(ptr).min(size as usize);
                std::ptr::copy_nonoverlapping(ptr.cast::<u8>(), q.cast::<u8>(), n);
                wasm_runtime_free(ptr);
            }
            q
        }
        // SAFETY: memory of the C allocator (caller).
        None => unsafe { libc::realloc(ptr, size as usize) },
    }
}

/// Frees memory from [`wasm_runtime_malloc`]; NULL is ignored.
///
/// # Safety
/// As for [`wasm_runtime_realloc`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_free(ptr: *mut c_void) {
    if ptr.is_null() {
        return;
    }
    let allocator = runtime().allocator;
    match allocator {
        // SAFETY: the client's free, for memory its malloc gave.
        Some((_, _, Some(free))) => unsafe { free(ptr) },
        Some((_, _, None)) => {}
        None => {
            pool_release(ptr);
            // SAFETY: memory of the C allocator (caller).
            unsafe { libc::free(ptr) }
        }
    }
}

/// The pool's budget, as WAMR reports on its pool allocator: its size,
/// what is free and the most used at once. False (nothing written) without
/// a pool, as in WAMR, and for NULL.
///
/// # Safety
/// `mem_alloc_info` must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_mem_alloc_info(mem_alloc_info: *mut mem_alloc_info_t) -> bool {
    let (Some((total, free, highmark)), false) = (pool::info(), mem_alloc_info.is_null()) else { return false };
    let clamp = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    // SAFETY: writable (caller).
    unsafe {
        mem_alloc_info.write(mem_alloc_info_t {
            total_size: clamp(total),
            total_free_size: clamp(free),
            highmark_size: clamp(highmark),
        })
    };
    true
}

/// WAMR's version this library implements the API of: 2.4.3.
///
/// # Safety
/// Each pointer must be NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_version(major: *mut u32, minor: *mut u32, patch: *mut u32) {
    for (p, v) in [(major, 2), (minor, 4), (patch, 3)] {
        if !p.is_null() {
            // SAFETY: writable (caller).
            unsafe { p.write(v) };
        }
    }
}
