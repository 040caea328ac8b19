//! Exception costs, printed as `RESULT <case> <ns> ns` lines that
//! `benches/exceptions_compare.py` sets beside wasmtime's:
//!
//! - `plain_call` and `call_in_try_table`: a small function called in a
//!   loop, outside and inside a `try_table` (inlining off for both, so
//!   that the plain call stays a call): the handler must cost nothing;
//! - `throw_catch_1` and `throw_catch_10`: an exception thrown 1 and 10
//!   frames below its handler and caught.
//!
//! Each is ns per iteration, the median of REPS (default 7) runs.
//! `cargo bench --bench exceptions`.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::{Config, Engine, Instance, Module, Store};
use support::{median, reps};

const WAT: &str = include_str!("harness/exceptions.wat");

fn main() {
    let mut config = Config::new();
    config.cranelift_inlining(false);
    let engine = Engine::new(&config).expect("engine");
    let module = Module::new(&engine, WAT).expect("module");
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).expect("instance");
    let cases = [
        ("plain_call", 20_000_000),
        ("call_in_try_table", 20_000_000),
        ("throw_catch_1", 200_000),
        ("throw_catch_10", 200_000),
    ];
    let reps = reps(7);
    for (case, n) in cases {
        let f = instance.get_func(&store, case).unwrap().typed::<i32, i32>(&store).unwrap();
        f.call(&mut store, n / 10).expect("warm-up");
        let samples: Vec<f64> = (0..reps)
            .map(|_| {
                let t = Instant::now();
                f.call(&mut store, n).expect("run");
                t.elapsed().as_secs_f64() * 1e9 / n as f64
            })
            .collect();
        println!("RESULT {case} {:.3} ns", median(samples));
    }
}
