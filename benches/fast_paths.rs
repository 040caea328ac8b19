//! Every switchable fast path of the runtime, measured with and without it
//! in one run: the "before and after" of each, on the same machine at the
//! same time.
//!
//! `cargo bench --bench fast_paths [FILTER...]` (REPS, default 3) prints one
//! row per case: the median time with the fast path, without it, and the
//! ratio (below 1 means the fast path wins), then the geometric mean of the
//! ratios of each fast path. FILTER matches fast-path or case names. In each
//! repetition every row times both variants back to back, alternating which
//! goes first, so machine load drifts over both alike.

mod support;

use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Instant;

use cranewasm::{BoundsChecks, Config, Engine, Instance, Module, Regalloc, Store, Val};
use support::{generated_module, kernel_runner, kernels, median, small_instance, SMALL_WAT};

/// One measurement: each call times one sample, in `unit`.
type Sampler = Box<dyn FnMut() -> f64>;

struct Row {
    fast_path: &'static str,
    case: String,
    unit: &'static str,
    with: Sampler,
    without: Sampler,
}

fn engine(tweak: impl FnOnce(&mut Config)) -> Engine {
    let mut config = Config::new();
    tweak(&mut config);
    Engine::new(&config).expect("engine")
}

/// The module of the instantiate_64mib case, written by compare.sh's
/// generator `benches/gen_data_module.py`.
fn data_module() -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("data.wasm");
    if !path.exists() {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen_data_module.py");
        let status = std::process::Command::new("python3").arg(script).arg(&path).status().expect("run python3");
        assert!(status.success(), "gen_data_module.py failed");
    }
    std::fs::read(path).expect("generated module")
}

fn compile_sampler(engine: Engine, bytes: std::rc::Rc<Vec<u8>>) -> Sampler {
    Box::new(move || {
        let start = Instant::now();
        black_box(Module::new(&engine, bytes.as_slice()).expect("compile"));
        start.elapsed().as_secs_f64() * 1e3
    })
}

/// Nanoseconds per store + instantiation + teardown of the small module.
fn instantiate_sampler(engine: Engine) -> Sampler {
    let module = Module::new(&engine, SMALL_WAT).expect("small.wat");
    Box::new(move || {
        const N: u32 = 200;
        let start = Instant::now();
        for _ in 0..N {
            black_box(small_instance(&engine, &module, true));
        }
        start.elapsed().as_secs_f64() * 1e6 / f64::from(N)
    })
}

/// Microseconds per instantiation of the data module (64 MiB of memory, 1
/// MiB of data in 16 segments), after a first one outside the timing; with
/// `teardown`, the store's creation and drop (which releases the memory)
/// are timed too.
fn instantiate_data_sampler(engine: Engine, teardown: bool) -> Sampler {
    let module = Module::new(&engine, data_module()).expect("data module");
    Instance::new(&mut Store::new(&engine, ()), &module, &[]).expect("instantiate");
    Box::new(move || {
        const N: u32 = 50;
        let mut total = 0.0;
        for _ in 0..N {
            let start = Instant::now();
            let mut store = Store::new(&engine, ());
            let t = Instant::now();
            black_box(Instance::new(&mut store, &module, &[]).expect("instantiate"));
            let instantiate = t.elapsed();
            drop(store);
            total += if teardown { start.elapsed() } else { instantiate }.as_secs_f64();
        }
        total * 1e6 / f64::from(N)
    })
}

const CALLS: u32 = 1_000_000;

/// Nanoseconds per host→wasm call of `inc`, typed or through `Val`s.
fn call_sampler(engine: &Engine, typed: bool) -> Sampler {
    let module = Module::new(engine, SMALL_WAT).expect("small.wat");
    let (mut store, instance) = small_instance(engine, &module, true);
    let inc = instance.get_func(&store, "inc").expect("inc");
    let typed_inc = inc.typed::<i32, i32>(&store).expect("inc: i32 -> i32");
    Box::new(move || {
        let start = Instant::now();
        for i in 0..CALLS as i32 {
            let result = if typed {
                typed_inc.call(&mut store, i).expect("call")
            } else {
                let mut results = [Val::I32(0)];
                inc.call(&mut store, &[Val::I32(i)], &mut results).expect("call");
                results[0].i32().unwrap()
            };
            assert_eq!(result, i.wrapping_add(1));
        }
        start.elapsed().as_secs_f64() * 1e9 / f64::from(CALLS)
    })
}

/// Nanoseconds per wasm→host→wasm call, the host function raw or `Val`-based.
fn host_sampler(engine: &Engine, raw: bool) -> Sampler {
    let module = Module::new(engine, SMALL_WAT).expect("small.wat");
    let (mut store, instance) = small_instance(engine, &module, raw);
    let host_loop =
        instance.get_func(&store, "host_loop").expect("host_loop").typed::<i32, i32>(&store).expect("host_loop type");
    Box::new(move || {
        let start = Instant::now();
        assert_eq!(host_loop.call(&mut store, CALLS as i32).expect("host_loop"), CALLS as i32);
        start.elapsed().as_secs_f64() * 1e9 / f64::from(CALLS)
    })
}

fn rows(wanted: impl Fn(&str, &str) -> bool) -> Vec<Row> {
    let mut rows = Vec::new();
    let default = engine(|_| {});
    let mut push = |fast_path, case: &str, unit, with: &dyn Fn() -> Sampler, without: &dyn Fn() -> Sampler| {
        if wanted(fast_path, case) {
            rows.push(Row { fast_path, case: case.to_string(), unit, with: with(), without: without() });
        }
    };

    // Code generation: each switch against the default engine, per kernel.
    let code_switches: [(&str, Engine); 9] = [
        (
            "guard pages (vs explicit bounds checks)",
            engine(|c| {
                c.bounds_checks(BoundsChecks::Explicit);
            }),
        ),
        (
            "cranelift opt_level=speed (vs none)",
            engine(|c| {
                c.cranelift_optimize(false);
            }),
        ),
        (
            "module analyses (vs none)",
            engine(|c| {
                c.module_analyses(false);
            }),
        ),
        (
            "inlining (vs none)",
            engine(|c| {
                c.cranelift_inlining(false);
            }),
        ),
        (
            "widened loads (vs a movl per extension)",
            engine(|c| {
                c.widen_loads(false);
            }),
        ),
        (
            "loop passes (vs none)",
            engine(|c| {
                c.loop_passes(false);
            }),
        ),
        (
            "address steps in 64 bits (vs 32-bit adds)",
            engine(|c| {
                c.address_steps(false);
            }),
        ),
        (
            "multiplications by constants as lea and shifts (vs imul)",
            engine(|c| {
                c.mul_consts(false);
            }),
        ),
        (
            "backtracking regalloc (vs single_pass)",
            engine(|c| {
                c.cranelift_regalloc(Regalloc::SinglePass);
            }),
        ),
    ];
    for (fast_path, without) in &code_switches {
        for (name, bench_n) in kernels() {
            let kernel_ms = |engine: &Engine| -> Sampler {
                let mut run = kernel_runner(engine, &name, bench_n);
                Box::new(move || run() / 1e6)
            };
            push(fast_path, &format!("kernel:{name}"), "ms", &|| kernel_ms(&default), &|| kernel_ms(without));
        }
    }

    // Compile time: what the code-generation choices cost, and parallelism.
    let serial = engine(|c| {
        c.parallel_compilation(false);
    });
    let compile_switches: Vec<(&str, &Engine)> =
        code_switches.iter().map(|(p, e)| (*p, e)).chain([("parallel compilation (vs serial)", &serial)]).collect();
    // Generated only if some row will compile it (a filter may name the
    // fast path, not the case).
    let compiles_large =
        wanted("", "compile_large") || compile_switches.iter().any(|(p, _)| wanted(p, "compile_large"));
    let large = std::rc::Rc::new(if compiles_large { generated_module(4000) } else { Vec::new() });
    // The real program of compare.sh, when it has been built there.
    let lua = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/build/lua/lua.wasm");
    let lua = std::rc::Rc::new(std::fs::read(lua).ok());
    for &(fast_path, without) in &compile_switches {
        push(fast_path, "compile_large", "ms", &|| compile_sampler(default.clone(), large.clone()), &|| {
            compile_sampler(without.clone(), large.clone())
        });
        if let Some(lua) = &*lua {
            let lua = std::rc::Rc::new(lua.clone());
            push(fast_path, "lua:compile", "ms", &|| compile_sampler(default.clone(), lua.clone()), &|| {
                compile_sampler(without.clone(), lua.clone())
            });
        }
    }

    // Instantiation: reusing memory reservations.
    let no_pool = engine(|c| {
        c.memory_pool_capacity(0);
    });
    push(
        "memory reservation pool (vs none)",
        "instantiate_small",
        "us",
        &|| instantiate_sampler(default.clone()),
        &|| instantiate_sampler(no_pool.clone()),
    );

    // Instantiation: data segments from a memory image.
    let no_images = engine(|c| {
        c.memory_images(false);
    });
    for (case, teardown) in [("instantiate_64mib", false), ("instantiate_64mib+drop", true)] {
        push(
            "memory images (vs copying segments)",
            case,
            "us",
            &|| instantiate_data_sampler(default.clone(), teardown),
            &|| instantiate_data_sampler(no_images.clone(), teardown),
        );
    }

    // Calls: the typed and raw paths of the Rust API against the `Val` ones.
    push("typed call (vs Func::call with Vals)", "call_i32", "ns/call", &|| call_sampler(&default, true), &|| {
        call_sampler(&default, false)
    });
    push(
        "raw host function (vs Func::new with Vals)",
        "host_roundtrip",
        "ns/call",
        &|| host_sampler(&default, true),
        &|| host_sampler(&default, false),
    );
    rows
}

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let reps = support::reps(3);
    let wanted = |fast_path: &str, case: &str| {
        filters.is_empty() || filters.iter().any(|f| fast_path.contains(f.as_str()) || case.contains(f.as_str()))
    };
    let mut rows = rows(wanted);
    let mut samples: Vec<(Vec<f64>, Vec<f64>)> = rows.iter().map(|_| Default::default()).collect();
    for rep in 0..reps {
        for (row, (with, without)) in rows.iter_mut().zip(&mut samples) {
            if rep % 2 == 0 {
                with.push((row.with)());
                without.push((row.without)());
            } else {
                without.push((row.without)());
                with.push((row.with)());
            }
        }
    }

    println!(
        "{:<44} {:<18} {:<8} {:>10} {:>10} {:>13}",
        "fast path", "case", "unit", "with", "without", "with/without"
    );
    // Kernel ratios of one fast path, for its geometric mean.
    let mut kernel_logs: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (row, (with, without)) in rows.iter().zip(samples) {
        let (with, without) = (median(with), median(without));
        println!(
            "{:<44} {:<18} {:<8} {:>10.3} {:>10.3} {:>13.3}",
            row.fast_path,
            row.case,
            row.unit,
            with,
            without,
            with / without
        );
        if row.case.starts_with("kernel:") {
            kernel_logs.entry(row.fast_path).or_default().push((with / without).ln());
        }
    }
    for (fast_path, logs) in kernel_logs {
        let geomean = (logs.iter().sum::<f64>() / logs.len() as f64).exp();
        println!("{:<44} {:<18} {:<8} {:>10} {:>10} {:>13.3}", fast_path, "geomean (kernels)", "", "", "", geomean);
    }
}
