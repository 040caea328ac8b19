//! The two C headers of the library sit side by side on one core: this
//! test reads every source file of `capi/src/c_api` (`wasm_c_api.h`),
//! `capi/src/export` (`wasm_export.h`) and `capi/src/core`, resolves each
//! `crate::` and `super::` path in its code (comments and strings aside,
//! `use` groups expanded, `super::super::` followed up to the crate root)
//! and fails when a header names the other, or the core names either.
//! Both headers build on `capi/src/core` instead (and on the neutral
//! object model, `handle.rs` and `object.rs`).
//!
//! A name re-exported at the crate root counts as its module's
//! (`crate::wasm_func_t` is `c_api`'s), also when a file takes it through
//! `use crate::*`.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "../../tests/support/rust_source.rs"]
mod rust_source;
use rust_source::{code_only, module_path, referenced_paths, root_reexports, rust_files};

/// The layer folder a module path lies in (`c_api`, `export` or `core`),
/// if any.
fn layer(path: &[String]) -> Option<&str> {
    path.first().map(String::as_str).filter(|f| matches!(*f, "c_api" | "export" | "core"))
}

/// Whether code of layer `from` may not name layer `to`: a header the
/// other header, the core either header.
fn forbidden(from: &str, to: &str) -> bool {
    from != to && to != "core"
}

/// What the file of module `here` with code `code` names that its layer
/// may not: one line per offending path.
fn crossings(here: &[String], code: &str, reexports: &[(String, Vec<String>)]) -> Vec<String> {
    let Some(mine) = layer(here) else { return Vec::new() };
    let mut out = BTreeSet::new();
    let other = |target: &[String]| layer(target).is_some_and(|l| forbidden(mine, l));
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

#[test]
fn headers_do_not_import_each_other_and_the_core_neither() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    assert!(
        reexports.iter().any(|(n, m)| n == "wasm_func_t" && m.first().is_some_and(|f| f == "c_api")),
        "the crate root's re-exports were not read"
    );
    let mut broken = Vec::new();
    let mut files = 0;
    for folder in ["c_api", "export", "core"] {
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
    assert!(
        broken.is_empty(),
        "a header imports the other, or the core a header (move what both need into crate::core):\n{broken:#?}"
    );
}

#[test]
fn the_scanner_sees_every_spelling() {
    let here = |p: &str| p.split('/').map(String::from).collect::<Vec<_>>();
    let reexports = root_reexports("pub use c_api::func::wasm_func_t;\npub use export::Thing as Other;");
    let c_api = here("c_api/func");
    let export = here("export/call");
    let core = here("core/module");
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
    // The core names neither header, not even through the crate root.
    assert_eq!(check(&core, "use crate::export::types::RuntimeInitArgs;").len(), 1);
    assert_eq!(check(&core, "fn f(r: crate::wasm_func_t) {}"), ["crate::c_api::func"]);
    assert!(check(&core, "use crate::core::pool; use super::natives; use crate::handle::Kind;").is_empty());
}
