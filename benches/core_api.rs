//! Micro benchmarks of the core Rust API: the fixed costs that the C API and
//! every embedder pay on top of the generated code; then the compute kernels
//! (`kernel:NAME`), which give our generated-code numbers without the C layer.
//!
//! `cargo bench --bench core_api [FILTER...]` prints one line per case with
//! the median of REPS (default 7) repetitions. Plain timing, no framework:
//! the numbers are comparable with the C harness's overhead cases
//! (`benches/harness/bench.c`), which use the same small module.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::hint::black_box;
use std::time::Instant;

use cranewasm::{Engine, Func, Instance, Module, Store, Val};
use support::{host_inc, kernel_runner, kernels, median, small_instance, SMALL_WAT};

/// Times `reps` repetitions of `body`, which does `per_rep` operations, and
/// returns the median cost of one operation in nanoseconds.
fn median_ns(reps: usize, per_rep: u32, mut body: impl FnMut()) -> f64 {
    median(
        (0..reps)
            .map(|_| {
                let start = Instant::now();
                body();
                start.elapsed().as_secs_f64() * 1e9 / f64::from(per_rep)
            })
            .collect(),
    )
}

fn call_i32(func: &Func, store: &mut Store<()>, arg: i32) -> i32 {
    let mut result = [Val::I32(0)];
    func.call(&mut *store, &[Val::I32(arg)], &mut result).expect("call");
    result[0].i32().unwrap()
}

/// Times 10⁶ calls of the small module's `inc` through `call` per
/// repetition, checking every result; nanoseconds per call.
fn time_inc_calls(reps: usize, mut call: impl FnMut(i32) -> i32) -> f64 {
    const N: u32 = 1_000_000;
    let mut sum = 0u64;
    let ns = median_ns(reps, N, || {
        for i in 0..N as i32 {
            sum = sum.wrapping_add(call(i) as u32 as u64);
        }
    });
    assert_eq!(sum, reps as u64 * (u64::from(N) * (u64::from(N) + 1) / 2), "inc returned wrong values");
    ns
}

fn main() {
    let filters: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let reps = support::reps(7);
    let wanted = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f.as_str()));
    let report = |name: &str, value: f64, unit: &str| println!("core_api/{name:<22} {value:>12.2} {unit}");

    let engine = Engine::default();
    let small_bytes = wat::parse_str(SMALL_WAT).expect("small.wat");
    let module = Module::new(&engine, &small_bytes).expect("compile small module");

    if wanted("compile_small") {
        const N: u32 = 50;
        let ns = median_ns(reps, N, || {
            for _ in 0..N {
                black_box(Module::new(&engine, &small_bytes).expect("compile"));
            }
        });
        report("compile_small", ns / 1e3, "us/compile");
    }

    if wanted("instantiate_small") {
        // A fresh store per repetition: instances live as long as their store.
        const N: u32 = 100;
        let mut samples = Vec::new();
        for _ in 0..reps {
            let mut store = Store::new(&engine, ());
            let host = host_inc(&mut store, true);
            let start = Instant::now();
            for _ in 0..N {
                black_box(Instance::new(&mut store, &module, &[host.into()]).expect("instantiate"));
            }
            samples.push(start.elapsed().as_secs_f64() * 1e9 / f64::from(N));
        }
        report("instantiate_small", median(samples) / 1e3, "us/instance");
    }

    if wanted("call_i32") {
        let (mut store, instance) = small_instance(&engine, &module, true);
        let inc = instance.get_func(&store, "inc").expect("inc");
        report("call_i32", time_inc_calls(reps, |i| call_i32(&inc, &mut store, i)), "ns/call");
    }

    if wanted("call_i32_typed") {
        let (mut store, instance) = small_instance(&engine, &module, true);
        let inc = instance.get_func(&store, "inc").expect("inc").typed::<i32, i32>(&store).expect("i32 -> i32");
        report("call_i32_typed", time_inc_calls(reps, |i| inc.call(&mut store, i).expect("call")), "ns/call");
    }

    for (name, raw) in [("host_roundtrip", false), ("host_roundtrip_raw", true)] {
        if !wanted(name) {
            continue;
        }
        const N: u32 = 1_000_000;
        let (mut store, instance) = small_instance(&engine, &module, raw);
        let host_loop = instance.get_func(&store, "host_loop").expect("host_loop");
        let ns = median_ns(reps, N, || {
            assert_eq!(call_i32(&host_loop, &mut store, N as i32), N as i32, "host_loop count");
        });
        report(name, ns, "ns/call");
    }

    if wanted("memory_data") {
        // As the C harness's case: base and size looked up around every byte
        // the host touches, as a host function that does not cache them would.
        const N: u32 = 4_000_000;
        let (mut store, instance) = small_instance(&engine, &module, true);
        let memory = instance.get_memory(&store, "memory").expect("memory");
        let mut check = 0u64;
        let ns = median_ns(reps, N, || {
            for i in 0..N {
                let data = memory.data_ptr(&store);
                let size = memory.data_size(&store);
                let at = (i.wrapping_mul(2_654_435_761) & 0xffff) as usize;
                assert!(at < size, "memory smaller than one page");
                // SAFETY: `at` is within the memory's accessible size, and
                // nothing else uses the store meanwhile.
                unsafe {
                    *data.add(at) = (*data.add(at)).wrapping_add(1);
                    check = check.wrapping_add(u64::from(*data.add(at)));
                }
            }
        });
        black_box(check);
        let load = instance.get_func(&store, "load").expect("load").typed::<i32, i32>(&store).expect("load type");
        assert_eq!(load.call(&mut store, 0).expect("load") as u8, memory.data(&store)[0], "wasm and host disagree");
        report("memory_data", ns, "ns/access");
    }

    // The compute kernels at their benchmark sizes, as compare.sh runs them
    // through the C API (one untimed warm-up call, then REPS timed calls).
    for (name, bench_n) in kernels() {
        let case = format!("kernel:{name}");
        if !wanted(&case) {
            continue;
        }
        let mut run = kernel_runner(&engine, &name, bench_n);
        let ns = median((0..reps).map(|_| run()).collect());
        report(&case, ns / 1e6, "ms");
    }
}
