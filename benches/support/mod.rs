//! What the Rust benchmarks share: the small module of the overhead cases,
//! the checked-in kernels and the median of timed samples.

use std::path::PathBuf;
use std::time::Instant;

use cranewasm::{AsContextMut, Engine, Func, FuncType, Instance, Module, Store, Val, ValRaw, ValType};

/// The module of the overhead cases, the same as the C harness's.
pub const SMALL_WAT: &str = include_str!("../harness/small.wat");

/// The small module's one import, which adds 1, written with [`Func::new`]
/// (slices of [`Val`]) or [`Func::new_raw`] (raw slots) as `raw` says.
pub fn host_inc(store: &mut Store<()>, raw: bool) -> Func {
    let ty = FuncType::new([ValType::I32], [ValType::I32]);
    if raw {
        Func::new_raw(store.as_context_mut(), ty, |_, slots| {
            slots[0] = ValRaw::i32(slots[0].get_i32().wrapping_add(1));
            Ok(())
        })
        .expect("host function")
    } else {
        Func::new(&mut *store, ty, |_, params, results| {
            results[0] = Val::I32(params[0].i32().unwrap().wrapping_add(1));
            Ok(())
        })
    }
}

/// A fresh store with the small module instantiated in it.
pub fn small_instance(engine: &Engine, module: &Module, raw: bool) -> (Store<()>, Instance) {
    let mut store = Store::new(engine, ());
    let host = host_inc(&mut store, raw);
    let instance = Instance::new(&mut store, module, &[host.into()]).expect("instantiate small module");
    (store, instance)
}

/// A module of `functions` generated functions (about 1.1 KB of code
/// each), written by `gen_large_module.py`, as compare.sh's large module
/// (4000 functions, ~4.4 MB) or a 537 KB one like a Lua interpreter's
/// (482 functions).
pub fn generated_module(functions: u32) -> Vec<u8> {
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("large-{functions}.wasm"));
    if !path.exists() {
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/gen_large_module.py");
        let status = std::process::Command::new("python3")
            .arg(script)
            .arg(&path)
            .arg(functions.to_string())
            .status()
            .expect("run python3");
        assert!(status.success(), "gen_large_module.py failed");
    }
    std::fs::read(path).expect("generated module")
}

pub fn kernel_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/kernels")
}

/// (name, bench_n) of every kernel, from kernels/expected.txt.
pub fn kernels() -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(kernel_dir().join("expected.txt")).expect("kernels/expected.txt");
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields[0].to_string(), fields[3].parse().expect("bench_n"))
        })
        .collect()
}

/// A kernel compiled and instantiated in `engine`, warmed up by one call:
/// each call of the returned closure times one `run(bench_n)` in
/// nanoseconds and checks the checksum against the warm-up's.
pub fn kernel_runner(engine: &Engine, name: &str, bench_n: u32) -> impl FnMut() -> f64 + use<> {
    kernel_runner_with(engine, name, bench_n, |_| {})
}

/// As [`kernel_runner`], with `prepare` run on the store before every
/// call (to give it fuel, say) and outside the timing.
pub fn kernel_runner_with<P: FnMut(&mut Store<()>) + 'static>(
    engine: &Engine,
    name: &str,
    bench_n: u32,
    mut prepare: P,
) -> impl FnMut() -> f64 + use<P> {
    let bytes = std::fs::read(kernel_dir().join(format!("{name}.wasm"))).expect("kernel .wasm");
    let module = Module::new(engine, &bytes).expect("compile kernel");
    let mut store = Store::new(engine, ());
    let instance = Instance::new(&mut store, &module, &[]).expect("instantiate kernel");
    let run: Func = instance.get_func(&store, "run").expect("run");
    let mut call = move |timed: bool| {
        prepare(&mut store);
        let mut result = [Val::I64(0)];
        let start = Instant::now();
        run.call(&mut store, &[Val::I32(bench_n as i32)], &mut result).expect("run");
        let ns = start.elapsed().as_secs_f64() * 1e9;
        (result[0].i64().unwrap(), if timed { ns } else { 0.0 })
    };
    let (first, _) = call(false);
    let name = name.to_string();
    move || {
        let (checksum, ns) = call(true);
        assert_eq!(checksum, first, "{name}: checksum changed between runs");
        ns
    }
}

/// The median of `samples`.
pub fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

/// REPS from the environment, at least 1.
pub fn reps(default: usize) -> usize {
    std::env::var("REPS").ok().and_then(|r| r.parse().ok()).unwrap_or(default).max(1)
}
