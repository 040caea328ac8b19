//! GC costs (issue 40), printed as `RESULT <case> <value> <unit> <check>`
//! lines that `benches/gc_compare.py` sets beside wasmtime's collector.
//! The module is `benches/harness/gc.wat`; each case is one call:
//!
//! - `binary_trees` (depth `GC_DEPTH`, default 16): allocation-heavy;
//!   also `binary_trees_rss`, how far the first call raised peak resident
//!   memory above what it was before the call (KiB);
//! - `dispatch` (10 M calls): a virtual call through a struct field, a
//!   downcast to a final type in the callee, and a test against a
//!   non-final type;
//! - `array_fill_copy` (2,000 rounds of 64 Ki elements).
//!
//! - `gc_pause_64mib`: the longest of 3 full collections of a store whose
//!   live heap is a list of 2,796,203 nodes (64 MiB at our 24 bytes a
//!   node; wasmtime's nodes are smaller), held by a global.
//!
//! Times are ms, the median of REPS (default 5) calls after the first,
//! each in a fresh store.
//! `cargo bench --bench gc`.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::{Engine, Instance, Module, Store};
use support::{median, reps};

const WAT: &str = include_str!("harness/gc.wat");

fn main() {
    let reps = reps(5);
    let depth: i32 = std::env::var("GC_DEPTH").ok().and_then(|d| d.parse().ok()).unwrap_or(16);
    let engine = Engine::default();
    let module = Module::new(&engine, WAT).expect("module");
    for (case, n) in [("binary_trees", depth), ("dispatch", 10_000_000), ("array_fill_copy", 2000)] {
        // Each call in a store of its own (made outside the timing): with
        // no collector yet (issue 40 stage 2a), garbage stays until its
        // store goes. The wasmtime side does the same.
        let call = || {
            let mut store = Store::new(&engine, ());
            let instance = Instance::new(&mut store, &module, &[]).expect("instance");
            let f = instance.get_func(&store, case).unwrap().typed::<i32, i64>(&store).unwrap();
            let t = Instant::now();
            let check = f.call(&mut store, n).expect("run");
            (check, t.elapsed().as_secs_f64() * 1e3)
        };
        let before = reset_peak_rss();
        let (check, _) = call();
        if case == "binary_trees" {
            println!("RESULT {case}_rss {} KiB {check}", status_kib("VmHWM:") - before);
        }
        let samples: Vec<f64> = (0..reps)
            .map(|_| {
                let (again, ms) = call();
                assert_eq!(again, check, "{case}: check value changed");
                ms
            })
            .collect();
        println!("RESULT {case} {:.3} ms {check}", median(samples));
    }
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).expect("instance");
    let f = instance.get_func(&store, "live_list").unwrap().typed::<i32, i32>(&store).unwrap();
    assert_eq!(f.call(&mut store, LIVE_NODES).expect("live_list"), LIVE_NODES);
    let longest = (0..3)
        .map(|_| {
            let t = Instant::now();
            store.gc();
            t.elapsed().as_secs_f64() * 1e3
        })
        .fold(0.0, f64::max);
    assert_eq!(store.gc_stats().live_bytes, 24 * LIVE_NODES as u64, "the list is what is live");
    println!("RESULT gc_pause_64mib {longest:.3} ms {LIVE_NODES}");
}

/// Nodes of the list whose collection `gc_pause_64mib` times.
const LIVE_NODES: i32 = (64 << 20) / 24 + 1;

/// Resets the process's peak resident size to its current one (Linux:
/// `clear_refs` 5) and returns that, in KiB.
fn reset_peak_rss() -> i64 {
    std::fs::write("/proc/self/clear_refs", "5").expect("reset the peak RSS");
    status_kib("VmRSS:")
}

fn status_kib(field: &str) -> i64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let line = status.lines().find(|l| l.starts_with(field)).expect(field);
    line[field.len()..].trim().trim_end_matches("kB").trim().parse().expect("a size in kB")
}
