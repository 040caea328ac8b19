//! Exception costs, printed as `RESULT <case> <ns> ns` lines that
//! `benches/exceptions_compare.py` sets beside wasmtime's:
//!
//! - `plain_call` and `call_in_try_table`: a small function called in a
//!   loop, outside and inside a `try_table` (inlining off for both, so
//!   that the plain call stays a call): the handler must cost nothing;
//! - `plain_call_inlined` and `call_in_try_table_inlined`: the same with
//!   the default configuration, where the callee is inlined in both;
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
    let reps = reps(7);
    let mut without_inlining = Config::new();
    without_inlining.cranelift_inlining(false);
    let runs: [(&Config, &str, &[(&str, i32)]); 2] = [
        (
            &without_inlining,
            "",
            &[
                ("plain_call", 20_000_000),
                ("call_in_try_table", 20_000_000),
                ("throw_catch_1", 200_000),
                ("throw_catch_10", 200_000),
            ],
        ),
        (&Config::new(), "_inlined", &[("plain_call", 20_000_000), ("call_in_try_table", 20_000_000)]),
    ];
    for (config, suffix, cases) in runs {
        let engine = Engine::new(config).expect("engine");
        let module = Module::new(&engine, WAT).expect("module");
        let mut store = Store::new(&engine, ());
        let instance = Instance::new(&mut store, &module, &[]).expect("instance");
        for &(case, n) in cases {
            let f = instance.get_func(&store, case).unwrap().typed::<i32, i32>(&store).unwrap();
            f.call(&mut store, n / 10).expect("warm-up");
            let samples: Vec<f64> = (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    f.call(&mut store, n).expect("run");
                    t.elapsed().as_secs_f64() * 1e9 / n as f64
                })
                .collect();
            println!("RESULT {case}{suffix} {:.3} ns", median(samples));
        }
    }
}
