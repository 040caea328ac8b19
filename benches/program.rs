//! The real programs (`benches/programs/build.sh`) through the core API,
//! for what the C API cannot switch: `benches/ab.py` runs it with and
//! without a `Config` choice, and it measures lazy compilation.
//! (`benches/compare.sh`'s own column for them is `harness/program.c`
//! through `wasm_export.h`.)
//!
//!   program NAME WASM [REPS]
//!
//! After one untimed warm-up of each step it times, REPS times (default 1),
//! `Module::new` of WASM (`NAME:compile`) and instantiating it with WASI
//! defined and running `_start` (`NAME:run`). The check value is what the
//! program prints on stdout (an integer), so a run that computes something
//! else fails the comparison.
//!
//! Two more rows, for lazy compilation (`CRANEWASM_LAZY=1` runs it all
//! lazily): `NAME:first_call`, from `Module::new` through instantiating
//! with every import a host function that stops the program, to that
//! first import call (the program's code up to its first system call is
//! compiled and has run); and `NAME:rerun`, `_start` again on a module
//! that has run once (lazily, every function the workload needs is
//! compiled by then: the steady state).
//! Switches, each `=0` to turn a fast path off: `INLINING`
//! (`Config::cranelift_inlining`), `MULC` (`Config::mul_consts`),
//! `ADDRESS_STEPS` (`Config::address_steps`), `LOOP_PASSES`
//! (`Config::loop_passes`), `WIDEN_LOADS` (`Config::widen_loads`),
//! `MODULE_ANALYSES` (`Config::module_analyses`).
//!
//! `COMPILE_ONLY=1` only compiles, REPS times, and prints the compile row:
//! for counting the compiler's instructions (`perf stat -e instructions:u`),
//! which a loaded machine does not blur as it blurs time.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::wasi::{self, WasiCtx, WritePipe};
use cranewasm::{Engine, ExternType, Func, Instance, Linker, Module, Store, TrapError};
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
    let on = |switch: &str| std::env::var(switch).map_or(true, |v| v != "0");
    config.cranelift_inlining(on("INLINING"));
    config.mul_consts(on("MULC"));
    config.address_steps(on("ADDRESS_STEPS"));
    config.loop_passes(on("LOOP_PASSES"));
    config.widen_loads(on("WIDEN_LOADS"));
    config.module_analyses(on("MODULE_ANALYSES"));
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
        let mut linker = Linker::new(store.engine());
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

    let first_call = || {
        let t = Instant::now();
        let module = Module::new(&engine, &bytes).expect("compile");
        let mut store = Store::new(&engine, ());
        let imports: Vec<_> = module
            .imports()
            .map(|i| match i.ty {
                ExternType::Func(ty) => Func::new(&mut store, ty, |_, _, _| Err(TrapError::new("first call"))).into(),
                other => panic!("{name} imports a {}", other.kind_name()),
            })
            .collect();
        let instance = Instance::new(&mut store, &module, &imports).expect("instantiate");
        let start = instance.get_func(&store, "_start").expect("_start");
        let trap = start.call(&mut store, &[], &mut []).expect_err("stops at its first import call");
        assert!(matches!(&trap, cranewasm::Error::Trap(t) if t.message() == "first call"), "{name}: {trap}");
        (t.elapsed().as_secs_f64() * 1e3, module.lazily_compiled_functions())
    };

    if std::env::var("COMPILE_ONLY").is_ok_and(|v| v == "1") {
        let compile_ms: Vec<f64> = (0..reps.max(1)).map(|_| compile().1).collect();
        println!("RESULT {name}:compile {:.6} ms {}", median(compile_ms), bytes.len());
        return;
    }
    let (module, _) = compile();
    let (first, _) = run(&module);
    if let (Some(workload), (_, Some(first_call))) = (module.lazily_compiled_functions(), first_call()) {
        eprintln!("{name}: lazily compiled {first_call} functions to the first call, {workload} in the workload");
    }
    let mut compile_ms = Vec::new();
    let mut run_ms = Vec::new();
    let mut rerun_ms = Vec::new();
    let mut first_call_ms = Vec::new();
    for _ in 0..reps {
        let (module, ms) = compile();
        compile_ms.push(ms);
        let (check, ms) = run(&module);
        assert_eq!(check, first, "{name}: output changed between runs");
        run_ms.push(ms);
        let (check, ms) = run(&module);
        assert_eq!(check, first, "{name}: output changed between runs");
        rerun_ms.push(ms);
        first_call_ms.push(first_call().0);
    }
    println!("RESULT {name}:compile {:.6} ms {}", median(compile_ms), bytes.len());
    println!("RESULT {name}:run {:.6} ms {first}", median(run_ms));
    println!("RESULT {name}:rerun {:.6} ms {first}", median(rerun_ms));
    println!("RESULT {name}:first_call {:.6} ms 0", median(first_call_ms));
}
