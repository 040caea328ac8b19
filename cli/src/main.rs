//! `iwasm`: runs a WebAssembly program from the command line, accepting
//! what WAMR's `iwasm` accepts for the same job (see `options.rs`), so
//! scripts and test adapters written for WAMR run it unchanged.
//!
//! options → `WasiCtx` → instantiate (imports by name: WASI, and a trapping
//! stand-in for any other function, as WAMR links lazily) → `_start` or
//! `-f NAME`. The process exits with the guest's exit status; a trap prints
//! `Exception: <message>` on stdout and exits 1, as WAMR does, after the
//! wasm call stack on stderr in the format of WAMR's `dump_call_stack`; a
//! module that fails to load or instantiate prints why and exits 255
//! (WAMR's -1).
//!
//! `iwasm compile IN -o OUT` writes IN's compiled code (`Module::serialize`)
//! and `iwasm OUT` runs it without compiling.

mod invoke;
mod options;

use std::process::ExitCode;

use cranewasm::wasi::{self, WasiCtx};
use cranewasm::{Config, Engine, Error, Extern, FrameInfo, Func, Instance, Linker, Module, Store, Val};

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
        Action::Compile { input, output } => compile(&input, &output),
    }
}

/// `iwasm compile`: the engine is the one `iwasm` runs modules with, so
/// the file loads there.
fn compile(input: &std::path::Path, output: &std::path::Path) -> ExitCode {
    let result = std::fs::read(input)
        .map_err(|e| format!("open file {} failed: {e}", input.display()))
        .and_then(|bytes| {
            let engine = Engine::new(&Config::new()).map_err(|e| format!("Init runtime environment failed: {e}"))?;
            Module::new(&engine, bytes).map_err(|e| format!("WASM module load failed: {e}"))
        })
        .and_then(|module| {
            std::fs::write(output, module.serialize()).map_err(|e| format!("write {} failed: {e}", output.display()))
        });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("iwasm: {message}");
            ExitCode::from(LOAD_FAILED)
        }
    }
}

/// Where a run stopped.
enum Outcome {
    /// The guest finished with this status.
    Exit(i32),
    /// Loading, linking or instantiating failed (message printed as is).
    LoadFailed(String),
    /// A trap or a bad `-f` call: printed as WAMR's exception, after the
    /// trap's wasm frames.
    Exception(String, Vec<FrameInfo>),
}

fn run(opts: &Options) -> ExitCode {
    match execute(opts) {
        // Like a process: the low 8 bits of the status.
        Outcome::Exit(code) => ExitCode::from(code as u8),
        Outcome::LoadFailed(message) => {
            println!("{message}");
            ExitCode::from(LOAD_FAILED)
        }
        Outcome::Exception(message, frames) => {
            eprint!("{}", call_stack(&frames));
            println!("Exception: {message}");
            ExitCode::from(1)
        }
    }
}

fn execute(opts: &Options) -> Outcome {
    let mut config = Config::new();
    if let Some(n) = opts.stack_size {
        config.max_wasm_stack(n);
    }
    let engine = match Engine::new(&config) {
        Ok(e) => e,
        Err(e) => return Outcome::LoadFailed(format!("Init runtime environment failed: {e}")),
    };
    let module = match load(&engine, &opts.file) {
        Ok(m) => m,
        Err(message) => return Outcome::LoadFailed(message),
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
    if let Some(ms) = opts.timeout_ms {
        // WAMR's --timeout: terminate the instance once the time is up.
        let handle = store.interrupt_handle();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            handle.interrupt();
        });
    }
    let instance = match instantiate(&mut store, &module) {
        Ok(i) => i,
        Err(Error::Trap(t)) => return Outcome::Exception(t.message().to_string(), t.frames().to_vec()),
        Err(Error::Exit(code)) => return Outcome::Exit(code),
        Err(e) => return Outcome::LoadFailed(format!("WASM module instantiate failed: {e}")),
    };
    let result = match &opts.function {
        // WAMR runs a WASI program's `_start` and refuses a module without one.
        None if instance.get_func(&store, "_start").is_none() => {
            return Outcome::Exception(
                "lookup the entry point symbol (like _start, main, _main, __main_argc_argv) failed".into(),
                Vec::new(),
            )
        }
        None => wasi::start(&mut store, &instance).map(Some),
        Some(name) => call_function(&mut store, &instance, name, &opts.args[1..]),
    };
    match result {
        Ok(Some(code)) => Outcome::Exit(code),
        Ok(None) => Outcome::Exit(0),
        Err(Error::Exit(code)) => Outcome::Exit(code),
        Err(Error::Trap(t)) => Outcome::Exception(t.message().to_string(), t.frames().to_vec()),
        Err(e) => Outcome::Exception(e.to_string(), Vec::new()),
    }
}

/// The module in `path`: a file `iwasm compile` wrote is loaded (mapped)
/// without compiling, anything else compiled.
fn load(engine: &Engine, path: &std::path::Path) -> Result<Module, String> {
    let open_failed = |e: std::io::Error| format!("open file {} failed: {e}", path.display());
    let mut head = [0u8; 8];
    let n =
        std::io::Read::read(&mut std::fs::File::open(path).map_err(open_failed)?, &mut head).map_err(open_failed)?;
    let result = if Module::is_serialized(&head[..n]) {
        // SAFETY: the user asks to run this file, as they would a native
        // executable: its code is trusted (see `iwasm --help`). The file is
        // not changed while this process runs it.
        unsafe { Module::deserialize_file(engine, path) }
    } else {
        Module::new(engine, std::fs::read(path).map_err(open_failed)?)
    };
    result.map_err(|e| format!("WASM module load failed: {e}"))
}

/// A trap's wasm frames as WAMR's `wasm_runtime_dump_call_stack` prints
/// them: innermost first, `#NN: 0xOFFSET - NAME`, the offset from the
/// start of the module (as WAMR's interpreter gives it) and `$fINDEX`
/// for a function the name section does not name; a blank line before
/// and after. Nothing for no frames.
fn call_stack(frames: &[FrameInfo]) -> String {
    if frames.is_empty() {
        return String::new();
    }
    let mut out = String::from("\n");
    for (n, f) in frames.iter().enumerate() {
        let name = f.func_name().map_or_else(|| format!("$f{}", f.func_index()), str::to_string);
        out += &format!("#{n:02}: 0x{:04x} - {name}\n", f.module_offset());
    }
    out + "\n"
}

/// Instantiates with WASI defined, and every other imported function
/// linked to one that traps if called (WAMR instantiates such modules and
/// fails only at the call).
fn instantiate(store: &mut Store<WasiCtx>, module: &Module) -> Result<Instance, Error> {
    let mut linker = Linker::new();
    linker.define_wasi_for(&mut *store, module, |ctx: &mut WasiCtx| ctx)?;
    for import in module.imports() {
        if linker.get(&import.module, &import.name).is_none() {
            if let cranewasm::ExternType::Func(ty) = &import.ty {
                let f = Func::unlinked(&mut *store, *ty);
                linker.define(&import.module, &import.name, Extern::Func(f));
            }
        }
    }
    linker.instantiate(store, module)
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
