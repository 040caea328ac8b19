//! WASI costs of the core, printed as `RESULT <case> <value> <unit>` lines
//! that `benches/wasi_compare.py` sets beside wasmtime's (and that read
//! well alone): one `fd_write` of 16 bytes to an in-memory capture pipe and
//! to `/dev/null`, one `clock_time_get`, and loading, compiling,
//! instantiating and running a hello-world program in-process, as `iwasm`
//! does (`WASI_HELLO` names its `.wasm`; skipped when unset).
//!
//! `cargo bench --bench wasi`; REPS (default 7) repetitions, median.

#[allow(dead_code, reason = "the shared helpers serve the other benches")]
mod support;

use std::time::Instant;

use cranewasm::wasi::{self, WasiCtx, WritePipe};
use cranewasm::{Engine, Linker, Module, Store, TypedFunc};
use support::{median, reps};

const CALLS: &str = include_str!("harness/wasi_calls.wat");
const N: i32 = 200_000;

/// An instance of the calls module whose stdout goes where `ctx` says.
fn calls(engine: &Engine, ctx: WasiCtx) -> (Store<WasiCtx>, TypedFunc<i32, i32>, TypedFunc<i32, i32>) {
    let module = Module::new(engine, CALLS).expect("calls module");
    let mut store = Store::new(engine, ctx);
    let mut linker = Linker::new(store.engine());
    linker.define_wasi(&mut store, |c: &mut WasiCtx| c).expect("define_wasi");
    let instance = linker.instantiate(&mut store, &module).expect("instantiate");
    let write = instance.get_func(&store, "write").unwrap().typed(&store).unwrap();
    let now = instance.get_func(&store, "now").unwrap().typed(&store).unwrap();
    (store, write, now)
}

/// Median ns per call of `f(N)` over `reps` runs; `between` runs after each.
fn per_call(reps: usize, mut f: impl FnMut(i32) -> i32, mut between: impl FnMut()) -> f64 {
    f(N);
    between();
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                assert_eq!(f(N), 0, "a WASI call failed");
                let ns = t.elapsed().as_secs_f64() * 1e9 / f64::from(N);
                between();
                ns
            })
            .collect(),
    )
}

fn main() {
    let reps = reps(7);
    let engine = Engine::default();

    let pipe = WritePipe::new();
    let (mut store, write, now) = calls(&engine, WasiCtx::builder().stdout(pipe.clone()).build().unwrap());
    // The pipe is emptied (keeping its capacity) between runs, as a
    // program reading its guest's output would.
    let ns = per_call(reps, |n| write.call(&mut store, n).unwrap(), || pipe.clear());
    println!("RESULT fd_write_pipe {ns:.1} ns/call");
    let ns = per_call(reps, |n| now.call(&mut store, n).unwrap(), || {});
    println!("RESULT clock_time_get {ns:.1} ns/call");

    let (mut store, write, _) = calls(&engine, null_stdout());
    let ns = per_call(reps, |n| write.call(&mut store, n).unwrap(), || {});
    println!("RESULT fd_write_devnull {ns:.1} ns/call");

    if let Ok(path) = std::env::var("WASI_HELLO") {
        let bytes = std::fs::read(&path).expect("WASI_HELLO");
        let out = WritePipe::new();
        let ms = median(
            (0..reps)
                .map(|_| {
                    let t = Instant::now();
                    // A fresh engine each time, as a new process has.
                    let engine = Engine::default();
                    let module = Module::new(&engine, &bytes).unwrap();
                    let ctx = WasiCtx::builder().arg("hello").stdout(out.clone()).build().unwrap();
                    let mut store = Store::new(&engine, ctx);
                    let mut linker = Linker::new(store.engine());
                    linker.define_wasi_for(&mut store, &module, |c: &mut WasiCtx| c).unwrap();
                    let instance = linker.instantiate(&mut store, &module).unwrap();
                    assert_eq!(wasi::start(&mut store, &instance).unwrap(), 0);
                    t.elapsed().as_secs_f64() * 1e3
                })
                .collect(),
        );
        assert!(out.contents().starts_with(b"hello, world\n"));
        println!("RESULT hello_in_process {ms:.3} ms");
    }
}

/// A context whose stdout is `/dev/null`, as a host file: the same work
/// (a `write(2)` per call) as wasmtime's `stdout_file`.
fn null_stdout() -> WasiCtx {
    let devnull = std::fs::OpenOptions::new().write(true).open("/dev/null").unwrap();
    WasiCtx::builder().stdio_file(1, devnull).build().unwrap()
}
