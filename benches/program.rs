//! Our column of the real-program benchmark (`benches/compare.sh`, the
//! `program:` cases): a WASI program, compiled and run through the core API
//! as an embedder would, printing `RESULT` lines for `table.awk`.
//!
//!   program NAME WASM [REPS]
//!
//! After one untimed warm-up of each step it times, REPS times (default 1),
//! `Module::new` of WASM (`NAME:compile`) and instantiating it with WASI
//! defined and running `_start` (`NAME:run`). The check value is what the
//! program prints on stdout (an integer: the Lua workload's result), so a
//! run that computes something else fails the comparison.
//! `benches/program_wasmtime.py` is wasmtime's side, the same steps.
//! `INLINING=0` compiles without inlining (`Config::cranelift_inlining`),
//! to measure what it gives on a real program.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::wasi::{self, WasiCtx, WritePipe};
use cranewasm::{Engine, Linker, Module, Store};
use support::median;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|a| a != "--bench").collect();
    let [name, path, rest @ ..] = args.as_slice() else {
        eprintln!("usage: program NAME WASM [REPS]");
        std::process::exit(2);
    };
    let reps: usize = rest.first().map_or(1, |r| r.parse().expect("REPS"));
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut config = cranewasm::Config::new();
    config.cranelift_inlining(std::env::var("INLINING").map_or(true, |v| v != "0"));
    let engine = Engine::new(&config).expect("engine");

    let compile = || {
        let t = Instant::now();
        let module = Module::new(&engine, &bytes).expect("compile");
        (module, t.elapsed().as_secs_f64() * 1e3)
    };
    let run = |module: &Module| {
        let (out, err) = (WritePipe::new(), WritePipe::new());
        let ctx = WasiCtx::builder().arg(name.as_str()).stdout(out.clone()).stderr(err.clone()).build().unwrap();
        let mut store = Store::new(&engine, ctx);
        let mut linker = Linker::new();
        linker.define_wasi_for(&mut store, module, |c: &mut WasiCtx| c).expect("define_wasi");
        let t = Instant::now();
        let instance = linker.instantiate(&mut store, module).expect("instantiate");
        let status = wasi::start(&mut store, &instance);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        if !matches!(status, Ok(0)) {
            eprint!("{}", String::from_utf8_lossy(&err.contents()));
            panic!("{name} failed: {status:?}");
        }
        let text = String::from_utf8(out.contents()).expect("utf-8 output");
        let check: u64 = text.trim().parse().unwrap_or_else(|_| panic!("{name} printed {text:?}, not an integer"));
        (check, ms)
    };

    let (module, _) = compile();
    let (first, _) = run(&module);
    let mut compile_ms = Vec::new();
    let mut run_ms = Vec::new();
    for _ in 0..reps {
        let (module, ms) = compile();
        compile_ms.push(ms);
        let (check, ms) = run(&module);
        assert_eq!(check, first, "{name}: output changed between runs");
        run_ms.push(ms);
    }
    println!("RESULT {name}:compile {:.6} ms {}", median(compile_ms), bytes.len());
    println!("RESULT {name}:run {:.6} ms {first}", median(run_ms));
}
