//! wasi-threads programs, run on the core API until the `wasm_export.h`
//! layer instantiates them itself (its `wasm_runtime_instantiate` links
//! WASI for one instance per thread today, not `wasi.thread-spawn`).
//!
//! A program is threaded when it imports `wasi.thread-spawn` or a shared
//! memory (which the runtime makes from the import, as WAMR does). Every
//! thread sees the same WASI state, and a thread's `proc_exit` or trap ends
//! the process as the main thread's would.

use std::io::Write;

use cranewasm::wasi::threads::{self, ProgramExit, WasiThreads};
use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{Config, Engine, Error, Extern, Func, Instance, Linker, Module, Store};

use crate::options::Options;
use crate::LOAD_FAILED;

/// Whether `bytes` hold a wasi-threads program.
pub fn uses_threads(bytes: &[u8]) -> bool {
    // Only the import section is read; a module that does not parse is
    // left to the main path, which reports why.
    let parser = wasmparser::Parser::new(0);
    for payload in parser.parse_all(bytes) {
        let Ok(wasmparser::Payload::ImportSection(imports)) = payload else { continue };
        for import in imports.into_imports().flatten() {
            let spawn = import.module == threads::MODULE && import.name == threads::SPAWN;
            let shared = matches!(import.ty, wasmparser::TypeRef::Memory(m) if m.shared);
            if spawn || shared {
                return true;
            }
        }
    }
    false
}

/// Runs the program's `_start` with the options' WASI settings; the
/// process's exit status, with an exception or a load failure printed as
/// the main path prints them.
pub fn run(opts: &Options, bytes: &[u8]) -> u8 {
    match execute(opts, bytes) {
        Ok(code) => code as u8,
        Err(Error::Exit(code)) => code as u8,
        Err(Error::Trap(t)) => {
            println!("Exception: {}", t.message());
            1
        }
        Err(e) => {
            println!("{e}");
            LOAD_FAILED
        }
    }
}

fn execute(opts: &Options, bytes: &[u8]) -> Result<i32, Error> {
    let mut config = Config::new();
    if let Some(n) = opts.stack_size {
        config.max_wasm_stack(n);
    }
    let engine = Engine::new(&config)?;
    let module = Module::new(&engine, bytes)?;
    if opts.function.is_some() {
        return Err(Error::Usage("-f is not supported for wasi-threads programs yet".into()));
    }
    let mut builder = WasiCtx::builder();
    builder.inherit_stdio().args(&opts.args);
    for (k, v) in &opts.env {
        builder.env(k, v);
    }
    for (guest, host) in &opts.dirs {
        builder.preopened_dir(host, guest.as_str());
    }
    let mut store = Store::new(&engine, builder.build()?);
    let for_threads = module.clone();
    let mut threads = WasiThreads::new(&module, WasiCtx::share, move |store, linker| link(store, linker, &for_threads))
        .on_exit(exit_like_wamr);
    if let Some(n) = opts.max_threads {
        threads = threads.max_threads(n);
    }
    let instance: Instance = threads.build()?.instantiate(&mut store)?;
    if instance.get_func(&store, "_start").is_none() {
        return Err(Error::Usage(
            "lookup the entry point symbol (like _start, main, _main, __main_argc_argv) failed".into(),
        ));
    }
    wasi::start(&mut store, &instance)
}

/// A spawned thread's end of the program, reported as the main thread's
/// would be, then the process's end.
fn exit_like_wamr(exit: ProgramExit) {
    let code = match exit {
        ProgramExit::Exit(code) => code,
        ProgramExit::Trap(trap) => {
            println!("Exception: {}", trap.message());
            1
        }
    };
    let _ = std::io::stdout().flush();
    std::process::exit(code as u8 as i32)
}

/// Defines WASI for `module` in `linker`, and a trapping stand-in for every
/// other function it imports (WAMR fails only at the call).
fn link(store: &mut Store<WasiCtx>, linker: &mut Linker, module: &Module) -> Result<(), Error> {
    linker.define_wasi_for(&mut *store, module, |ctx: &mut WasiCtx| ctx)?;
    for import in module.imports() {
        if linker.get(&import.module, &import.name).is_none() {
            if let cranewasm::ExternType::Func(ty) = &import.ty {
                let f = Func::unlinked(&mut *store, *ty);
                linker.define(&import.module, &import.name, Extern::Func(f));
            }
        }
    }
    Ok(())
}
