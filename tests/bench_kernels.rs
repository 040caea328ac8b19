//! The benchmark kernels compute the right answer in our runtime.
//!
//! `benches/build-kernels.sh` compiled each `benches/kernels/*.c` to wasm and
//! natively, and recorded the native checksum of `run(test_n)` in
//! `benches/kernels/expected.txt`. Here each checked-in `.wasm` is run with
//! the core API at that size and must give exactly the native checksum, so a
//! benchmark can never time a miscompiled kernel. No C compiler is needed.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use cranewasm::{Engine, Instance, Module, Store, Val};

fn kernel_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/kernels")
}

/// One line of expected.txt: `kernel test_n checksum bench_n`.
struct Expected {
    name: String,
    test_n: u32,
    checksum: u64,
}

fn expected() -> Vec<Expected> {
    let path = kernel_dir().join("expected.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            assert_eq!(fields.len(), 4, "expected.txt: malformed line {line:?}");
            Expected {
                name: fields[0].to_string(),
                test_n: fields[1].parse().unwrap_or_else(|e| panic!("{line:?}: test_n: {e}")),
                checksum: fields[2].parse().unwrap_or_else(|e| panic!("{line:?}: checksum: {e}")),
            }
        })
        .collect()
}

fn expected_for(name: &str) -> Expected {
    expected()
        .into_iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("{name} is not in expected.txt; run benches/build-kernels.sh"))
}

/// Runs `run(test_n)` of one kernel and compares with native.
fn check_kernel(name: &str) {
    let expected = expected_for(name);
    let path = kernel_dir().join(format!("{name}.wasm"));
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let engine = Engine::default();
    let module = Module::new(&engine, &bytes).unwrap_or_else(|e| panic!("{name}.wasm: {e}"));
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap_or_else(|e| panic!("{name}.wasm: {e}"));
    let run = instance.get_func(&store, "run").unwrap_or_else(|| panic!("{name}.wasm exports no run"));
    let mut result = [Val::I64(0)];
    run.call(&mut store, &[Val::I32(expected.test_n as i32)], &mut result)
        .unwrap_or_else(|e| panic!("{name}: run({}) failed: {e}", expected.test_n));
    let got = result[0].i64().unwrap_or_else(|| panic!("{name}: run returned {:?}, not an i64", result[0])) as u64;
    assert_eq!(got, expected.checksum, "{name}: run({}) differs from the native build", expected.test_n);
}

macro_rules! kernel_tests {
    ($($name:ident)*) => {
        $( #[test] fn $name() { check_kernel(stringify!($name)); } )*

        /// The list above, expected.txt and the .wasm files all name the
        /// same kernels, so no kernel goes untested.
        #[test]
        fn every_kernel_is_tested() {
            let tested: BTreeSet<String> = [$(stringify!($name)),*].iter().map(|s| s.to_string()).collect();
            let listed: BTreeSet<String> = expected().into_iter().map(|e| e.name).collect();
            let files: BTreeSet<String> = std::fs::read_dir(kernel_dir())
                .unwrap()
                .map(|entry| entry.unwrap().path())
                .filter(|path| path.extension().is_some_and(|ext| ext == "wasm"))
                .map(|path| path.file_stem().unwrap().to_string_lossy().into_owned())
                .collect();
            assert_eq!(listed, files, "expected.txt and benches/kernels/*.wasm disagree; run benches/build-kernels.sh");
            assert_eq!(tested, files, "add the new kernel to kernel_tests! in tests/bench_kernels.rs");
        }
    };
}

kernel_tests!(bulkmem crc32 dispatch fib hash mandel matmul nbody sieve simd sort);
