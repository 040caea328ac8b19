//! Atomic counters on a shared memory, printed as `RESULT <case> <value>
//! <unit>` lines that `benches/atomics_compare.py` sets beside wasmtime's:
//!
//! - `uncontended`: one thread, one counter;
//! - `contended_2`: two threads (one store each) incrementing one counter;
//! - `separate_2`: two threads, each its own counter on its own cache line.
//!
//! Each is wall time per increment (all threads' increments together).
//! `cargo bench --bench atomics`; REPS (default 7) repetitions, median.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::sync::{Arc, Barrier};
use std::time::Instant;

use cranewasm::{Engine, Instance, MemoryType, Module, SharedMemory, Store, TypedFunc};
use support::{median, reps};

const COUNTER: &str = include_str!("harness/atomics.wat");
/// Increments per thread and repetition.
const N: i32 = 10_000_000;

/// One thread's instance over the shared memory.
fn adder(module: &Module, memory: &SharedMemory) -> (Store<()>, TypedFunc<(i32, i32), i32>) {
    let mut store = Store::new(module.engine(), ());
    let m = memory.to_memory(&mut store).expect("memory");
    let instance = Instance::new(&mut store, module, &[m.into()]).expect("instantiate");
    let add = instance.get_func(&store, "add").unwrap().typed(&store).unwrap();
    (store, add)
}

/// Median ns per increment of threads incrementing the counters at
/// `addrs` (one thread each) N times, started together.
fn run(module: &Module, addrs: &[i32], reps: usize) -> f64 {
    let samples = (0..=reps)
        .map(|_| {
            let memory = SharedMemory::new(module.engine(), MemoryType::shared(1, 1)).expect("shared memory");
            let start = Arc::new(Barrier::new(addrs.len() + 1));
            let threads: Vec<_> = addrs
                .iter()
                .map(|&addr| {
                    let (module, memory, start) = (module.clone(), memory.clone(), start.clone());
                    std::thread::spawn(move || {
                        let (mut store, add) = adder(&module, &memory);
                        start.wait();
                        add.call(&mut store, (addr, N)).expect("add")
                    })
                })
                .collect();
            start.wait();
            let t = Instant::now();
            let finals: Vec<i32> = threads.into_iter().map(|t| t.join().unwrap()).collect();
            let ns = t.elapsed().as_secs_f64() * 1e9 / (N as f64 * addrs.len() as f64);
            // Every increment landed: the last thread to finish on a counter
            // sees all of them.
            let sharing = |a: i32| addrs.iter().filter(|x| **x == a).count() as i32;
            for (addr, last) in addrs.iter().zip(&finals) {
                assert!(*last <= N * sharing(*addr));
            }
            assert!(addrs.iter().zip(&finals).any(|(a, last)| *last == N * sharing(*a)), "an increment was lost");
            ns
        })
        .skip(1) // warm-up
        .collect();
    median(samples)
}

fn main() {
    let engine = Engine::default();
    let module = Module::new(&engine, COUNTER).expect("counter module");
    let reps = reps(7);
    for (case, addrs) in [("uncontended", &[0][..]), ("contended_2", &[0, 0]), ("separate_2", &[0, 128])] {
        println!("RESULT {case} {:.3} ns/increment", run(&module, addrs, reps));
    }
}
