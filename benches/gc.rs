//! GC allocation (issue 40): binary-trees on GC structs
//! (`harness/binary_trees.wat`), printed as `RESULT binary_trees_<depth>
//! <ms> ms` lines that `benches/gc_compare.py` sets beside wasmtime's.
//! Each is the median of REPS (default 5) runs, each in a fresh store (its
//! heap freed with it: stage 2a has no collector, so a run's garbage
//! stays until then). `cargo bench --bench gc`.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::{Engine, Instance, Module, Store, StoreLimits};
use support::{median, reps};

const WAT: &str = include_str!("harness/binary_trees.wat");

/// The checksum of `run(depth)`: every tree built counted node by node.
fn expected(depth: u32) -> i32 {
    let nodes = |d: u32| (1i64 << (d + 1)) - 1;
    let mut sum = nodes(depth + 1) + nodes(depth);
    for d in (4..=depth).step_by(2) {
        sum += (1i64 << (depth - d + 4)) * nodes(d);
    }
    sum as i32
}

fn main() {
    let reps = reps(5);
    let engine = Engine::default();
    let module = Module::new(&engine, WAT).expect("module");
    for depth in [12u32, 16] {
        let samples: Vec<f64> = (0..reps)
            .map(|_| {
                let mut store = Store::new(&engine, ());
                // No collector yet: room for every node of the run.
                store.set_limiter(StoreLimits::builder().gc_heap_size(3 << 30).build());
                let instance = Instance::new(&mut store, &module, &[]).expect("instance");
                let run = instance.get_typed_func::<i32, i32>(&mut store, "run").expect("run");
                let t = Instant::now();
                let sum = run.call(&mut store, depth as i32).expect("run");
                let ms = t.elapsed().as_secs_f64() * 1e3;
                assert_eq!(sum, expected(depth), "checksum at depth {depth}");
                ms
            })
            .collect();
        println!("RESULT binary_trees_{depth} {:.2} ms", median(samples));
    }
}
