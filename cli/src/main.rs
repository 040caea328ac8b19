//! `iwasm`: runs a WebAssembly program from the command line, accepting
//! what WAMR's `iwasm` accepts for the same job (see `options.rs`), so
//! scripts and test adapters written for WAMR run it unchanged.
//!
//! options → `WasiCtx` → instantiate (imports by name: WASI, and a trapping
//! stand-in for any other function, as WAMR links lazily) → `_start` or
//! `-f NAME`. The process exits with the guest's exit status; a trap prints
//! `Exception: <message>` on stdout and exits 1, as WAMR does; a module that
//! fails to load or instantiate prints why and exits 255 (WAMR's -1).

mod invoke;
mod options;

use std::process::ExitCode;

use cranewasm::wasi::threads::{self, ProgramExit, WasiThreads};
use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{Config, Engine, Error, Extern, Func, Instance, Linker, Module, Store, Val};

use options::{Action, Options};

/// WAMR's status for "could not load or instantiate" (`ret = -1`).
const LOAD_FAILED: u8 = 255;

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
            println!("cranewasm: Cranelift JIT, WASI preview 1");
            ExitCode::SUCCESS
        }
        Action::Run => {
            for note in &opts.notes {
                eprintln!("iwasm: {note}");
            }
            run(&opts)
        }
    }
}

/// Where a run stopped.
enum Outcome {
    /// The guest finished with this status.
    Exit(i32),
    /// Loading, linking or instantiating failed (message printed as is).
    LoadFailed(String),
    /// A trap or a bad `-f` call: printed as WAMR's exception.
    Exception(String),
}

fn run(opts: &Options) -> ExitCode {
    match execute(opts) {
        // Like a process: the low 8 bits of the status.
        Outcome::Exit(code) => ExitCode::from(code as u8),
        Outcome::LoadFailed(message) => {
            println!("{message}");
            ExitCode::from(LOAD_FAILED)
        }
        Outcome::Exception(message) => {
            println!("Exception: {message}");
            ExitCode::from(1)
        }
    }
}

fn execute(opts: &Options) -> Outcome {
    let bytes = match std::fs::read(&opts.file) {
        Ok(b) => b,
        Err(e) => return Outcome::LoadFailed(format!("open file {} failed: {e}", opts.file.display())),
    };
    let mut config = Config::new();
    if let Some(n) = opts.stack_size {
        config.max_wasm_stack(n);
    }
    let engine = match Engine::new(&config) {
        Ok(e) => e,
        Err(e) => return Outcome::LoadFailed(format!("Init runtime environment failed: {e}")),
    };
    let module = match Module::new(&engine, &bytes) {
        Ok(m) => m,
        Err(e) => return Outcome::LoadFailed(format!("WASM module load failed: {e}")),
    };
    let mut builder = WasiCtx::builder();
    builder.inherit_stdio().args(&opts.args);
    for (k, v) in &opts.env {
        builder.env(k, v);
    }
    for (guest, host) in &opts.dirs {
        builder.preopened_dir(host, guest.as_str());
    }
    let ctx = match builder.build() {
        Ok(c) => c,
        Err(e) => return Outcome::LoadFailed(format!("WASM module instantiate failed: {e}")),
    };
    let mut store = Store::new(&engine, ctx);
    let instance = if uses_threads(&module) {
        instantiate_threaded(&mut store, &module, opts.max_threads)
    } else {
        instantiate(&mut store, &module)
    };
    let instance = match instance {
        Ok(i) => i,
        Err(Error::Trap(t)) => return Outcome::Exception(t.message().to_string()),
        Err(Error::Exit(code)) => return Outcome::Exit(code),
        Err(e) => return Outcome::LoadFailed(format!("WASM module instantiate failed: {e}")),
    };
    let result = match &opts.function {
        // WAMR runs a WASI program's `_start` and refuses a module without one.
        None if instance.get_func(&store, "_start").is_none() => {
            return Outcome::Exception(
                "lookup the entry point symbol (like _start, main, _main, __main_argc_argv) failed".into(),
            )
        }
        None => wasi::start(&mut store, &instance).map(Some),
        Some(name) => call_function(&mut store, &instance, name, &opts.args[1..]),
    };
    match result {
        Ok(Some(code)) => Outcome::Exit(code),
        Ok(None) => Outcome::Exit(0),
        Err(Error::Exit(code)) => Outcome::Exit(code),
        Err(Error::Trap(t)) => Outcome::Exception(t.message().to_string()),
        Err(e) => Outcome::Exception(e.to_string()),
    }
}

/// Instantiates with WASI defined, and every other imported function
/// linked to one that traps if called (WAMR instantiates such modules and
/// fails only at the call).
fn instantiate(store: &mut Store<WasiCtx>, module: &Module) -> Result<Instance, Error> {
    let mut linker = Linker::new();
    link(store, &mut linker, module)?;
    linker.instantiate(store, module)
}

/// Whether `module` is a wasi-threads program: it spawns threads or
/// imports a shared memory (which the runtime provides, as WAMR does).
fn uses_threads(module: &Module) -> bool {
    module.imports().any(|i| {
        (i.module == threads::MODULE && i.name == threads::SPAWN)
            || matches!(i.ty, cranewasm::ExternType::Memory(t) if t.is_shared())
    })
}

/// Instantiates a wasi-threads program: its shared memory is made from its
/// import, every thread sees the same WASI state, and a thread's
/// `proc_exit` or trap ends the process as the main thread's would.
fn instantiate_threaded(
    store: &mut Store<WasiCtx>,
    module: &Module,
    max_threads: Option<u32>,
) -> Result<Instance, Error> {
    let for_threads = module.clone();
    let mut threads = WasiThreads::new(module, WasiCtx::share, move |store, linker| link(store, linker, &for_threads))
        .on_exit(exit_like_wamr);
    if let Some(n) = max_threads {
        threads = threads.max_threads(n);
    }
    threads.build()?.instantiate(store)
}

/// A spawned thread's end of the program, reported as the main thread's
/// would be (see `run`), then the process's end.
fn exit_like_wamr(exit: ProgramExit) {
    use std::io::Write;
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
/// other function it imports.
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

/// `-f NAME ARGS...`: a reactor is initialised first, then the export is
/// called and its results printed.
fn call_function(
    store: &mut Store<WasiCtx>,
    instance: &Instance,
    name: &str,
    args: &[String],
) -> Result<Option<i32>, Error> {
    if let Some(init) = instance.get_func(&mut *store, "_initialize") {
        init.call(&mut *store, &[], &mut [])?;
    }
    let Some(func) = instance.get_func(&mut *store, name) else {
        return Err(Error::Usage(format!("lookup function {name} failed")));
    };
    let ty = func.ty(&*store);
    if ty.params().len() != args.len() {
        return Err(Error::Usage("invalid input argument count".into()));
    }
    let params = args
        .iter()
        .zip(ty.params())
        .enumerate()
        .map(|(i, (a, t))| invoke::parse_arg(i, a, *t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Error::Usage)?;
    let mut results: Vec<Val> = ty.results().iter().map(|t| Val::default_for(*t)).collect();
    func.call(&mut *store, &params, &mut results)?;
    println!("{}", invoke::format_results(&results));
    Ok(None)
}
