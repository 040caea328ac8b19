//! `include/wasm_c_api.h` must be what cbindgen makes of the current
//! source: this test regenerates it in memory and fails when the checked-in
//! file differs. `CRANEWASM_BLESS=1` rewrites the file instead.
//!
//! The vector functions come from a macro, so cbindgen must see the crate
//! with macros expanded. It does that with rustc's `-Zunpretty=expanded`,
//! which a stable toolchain only allows with `RUSTC_BOOTSTRAP=1`; the
//! variable is set for cbindgen's child `cargo` alone (this test's own
//! process compiles nothing).

use std::path::Path;

#[test]
fn checked_in_header_is_current() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let header = crate_dir.join("../include/wasm_c_api.h");
    // A target directory of its own, kept between runs so that expansion
    // rebuilds only this crate.
    let expand_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cbindgen-expand");
    // SAFETY: this test binary has this one test, so no other thread reads
    // the environment concurrently.
    unsafe {
        std::env::set_var("RUSTC_BOOTSTRAP", "1");
        std::env::set_var("CARGO_EXPAND_TARGET_DIR", expand_dir);
    }
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut generated = Vec::new();
    bindings.write(&mut generated);

    if std::env::var_os("CRANEWASM_BLESS").is_some() {
        std::fs::write(&header, &generated).expect("write the header");
        return;
    }
    let current = std::fs::read(&header).unwrap_or_default();
    if current != generated {
        let current = String::from_utf8_lossy(&current);
        let generated = String::from_utf8_lossy(&generated);
        let first = current.lines().zip(generated.lines()).position(|(a, b)| a != b);
        panic!(
            "{} is stale (first difference at line {}); regenerate it with \
             CRANEWASM_BLESS=1 cargo test -p cranewasm-capi --test header",
            header.display(),
            first.map_or(current.lines().count().min(generated.lines().count()), |i| i) + 1
        );
    }
}
