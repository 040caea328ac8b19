//! What execution control costs and how fast it acts, in one run:
//!
//! - `checks`: every kernel plainly, in a store with an epoch deadline,
//!   and compiled with fuel counting (each repetition times the three back
//!   to back, in rotating order), as ratios to the plain run and their
//!   geometric means. Each variant's time is its best of REPS: on a
//!   shared machine other work only ever slows a run down, and medians
//!   moved by 20% between identical variants;
//! - `interrupt`: the time from `InterruptHandle::interrupt` to the return
//!   of a call spinning in a loop, over many interrupts (median, p90, max);
//! - `calls`: what an interrupt handle (or an epoch deadline) adds to a
//!   host→wasm call and a wasm→host call, the only costs of stores that
//!   use them;
//! - `cache`: compiling a module against loading it from
//!   `Module::serialize`'s bytes and from a file (`deserialize_file`).
//!
//! `cargo bench --bench exec_control [checks|interrupt|cache]` (REPS,
//! default 3). `benches/exec_control_wasmtime.py` measures wasmtime's
//! epoch and fuel costs on the same kernels.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use cranewasm::{Config, Engine, Func, Instance, Module, Store, Trap};
use support::{generated_module, kernel_runner_with, kernels, median, reps, small_instance, SMALL_WAT};

fn engine(tweak: impl FnOnce(&mut Config)) -> Engine {
    let mut config = Config::new();
    tweak(&mut config);
    Engine::new(&config).expect("engine")
}

/// How a kernel's store is set up.
#[derive(Copy, Clone, PartialEq)]
enum Variant {
    Plain,
    /// `epoch_interruption`, with a deadline far away.
    Epoch,
    /// `consume_fuel`, with all the fuel.
    Fuel,
}

/// A kernel ready to run with `engine`, set up for `variant`: each call
/// times one `run(bench_n)` in milliseconds.
fn kernel(engine: &Engine, variant: Variant, name: &str, bench_n: u32) -> impl FnMut() -> f64 {
    let mut run = kernel_runner_with(engine, name, bench_n, move |store| match variant {
        Variant::Plain => {}
        Variant::Epoch => store.set_epoch_deadline(u64::MAX / 2),
        Variant::Fuel => store.set_fuel(u64::MAX).unwrap(),
    });
    move || run() / 1e6
}

fn checks(reps: usize) {
    let variants = [
        (Variant::Plain, engine(|_| {})),
        (
            Variant::Epoch,
            engine(|c| {
                c.epoch_interruption(true);
            }),
        ),
        (
            Variant::Fuel,
            engine(|c| {
                c.consume_fuel(true);
            }),
        ),
    ];
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>12} {:>12}",
        "kernel (ms)", "plain", "epoch", "fuel", "epoch/plain", "fuel/plain"
    );
    let mut logs = [Vec::new(), Vec::new()];
    for (name, bench_n) in kernels() {
        let mut runners: Vec<_> = variants.iter().map(|(v, e)| kernel(e, *v, &name, bench_n)).collect();
        let mut samples = vec![Vec::new(); runners.len()];
        for rep in 0..reps {
            for k in 0..runners.len() {
                let i = (k + rep) % runners.len();
                samples[i].push(runners[i]());
            }
        }
        let m: Vec<f64> = samples.into_iter().map(|s| s.into_iter().fold(f64::INFINITY, f64::min)).collect();
        let (epoch, fuel) = (m[1] / m[0], m[2] / m[0]);
        logs[0].push(epoch.ln());
        logs[1].push(fuel.ln());
        println!("{:<18} {:>10.1} {:>10.1} {:>10.1} {:>12.3} {:>12.3}", name, m[0], m[1], m[2], epoch, fuel);
    }
    let geomean = |l: &[f64]| (l.iter().sum::<f64>() / l.len() as f64).exp();
    println!(
        "{:<18} {:>10} {:>10} {:>10} {:>12.3} {:>12.3}",
        "geomean",
        "",
        "",
        "",
        geomean(&logs[0]),
        geomean(&logs[1])
    );
}

fn interrupt(samples: usize) {
    let engine = Engine::default();
    let module = Module::new(
        &engine,
        r#"(module (import "h" "started" (func $s)) (func (export "spin") (call $s) (loop br 0)))"#,
    )
    .unwrap();
    let started = Arc::new(AtomicBool::new(false));
    let mut store = Store::new(&engine, ());
    let flag = started.clone();
    let host = Func::wrap(&mut store, move || flag.store(true, Ordering::SeqCst));
    let instance = Instance::new(&mut store, &module, &[host.into()]).unwrap();
    let spin = instance.get_func(&store, "spin").unwrap().typed::<(), ()>(&store).unwrap();
    let handle = store.interrupt_handle();
    let store = Arc::new(Mutex::new(store));
    let mut latencies = Vec::new();
    for _ in 0..samples {
        started.store(false, Ordering::SeqCst);
        let asked: Arc<Mutex<Option<Instant>>> = Arc::default();
        let guest = {
            let (store, asked) = (store.clone(), asked.clone());
            std::thread::spawn(move || {
                let trap = spin.call(&mut *store.lock().unwrap(), ()).unwrap_err();
                let returned = Instant::now();
                assert_eq!(trap.code(), Some(Trap::Interrupt));
                returned - asked.lock().unwrap().unwrap()
            })
        };
        while !started.load(Ordering::SeqCst) {
            std::thread::yield_now();
        }
        std::thread::sleep(Duration::from_millis(1));
        *asked.lock().unwrap() = Some(Instant::now());
        handle.interrupt();
        latencies.push(guest.join().unwrap().as_secs_f64() * 1e6);
    }
    latencies.sort_by(f64::total_cmp);
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "interrupt latency over {samples} interrupts of a loop (us): median {:.1}, p90 {:.1}, p99 {:.1}, max {:.1}",
        at(0.5),
        at(0.9),
        at(0.99),
        latencies.last().unwrap()
    );
}

/// Nanoseconds per typed i32 call and per wasm→host→wasm round trip of
/// the small module, in a plain store and in one with an interrupt handle.
///
/// Times on a shared machine move by more than the difference, so the
/// difference is also counted in instructions: `CALLS_ONLY=plain|handle`
/// runs one store kind, `CALLS_N` sets the calls per repetition, and
/// `valgrind --tool=callgrind` of two `CALLS_N` per kind gives the
/// instructions per call (see benches/README.md).
fn calls(reps: usize) {
    let n: i32 = std::env::var("CALLS_N").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000);
    let only = std::env::var("CALLS_ONLY").ok();
    let engine = Engine::default();
    let module = Module::new(&engine, SMALL_WAT).expect("small.wat");
    let mut rows = Vec::new();
    for with_handle in [false, true] {
        if only.as_deref().is_some_and(|o| o != if with_handle { "handle" } else { "plain" }) {
            rows.push((f64::NAN, f64::NAN));
            continue;
        }
        let (mut store, instance) = small_instance(&engine, &module, true);
        let _handle = with_handle.then(|| store.interrupt_handle());
        let inc = instance.get_func(&store, "inc").unwrap().typed::<i32, i32>(&store).unwrap();
        let host_loop = instance.get_func(&store, "host_loop").unwrap().typed::<i32, i32>(&store).unwrap();
        let (mut call, mut host) = (Vec::new(), Vec::new());
        for _ in 0..reps.max(5) {
            let start = Instant::now();
            for i in 0..n {
                assert_eq!(inc.call(&mut store, i).unwrap(), i.wrapping_add(1));
            }
            call.push(start.elapsed().as_secs_f64() * 1e9 / f64::from(n));
            let start = Instant::now();
            assert_eq!(host_loop.call(&mut store, n).unwrap(), n);
            host.push(start.elapsed().as_secs_f64() * 1e9 / f64::from(n));
        }
        let best = |v: Vec<f64>| v.into_iter().fold(f64::INFINITY, f64::min);
        rows.push((best(call), best(host)));
    }
    println!(
        "calls (best ns): host->wasm {:.1} plain, {:.1} with an interrupt handle; wasm->host->wasm {:.1} plain, {:.1} with one",
        rows[0].0, rows[1].0, rows[0].1, rows[1].1
    );
}

/// Compiling the 537 KB module against loading it from the cache.
fn cache(reps: usize) {
    let engine = Engine::default();
    let wasm = generated_module(482);
    let module = Module::new(&engine, &wasm).expect("compile");
    let bytes = module.serialize().unwrap();
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("large-482.cwasm");
    std::fs::write(&path, &bytes).expect("write the compiled module");
    let time = |f: &mut dyn FnMut() -> Module| {
        let samples = (0..reps.max(5))
            .map(|_| {
                let start = Instant::now();
                let m = f();
                let ms = start.elapsed().as_secs_f64() * 1e3;
                drop(m);
                ms
            })
            .collect();
        median(samples)
    };
    let compile = time(&mut || Module::new(&engine, &wasm).expect("compile"));
    // SAFETY: the bytes and the file were just written from this engine.
    let from_bytes = time(&mut || unsafe { Module::deserialize(&engine, &bytes) }.expect("deserialize"));
    // SAFETY: as above.
    let from_file = time(&mut || unsafe { Module::deserialize_file(&engine, &path) }.expect("deserialize_file"));
    println!(
        "cache ({} KB module, {} KB file): compile {compile:.2} ms, deserialize {from_bytes:.3} ms ({:.0}x), \
         deserialize_file {from_file:.3} ms ({:.0}x)",
        wasm.len() / 1000,
        bytes.len() / 1000,
        compile / from_bytes,
        compile / from_file
    );
}

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let reps = reps(3);
    if wanted("checks") {
        checks(reps);
    }
    if wanted("interrupt") {
        interrupt(200 * reps);
    }
    if wanted("calls") {
        calls(reps);
    }
    if wanted("cache") {
        cache(reps);
    }
}
