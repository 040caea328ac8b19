//! Replays one module through the differential fuzzer's comparison
//! (tests/differential): `cargo run --release --example fuzz_replay --
//! FILE.wasm [SEED]`. Exits with status 1 on a divergence, so it can serve
//! as the predicate of a test-case shrinker.

#[path = "../tests/differential/mod.rs"]
#[allow(dead_code)]
mod differential;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: fuzz_replay FILE.wasm [SEED]");
    let seed: u64 = args.next().map_or(0, |s| s.parse().expect("seed is a number"));
    let wasm = std::fs::read(&path).expect("readable module");
    let result = differential::on_big_stack(move || {
        let mut stats = differential::Stats::default();
        let r = differential::compare(&wasm, seed, &mut stats);
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
