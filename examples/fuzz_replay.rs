//! Replays one module through the differential fuzzer's comparison
//! (tests/differential): `cargo run --release --example fuzz_replay --
//! FILE.wasm [SEED [wasmtime]]`, against wasmi, or against wasmtime for a
//! module of tests/fuzz_wasmtime.rs. Exits with status 1 on a divergence,
//! so it can serve as the predicate of a test-case shrinker.

#[path = "../tests/differential/mod.rs"]
#[allow(dead_code)]
mod differential;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: fuzz_replay FILE.wasm [SEED [wasmtime]]");
    let seed: u64 = args.next().map_or(0, |s| s.parse().expect("seed is a number"));
    let wasmtime = match args.next().as_deref() {
        None => false,
        Some("wasmtime") => true,
        Some(other) => panic!("the oracle is wasmi, or `wasmtime`, not {other:?}"),
    };
    // Binary, or text (the hand-minimised regression modules).
    let wasm = wat::parse_file(&path).expect("a readable module");
    let result = differential::on_big_stack(move || {
        let mut stats = differential::Stats::default();
        let r = if wasmtime {
            compare_wasmtime(&wasm, seed, &mut stats)
        } else {
            differential::compare(&wasm, seed, &mut stats)
        };
        (r, stats)
    });
    match result {
        (Ok(()), stats) => println!("agree: {stats:?}"),
        (Err(e), _) => {
            println!("DIVERGED: {e}");
            std::process::exit(1);
        }
    }
}

#[cfg(target_arch = "x86_64")]
fn compare_wasmtime(wasm: &[u8], seed: u64, stats: &mut differential::Stats) -> Result<(), String> {
    differential::compare_with::<differential::oracle_wasmtime::Wasmtime>(wasm, seed, stats)
}

// wasmtime is a dev-dependency on x86-64 only (see Cargo.toml).
#[cfg(not(target_arch = "x86_64"))]
fn compare_wasmtime(_: &[u8], _: u64, _: &mut differential::Stats) -> Result<(), String> {
    panic!("the wasmtime oracle is built on x86-64 only")
}
