//! The shared library exports exactly the API's 284 `wasm_*` functions,
//! plus our `cranewasm_*` extensions, and no other `wasm_*` name.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

#[test]
fn exports_exactly_the_api() {
    let lib = common::lib_dir().join("libiwasm.so");
    let out = common::run(Command::new("nm").args(["-D", "--defined-only"]).arg(&lib));
    assert!(out.status.success(), "nm failed: {}", String::from_utf8_lossy(&out.stderr));
    let exported: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(String::from)
        .collect();

    let expected: BTreeSet<String> = common::api_symbols().into_iter().collect();
    assert_eq!(expected.len(), 284, "the shared list names 284 functions");
    let wasm: BTreeSet<String> = exported.iter().filter(|s| s.starts_with("wasm_")).cloned().collect();
    let missing: Vec<_> = expected.difference(&wasm).collect();
    let extra: Vec<_> = wasm.difference(&expected).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing: {missing:?}\nunexpected: {extra:?}");
    assert!(exported.contains("cranewasm_wat2wasm"), "the wat2wasm extension is exported");
}
