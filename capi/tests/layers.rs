//! The two C headers of the library sit side by side on one core: this
//! test reads every source file of `capi/src/c_api` (`wasm_c_api.h`) and
//! `capi/src/export` (`wasm_export.h`), resolves each `crate::` and
//! `super::` path in its code (comments and strings aside, `use` groups
//! expanded, `super::super::` followed up to the crate root) and fails when
//! one names the other. Both build on `capi/src/core` instead (and on the
//! neutral object model, `handle.rs` and `object.rs`).
//!
//! A name re-exported at the crate root counts as its module's
//! (`crate::wasm_func_t` is `c_api`'s), also when a file takes it through
//! `use crate::*`.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "../../tests/support/rust_source.rs"]
mod rust_source;
use rust_source::{code_only, module_path, referenced_paths, root_reexports, rust_files};

/// The header folder a module path lies in (`c_api` or `export`), if any.
fn header(path: &[String]) -> Option<&str> {
    path.first().map(String::as_str).filter(|f| matches!(*f, "c_api" | "export"))
}

/// What the file of module `here` with code `code` names of the other
/// header: one line per offending path.
fn crossings(here: &[String], code: &str, reexports: &[(String, Vec<String>)]) -> Vec<String> {
    let Some(mine) = header(here) else { return Vec::new() };
    let mut out = BTreeSet::new();
    let other = |target: &[String]| header(target).is_some_and(|h| h != mine);
    for mut target in referenced_paths(code, here, false) {
        // `crate::Name` (or `super::super::Name` from a header's file) of a
        // name the crate root re-exports is that name's module.
        if target.len() == 1
            && let Some((_, module)) = reexports.iter().find(|(n, _)| Some(n) == target.first())
        {
            target = module.clone();
        }
        if other(&target) {
            out.insert(format!("crate::{}", target.join("::")));
        }
    }
    // A glob of the crate root (`crate::*`, or `super::*` up to it) brings
    // its re-exports in by bare name.
    if referenced_paths(code, here, false).iter().any(|p| p.is_empty()) {
        let words: BTreeSet<&str> =
            code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).collect();
        for (name, module) in reexports {
            if other(module) && words.contains(name.as_str()) {
                out.insert(format!("{name} (crate::{}, through use crate::*)", module.join("::")));
            }
        }
    }
    out.into_iter().collect()
}

/// The crossings still there, each with why. A wasm-c-api module is also
/// a module of `wasm_export.h` (its public word, `*module`, is one, and
/// WAMR's clients call `wasm_runtime_*` functions on it), and that module
/// type (`RtModule`), with the runtime's module registry and the natives
/// and sub-modules it resolves dependencies with, still lives in
/// `export/module.rs`. Moving them under `core/` empties this list. The
/// test fails when an entry is no longer needed, so the list only shrinks.
const KNOWN: &[&str] = &[
    "capi/src/c_api/module.rs: crate::export::module::RtModule",
    "capi/src/c_api/module.rs: crate::export::module::for_capi",
    "capi/src/c_api/module.rs: crate::export::module::module",
];

#[test]
fn headers_do_not_import_each_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    assert!(
        reexports.iter().any(|(n, m)| n == "wasm_func_t" && m.first().is_some_and(|f| f == "c_api")),
        "the crate root's re-exports were not read"
    );
    let mut broken = Vec::new();
    let mut files = 0;
    for folder in ["c_api", "export"] {
        for file in rust_files(&src.join(folder)) {
            files += 1;
            let here = module_path(&src, &file);
            let code = code_only(&std::fs::read_to_string(&file).unwrap());
            for c in crossings(&here, &code, &reexports) {
                broken.push(format!("{}: {c}", file.strip_prefix(root.parent().unwrap()).unwrap().display()));
            }
        }
    }
    assert!(files > 40, "found only {files} source files under {}", src.display());
    let new: Vec<&String> = broken.iter().filter(|b| !KNOWN.contains(&b.as_str())).collect();
    let gone: Vec<&&str> = KNOWN.iter().filter(|k| !broken.iter().any(|b| b == *k)).collect();
    assert!(new.is_empty(), "the headers import each other (use crate::core instead):\n{new:#?}");
    assert!(gone.is_empty(), "no longer crossing, remove from KNOWN: {gone:?}");
}

#[test]
fn the_scanner_sees_every_spelling() {
    let here = |p: &str| p.split('/').map(String::from).collect::<Vec<_>>();
    let reexports = root_reexports("pub use c_api::func::wasm_func_t;\npub use export::Thing as Other;");
    let c_api = here("c_api/func");
    let export = here("export/call");
    let check = |at: &[String], text: &str| crossings(at, &code_only(text), &reexports);
    assert_eq!(check(&c_api, "use crate::export::module::RtModule;"), ["crate::export::module::RtModule"]);
    assert_eq!(check(&c_api, "use crate::{core::val, export::wasi::provides};"), ["crate::export::wasi::provides"]);
    assert_eq!(check(&c_api, "use crate::{\n    core::{call, export},\n    export::{a, b::{c}},\n};").len(), 2);
    assert_eq!(check(&c_api, "fn f() { super::super::export::x(); }"), ["crate::export::x"]);
    assert_eq!(
        check(&export, "let s = crate::c_api::store::StoreData::new();"),
        ["crate::c_api::store::StoreData::new"]
    );
    assert_eq!(check(&export, "fn f(x: crate::wasm_func_t) {}"), ["crate::c_api::func"]);
    assert_eq!(check(&export, "use crate::*;\nfn f(x: &wasm_func_t) {}").len(), 1);
    // Within a header, in comments and strings, and through the core: fine.
    assert!(check(&c_api, "use crate::c_api::store; use super::trap; // crate::export::x").is_empty());
    assert!(check(&export, "let s = \"crate::c_api::x\"; use crate::core::store::StoreData;").is_empty());
    assert!(check(&export, "use crate::*;\nfn f(x: &wasm_func_ty) {}").is_empty());
}
