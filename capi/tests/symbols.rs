//! The shared library exports exactly the 284 functions of `wasm_c_api.h`,
//! the 173 of `wasm_export.h` and the 63 of `gc_export.h` but those that
//! wait for the GC heap (`common::GC_PENDING_NEEDS_HEAP`, checked absent),
//! plus our `cranewasm_*` extensions, and no other `wasm_*` name; and the functions WAMR's clients link that its
//! headers leave out.

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

    let c_api: BTreeSet<String> = common::api_symbols().into_iter().collect();
    let export: BTreeSet<String> = common::export_symbols().into_iter().collect();
    assert_eq!((c_api.len(), export.len()), (284, 173), "the shared lists name 284 and 173 functions");
    for name in export.iter().filter(|s| !s.starts_with("wasm_")) {
        assert!(exported.contains(name), "{name} is exported");
    }
    let gc_all: BTreeSet<String> = common::gc_export_symbols().into_iter().collect();
    assert_eq!(gc_all.len(), 63, "the shared list names 63 GC functions");
    let pending: BTreeSet<String> = common::GC_PENDING_NEEDS_HEAP.iter().map(|s| s.to_string()).collect();
    assert!(pending.is_subset(&gc_all), "the pending GC functions are in the list");
    let gc: BTreeSet<String> = gc_all.difference(&pending).cloned().collect();
    let early: Vec<_> = pending.iter().filter(|s| exported.contains(*s)).collect();
    assert!(early.is_empty(), "exported before the GC heap exists: {early:?} (take them off the pending list)");
    let expected: BTreeSet<String> =
        c_api.union(&export).chain(gc.iter()).filter(|s| s.starts_with("wasm_")).cloned().collect();
    let wasm: BTreeSet<String> = exported.iter().filter(|s| s.starts_with("wasm_")).cloned().collect();
    let missing: Vec<_> = expected.difference(&wasm).collect();
    let extra: Vec<_> = wasm.difference(&expected).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing: {missing:?}\nunexpected: {extra:?}");
    assert!(exported.contains("cranewasm_wat2wasm"), "the wat2wasm extension is exported");
}

/// The functions WAMR's clients link that its headers do not declare are
/// exported (`capi/README.md`, "Functions outside the headers"; the C test
/// `tests/c/wamr_undeclared.c` declares and calls each).
#[test]
fn exports_what_wamr_clients_link_outside_the_headers() {
    let lib = common::lib_dir().join("libiwasm.so");
    let out = common::run(Command::new("nm").args(["-D", "--defined-only"]).arg(&lib));
    assert!(out.status.success(), "nm failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    let functions: BTreeSet<&str> = text
        .lines()
        .filter(|l| l.split_whitespace().nth(1) == Some("T"))
        .filter_map(|l| l.split_whitespace().nth(2))
        .collect();
    let missing: Vec<String> =
        common::undeclared_symbols().into_iter().filter(|s| !functions.contains(s.as_str())).collect();
    assert!(missing.is_empty(), "not exported as functions: {missing:?}");
    let headers = ["wasm_c_api.h", "wasm_export.h", "lib_export.h", "gc_export.h"]
        .map(|h| std::fs::read_to_string(common::repo().join("include").join(h)).expect("the header"));
    for s in common::undeclared_symbols() {
        let pattern = format!("{s}(");
        assert!(headers.iter().all(|h| !h.contains(&pattern)), "{s} is declared in a header; WAMR's do not declare it");
    }
}
