//! `iwasm`: runs a WebAssembly program from the command line, accepting
//! what WAMR's `iwasm` accepts for the same job (see `options.rs`), so
//! scripts and test adapters written for WAMR run it unchanged.
//!
//! Like WAMR's, it is a program of the `wasm_export.h` API (the
//! `cranewasm-capi` crate's Rust side of it): options → runtime
//! initialisation, natives from `--native-lib` libraries, a module reader
//! for `--module-path` → `wasm_runtime_load` → WASI settings in
//! `InstantiationArgs2` → instantiation → `wasm_application_execute_main`,
//! or `wasm_application_execute_func` for `-f NAME`. The process exits with
//! the guest's exit status; an exception prints on stdout and exits 1; a
//! module that fails to load or instantiate prints why and exits 255
//! (WAMR's -1). wasi-threads programs run the same way: instantiation
//! links `wasi.thread-spawn`, and `--max-threads` is
//! `wasm_runtime_set_max_thread_num`. A spawned thread's exit or trap ends
//! the program: the main thread's call returns with it (see
//! `program_end.rs` for a main thread blocked in the host), and threads
//! still running when the main thread is done end with the process, as the
//! proposal wants of a `_start` that returns.
//!
//! After an exception the wasm call stack goes to stderr (WAMR's
//! `wasm_runtime_dump_call_stack` format); `--timeout=MS` terminates the
//! instance from a timer thread (`wasm_runtime_terminate`), as WAMR's does.
//!
//! `iwasm compile IN -o OUT` writes IN's compiled code (`Module::serialize`);
//! `wasm_runtime_load` takes such a file as WAMR's takes an AOT file, so
//! `iwasm OUT` runs it without compiling.

mod cache_dir;
mod cache_fill;
mod native_lib;
mod options;
mod program_end;

use std::ffi::{c_char, CString};
use std::process::ExitCode;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::OnceLock;

use capi::export::application::{wasm_application_execute_func, wasm_application_execute_main};
use capi::export::args::*;
use capi::export::call::{wasm_runtime_dump_call_stack_to_buf, wasm_runtime_get_call_stack_buf_size};
use capi::export::exec_env::wasm_runtime_get_exec_env_singleton;
use capi::export::instance::{
    wasm_runtime_deinstantiate, wasm_runtime_get_exception, wasm_runtime_instantiate_ex2, wasm_runtime_terminate,
};
use capi::export::module::{wasm_runtime_load, wasm_runtime_set_module_reader, wasm_runtime_unload};
use capi::export::runtime::*;
use capi::export::types::*;
use capi::export::wasi::wasm_runtime_get_wasi_exit_code;
use capi::export::{c_flush, c_print};

use options::{Action, Options};

/// WAMR's status for "could not load or instantiate" (`ret = -1`).
pub(crate) const LOAD_FAILED: u8 = 255;
/// WAMR's iwasm's default stack size for instances.
const STACK_SIZE: u32 = 64 * 1024;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (action, opts) = match options::parse(&argv) {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("iwasm: {message}");
            eprint!("{}", options::HELP);
            return ExitCode::from(1);
        }
    };
    match action {
        Action::Help => {
            print!("{}", options::HELP);
            ExitCode::from(1)
        }
        Action::Version => {
            println!("iwasm {}", env!("CARGO_PKG_VERSION"));
            println!("cranewasm: Cranelift JIT, WASI preview 1, WAMR's wasm_export.h");
            ExitCode::SUCCESS
        }
        Action::Run if cache_fill::is_filler() => match read_program(&opts) {
            Ok(bytes) => cache_fill::fill(engine_config(&opts), bytes),
            Err(_) => ExitCode::FAILURE,
        },
        Action::Run => {
            for note in &opts.notes {
                eprintln!("iwasm: {note}");
            }
            let code = run(&opts);
            // What the library printed through C's stdio goes out first.
            c_flush();
            ExitCode::from(code)
        }
        Action::Compile { input, output, target } => compile(&input, &output, target.as_deref()),
    }
}

/// `iwasm compile`: the engine is the one the runtime runs modules with,
/// so the file loads there; with `target`, the same settings for that
/// target's baseline CPU (the `cross` feature builds in the code
/// generators of the targets other than the host).
fn compile(input: &std::path::Path, output: &std::path::Path, target: Option<&str>) -> ExitCode {
    let engine = || -> Result<cranewasm::Engine, String> {
        let Some(target) = target else { return capi::core::runtime::engine() };
        let mut config = capi::core::runtime::default_config(false);
        config.target(target).map_err(|e| e.to_string())?;
        cranewasm::Engine::new(&config).map_err(|e| e.to_string())
    };
    let result = std::fs::read(input)
        .map_err(|e| format!("open file {} failed: {e}", input.display()))
        .and_then(|bytes| {
            let engine = engine().map_err(|e| format!("Init runtime environment failed: {e}"))?;
            engine.precompile_module(&bytes).map_err(|e| format!("WASM module load failed: {e}"))
        })
        .and_then(|file| std::fs::write(output, file).map_err(|e| format!("write {} failed: {e}", output.display())));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("iwasm: {message}");
            ExitCode::from(LOAD_FAILED)
        }
    }
}

/// Prints a line on C's stdout, where the library prints too.
fn say(line: &str) {
    c_print(format!("{line}\n").as_bytes());
}

/// The directory `--module-path` names, for the module reader.
static MODULE_PATH: OnceLock<std::path::PathBuf> = OnceLock::new();

/// WAMR's iwasm's module reader: `<module path>/<name>.wasm`, in memory
/// from `wasm_runtime_malloc`.
unsafe extern "C" fn read_module(
    _type: package_type_t,
    name: *const c_char,
    buf: *mut *mut u8,
    size: *mut u32,
) -> bool {
    let Some(dir) = MODULE_PATH.get() else { return false };
    // SAFETY: the runtime passes a NUL-terminated name.
    let name = unsafe { std::ffi::CStr::from_ptr(name) }.to_string_lossy().into_owned();
    let Ok(bytes) = std::fs::read(dir.join(format!("{name}.wasm"))) else { return false };
    let p = wasm_runtime_malloc(bytes.len() as u32).cast::<u8>();
    if p.is_null() {
        return false;
    }
    // SAFETY: a fresh allocation of the file's size; out pointers from the
    // runtime.
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *buf = p;
        *size = bytes.len() as u32;
    }
    true
}

/// Releases what [`read_module`] gave.
unsafe extern "C" fn release_module(buf: *mut u8, _size: u32) {
    // SAFETY: memory from `wasm_runtime_malloc`.
    unsafe { wasm_runtime_free(buf.cast()) };
}

/// C strings and the pointer array a `char **` argument wants.
struct CStrings {
    _owned: Vec<CString>,
    ptrs: Vec<*mut c_char>,
}

impl CStrings {
    fn new<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> CStrings {
        let owned: Vec<CString> =
            items.into_iter().map(|s| CString::new(s.as_ref().replace('\0', "")).unwrap_or_default()).collect();
        let ptrs = owned.iter().map(|c| c.as_ptr().cast_mut()).collect();
        CStrings { _owned: owned, ptrs }
    }
    fn len(&self) -> u32 {
        self.ptrs.len() as u32
    }
    fn as_ptr(&mut self) -> *mut *mut c_char {
        self.ptrs.as_mut_ptr()
    }
}

/// The engine's settings for running `opts`'s program.
fn engine_config(opts: &Options) -> cranewasm::Config {
    // As WAMR's iwasm passes `enable_linux_perf` to the runtime.
    let mut config = capi::core::runtime::default_config(opts.linux_perf);
    if let Some(n) = opts.stack_size {
        config.max_wasm_stack(n);
    }
    config.cache_dir(cache_dir::choose(opts));
    config
}

fn run(opts: &Options) -> u8 {
    let mut config = engine_config(opts);
    let fill = cache_fill::lazy_first_run(&mut config);
    if let Err(e) = capi::core::runtime::configure_engine(&config) {
        say(&format!("Init runtime environment failed: {e}"));
        return LOAD_FAILED;
    }
    if !wasm_runtime_init() {
        say("Init runtime environment failed.");
        return LOAD_FAILED;
    }
    let libs: Vec<native_lib::NativeLib> = opts.native_libs.iter().filter_map(|l| native_lib::load(l)).collect();
    if let Some(dir) = &opts.module_path {
        let _ = MODULE_PATH.set(dir.clone());
    }
    // SAFETY: functions of the types the reader and destroyer have.
    unsafe { wasm_runtime_set_module_reader(Some(read_module), Some(release_module)) };
    let code = load_and_run(opts, fill);
    drop(libs);
    wasm_runtime_destroy();
    code
}

/// Runs `f` with a timer that terminates `inst` after `timeout_ms` (if
/// given), as WAMR's iwasm's timeout thread does; the timer is cancelled
/// and joined when `f` returns.
fn with_timeout<R>(inst: wasm_module_inst_t, timeout_ms: Option<u64>, f: impl FnOnce() -> R) -> R {
    let Some(ms) = timeout_ms else { return f() };
    let (cancel, cancelled) = std::sync::mpsc::channel::<()>();
    let target = inst as usize;
    let timer = std::thread::spawn(move || {
        if cancelled.recv_timeout(std::time::Duration::from_millis(ms)) == Err(RecvTimeoutError::Timeout) {
            // SAFETY: the instance lives until this thread is joined.
            unsafe { wasm_runtime_terminate(target as wasm_module_inst_t) };
        }
    });
    let r = f();
    drop(cancel);
    let _ = timer.join();
    r
}

/// The wasm call stack of the instance's last exception, in WAMR's
/// `wasm_runtime_dump_call_stack` format, on stderr: stdout stays what
/// WAMR's iwasm prints, for scripts that compare it.
fn print_call_stack(inst: wasm_module_inst_t) {
    // SAFETY: our live instance, and a buffer of the size asked for.
    unsafe {
        let env = wasm_runtime_get_exec_env_singleton(inst);
        let size = wasm_runtime_get_call_stack_buf_size(env);
        if size == 0 {
            return;
        }
        let mut buf = vec![0 as c_char; size as usize];
        wasm_runtime_dump_call_stack_to_buf(env, buf.as_mut_ptr(), size);
        eprint!("{}", std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy());
    }
}

/// The bytes of the program `opts` names: its file's, or the binary of
/// its text.
fn read_program(opts: &Options) -> Result<Vec<u8>, String> {
    let bytes = std::fs::read(&opts.file).map_err(|e| format!("open file {} failed: {e}", opts.file.display()))?;
    // A module may be WebAssembly text.
    #[cfg(feature = "compiler")]
    if !bytes.starts_with(b"\0asm") {
        if let Ok(bin) = wat::parse_bytes(&bytes) {
            return Ok(bin.into_owned());
        }
    }
    Ok(bytes)
}

/// Loads and runs the program; `fill`: the cache's entry for it, if
/// missing, is left to a filler (`cache_fill.rs`).
fn load_and_run(opts: &Options, fill: bool) -> u8 {
    let mut bytes = match read_program(opts) {
        Ok(b) => b,
        Err(message) => {
            say(&message);
            return LOAD_FAILED;
        }
    };
    if let Some(n) = opts.max_threads {
        capi::export::thread_mgr::wasm_runtime_set_max_thread_num(n);
    }
    program_end::watch();
    // Room for the whole of any message (WAMR's iwasm gives 128 bytes and
    // cuts longer ones; a validator's message with its context can run
    // past that).
    const ERR_LEN: u32 = 16 << 10;
    let mut err = vec![0 as c_char; ERR_LEN as usize];
    let text = |err: &[c_char]| {
        // SAFETY: the runtime NUL-terminates what it writes.
        unsafe { std::ffi::CStr::from_ptr(err.as_ptr()) }.to_string_lossy().into_owned()
    };
    // SAFETY: the file's bytes and an error buffer of ours.
    let module = unsafe { wasm_runtime_load(bytes.as_mut_ptr(), bytes.len() as u32, err.as_mut_ptr(), ERR_LEN) };
    if module.is_null() {
        say(&text(&err));
        return LOAD_FAILED;
    }
    if fill {
        if let Ok(engine) = capi::core::runtime::engine() {
            cache_fill::fill_after_miss(&engine, &bytes);
        }
    }
    let mut args: *mut InstantiationArgs2 = std::ptr::null_mut();
    let mut argv = CStrings::new(&opts.args);
    let mut env = CStrings::new(opts.env.iter().map(|(k, v)| format!("{k}={v}")));
    let (dirs, maps): (Vec<_>, Vec<_>) = opts.dirs.iter().partition(|(g, h)| std::path::Path::new(g) == h.as_path());
    let mut dirs = CStrings::new(dirs.iter().map(|(g, _)| g.as_str()));
    let mut maps = CStrings::new(maps.iter().map(|(g, h)| format!("{g}::{}", h.display())));
    let mut pool = CStrings::new(&opts.addr_pool);
    let mut lookups = CStrings::new(&opts.allow_resolve);
    // SAFETY: an out pointer of ours, then the arguments it made, with
    // string arrays that outlive the instantiation.
    let inst = unsafe {
        if !wasm_runtime_instantiation_args_create(&mut args) {
            say("failed to create instantiate args");
            wasm_runtime_unload(module);
            return LOAD_FAILED;
        }
        wasm_runtime_instantiation_args_set_default_stack_size(args, STACK_SIZE);
        wasm_runtime_instantiation_args_set_host_managed_heap_size(args, opts.heap_size);
        wasm_runtime_instantiation_args_set_wasi_arg(args, argv.as_ptr(), argv.len() as i32);
        wasm_runtime_instantiation_args_set_wasi_env(args, env.as_ptr().cast(), env.len());
        wasm_runtime_instantiation_args_set_wasi_dir(
            args,
            dirs.as_ptr().cast(),
            dirs.len(),
            maps.as_ptr().cast(),
            maps.len(),
        );
        wasm_runtime_instantiation_args_set_wasi_addr_pool(args, pool.as_ptr().cast(), pool.len());
        wasm_runtime_instantiation_args_set_wasi_ns_lookup_pool(args, lookups.as_ptr().cast(), lookups.len());
        let inst = wasm_runtime_instantiate_ex2(module, args, err.as_mut_ptr(), ERR_LEN);
        wasm_runtime_instantiation_args_destroy(args);
        inst
    };
    if inst.is_null() {
        say(&text(&err));
        // SAFETY: our module.
        unsafe { wasm_runtime_unload(module) };
        return LOAD_FAILED;
    }
    // SAFETY: our instance, and argument arrays of ours.
    let exception = with_timeout(inst, opts.timeout_ms, || unsafe {
        match &opts.function {
            Some(name) => {
                let name = CString::new(name.as_str()).unwrap_or_default();
                wasm_application_execute_func(inst, name.as_ptr(), argv.len() as i32 - 1, argv.as_ptr().add(1));
            }
            None => {
                wasm_application_execute_main(inst, argv.len() as i32, argv.as_ptr());
            }
        }
        program_end::main_returned();
        let e = wasm_runtime_get_exception(inst);
        (!e.is_null()).then(|| std::ffi::CStr::from_ptr(e).to_string_lossy().into_owned())
    });
    let code = match &exception {
        Some(e) => {
            print_call_stack(inst);
            say(e);
            1
        }
        // SAFETY: our instance.
        None => (unsafe { wasm_runtime_get_wasi_exit_code(inst) }) as u8,
    };
    // SAFETY: our instance.
    if unsafe { capi::export::thread_mgr::threads_running(inst) } > 0 {
        // The program is over; its other threads end with the process.
        c_flush();
        std::process::exit(code.into());
    }
    // SAFETY: ours, each freed once.
    unsafe {
        wasm_runtime_deinstantiate(inst);
        wasm_runtime_unload(module);
    }
    code
}
