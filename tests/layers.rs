//! The layers of `src/` import downward only (DESIGN.md, "The house as it
//! grows"): this test reads every source file, resolves each `crate::` and
//! `super::` path in its code (comments and strings aside) to the module it
//! names, and fails on an import that goes up or sideways.
//!
//! - `environ` imports nothing of the compiler, the runtime, the cache or
//!   WASI;
//! - `compile` imports `environ` only (and Cranelift);
//! - `runtime/vm` does not import the safe handles of `runtime/` (it may
//!   name the engine, which is settings and registries, not a handle);
//! - `cache` reads and writes the serialized form over `environ` only.
//!
//! It also checks that machine-specific code (assembly, registers of a
//! signal context, Linux-only system calls) lives under `runtime/vm/arch`
//! and `runtime/vm/os` only, in the core, the C library and the command
//! line.

use std::collections::BTreeSet;
use std::path::Path;

#[path = "support/rust_source.rs"]
mod rust_source;
use rust_source::{code_only, module_path, referenced_paths, root_reexports, rust_files};

/// The rule a file of module `here` breaks by naming `target`, if any.
fn violation(here: &[String], target: &[String]) -> Option<&'static str> {
    fn first(p: &[String]) -> &str {
        p.first().map_or("", String::as_str)
    }
    fn second(p: &[String]) -> &str {
        p.get(1).map_or("", String::as_str)
    }
    match first(here) {
        "environ" => matches!(first(target), "compile" | "runtime" | "cache" | "wasi")
            .then_some("environ imports nothing of compile, runtime, cache or wasi"),
        "compile" => matches!(first(target), "runtime" | "cache" | "wasi")
            .then_some("compile imports environ (and Cranelift) only"),
        "cache" => matches!(first(target), "runtime" | "compile" | "wasi")
            .then_some("cache reads and writes the serialized form over environ only"),
        "runtime" if second(here) == "vm" => (first(target) == "runtime"
            && !matches!(second(target), "vm" | "engine" | ""))
        .then_some("runtime/vm does not import the safe handles of runtime/"),
        _ => None,
    }
}

#[test]
fn layers_import_downward_only() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = root.join("src");
    let reexports = root_reexports(&std::fs::read_to_string(src.join("lib.rs")).unwrap());
    let mut broken = BTreeSet::new();
    let mut files = 0;
    for file in rust_files(&src) {
        // A `tests.rs` is a `#[cfg(test)]` module, which may build its
        // fixtures with the whole crate.
        if file.file_name().is_some_and(|n| n == "tests.rs") {
            continue;
        }
        let here = module_path(&src, &file);
        let is_mod = file.file_name().is_some_and(|n| n == "mod.rs");
        let code = code_only(&std::fs::read_to_string(&file).unwrap());
        // `#[cfg(test)]` modules may use the whole crate to build fixtures.
        let code = match code.find("#[cfg(test)]\nmod tests") {
            Some(p) => &code[..p],
            None => &code[..],
        };
        files += 1;
        for mut target in referenced_paths(code, &here, is_mod) {
            if target.len() == 1 || target.first().is_some_and(|s| s.starts_with(char::is_uppercase)) {
                if let Some((_, module)) = reexports.iter().find(|(n, _)| Some(n) == target.first()) {
                    target = module.clone();
                }
            }
            if let Some(rule) = violation(&here, &target) {
                broken.insert(format!(
                    "{}: crate::{} ({rule})",
                    file.strip_prefix(root).unwrap().display(),
                    target.join("::")
                ));
            }
        }
    }
    assert!(files > 50, "found only {files} source files under {}", src.display());
    assert!(
        broken.is_empty(),
        "{} imports break the layers:\n{}",
        broken.len(),
        broken.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// Lines of `code` that name something machine- or OS-specific.
fn machine_specific(code: &str) -> Vec<&'static str> {
    const MARKERS: [&str; 8] =
        ["asm!", "REG_R", "gregs", "memfd_create", "eventfd", "SYS_tgkill", "SYS_membarrier", "pthread_getattr_np"];
    MARKERS.into_iter().filter(|m| code.contains(m)).collect()
}

#[test]
fn machine_specific_code_lives_in_arch_and_os() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let allowed = [root.join("src/runtime/vm/arch"), root.join("src/runtime/vm/os")];
    let mut found = Vec::new();
    for dir in ["src", "capi/src", "cli/src"] {
        for file in rust_files(&root.join(dir)) {
            if allowed.iter().any(|a| file.starts_with(a)) {
                continue;
            }
            let code = code_only(&std::fs::read_to_string(&file).unwrap());
            let markers = machine_specific(&code);
            if !markers.is_empty() {
                found.push(format!("{}: {}", file.strip_prefix(root).unwrap().display(), markers.join(", ")));
            }
        }
    }
    assert!(found.is_empty(), "machine-specific code outside runtime/vm/arch and os:\n{}", found.join("\n"));
}

#[test]
fn the_scanner_sees_what_it_must() {
    let code =
        code_only("use crate::runtime::vm::x; // crate::compile::y\nlet s = \"crate::cache\"; super::super::z::w();");
    let here: Vec<String> = ["runtime", "vm", "thing"].iter().map(|s| s.to_string()).collect();
    let paths = referenced_paths(&code, &here, false);
    assert_eq!(paths, vec![vec!["runtime", "vm", "x"], vec!["runtime", "z", "w"]]);
    assert_eq!(violation(&here, &paths[1]), Some("runtime/vm does not import the safe handles of runtime/"));
    assert_eq!(violation(&here, &paths[0]), None);
    assert_eq!(machine_specific(&code_only("core::arch::asm!(\"nop\") // gregs")), vec!["asm!"]);
}
