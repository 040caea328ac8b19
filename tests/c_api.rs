//! Runs the C API test programs (`tests/c/run.sh`) against this repository's
//! generated header (`include/wasm_c_api.h`) and release library
//! (`target/release/libiwasm.so`), each plainly and under valgrind.
//!
//! The library is built by `cargo build --release -p cranewasm-capi`, which
//! `cargo test` does not do; so this test refuses to run against a missing
//! or stale library instead of passing without having tested anything.
//! Needs `cc`, `wat2wasm` (wabt) and `valgrind`; run.sh names any that is
//! missing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::SystemTime;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn release_dir() -> PathBuf {
    match std::env::var_os("CARGO_TARGET_DIR") {
        Some(dir) => {
            let dir = PathBuf::from(dir);
            let dir = if dir.is_absolute() { dir } else { root().join(dir) };
            dir.join("release")
        }
        None => root().join("target").join("release"),
    }
}

/// The newest modification time of any file under `dir`.
fn newest_source(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() { newest_source(&path) } else { entry.metadata().ok()?.modified().ok() };
        newest = newest.max(time);
    }
    newest
}

#[test]
fn c_api_programs_pass_against_libiwasm() {
    let root = root();
    let include = root.join("include");
    let libdir = release_dir();
    let lib = libdir.join("libiwasm.so");
    let rebuild = "build it with `cargo build --release -p cranewasm-capi`";

    assert!(
        include.join("wasm_c_api.h").is_file(),
        "no generated header at {}: {rebuild}",
        include.join("wasm_c_api.h").display()
    );
    let lib_time = std::fs::metadata(&lib)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| panic!("no library at {} ({e}): {rebuild}", lib.display()));
    for src in ["src", "capi/src"] {
        if let Some(newest) = newest_source(&root.join(src)) {
            assert!(newest <= lib_time, "{} is older than the sources in {src}/: {rebuild}", lib.display());
        }
    }

    let status = Command::new("bash")
        .arg(root.join("tests/c/run.sh"))
        .arg(&include)
        .arg(&libdir)
        .status()
        .expect("cannot run bash tests/c/run.sh");
    assert!(status.success(), "C API tests failed ({status}); see the output above");
}
