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
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `text` with comments, string and character literals blanked out, so
/// that paths in docs or messages do not count.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && (b[i + 1..].starts_with(b"\"") || b[i + 1..].starts_with(b"#")) && is_boundary(b, i) {
            // A raw string: r"..." or r#"..."#.
            let hashes = b[i + 1..].iter().take_while(|c| **c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                out.push(b[i]);
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"').chain(std::iter::repeat_n(b'#', hashes)).collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.extend_from_slice(b"\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.extend_from_slice(b"\"\"");
        } else if b[i] == b'\'' && b.get(i + 2) == Some(&b'\'') {
            out.extend_from_slice(b"' '");
            i += 3;
        } else if b[i] == b'\'' && b.get(i + 1) == Some(&b'\\') {
            // An escaped character literal; a lifetime has no backslash.
            i += 2;
            while i < b.len() && b[i] != b'\'' {
                i += 1;
            }
            i += 1;
            out.extend_from_slice(b"' '");
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were removed")
}

fn is_boundary(b: &[u8], i: usize) -> bool {
    i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The module path of a source file under `src/`: `src/runtime/vm/mod.rs`
/// is `["runtime", "vm"]`, `src/environ/types.rs` `["environ", "types"]`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" {
        parts.push(stem.to_string());
    }
    parts
}

/// The module paths named in `code` (of the module at `here`): each
/// `crate::a::b::...` and `super::...` path, resolved to its segments.
/// `use` groups (`crate::a::{b, c}`) count as `crate::a`, which is enough
/// for layers.
fn referenced_paths(code: &str, here: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let rest = &code[i..];
        let start = if rest.starts_with("crate::") && is_boundary(b, i) {
            Some((Vec::new(), i + "crate::".len()))
        } else if rest.starts_with("super::") && is_boundary(b, i) && (i < 2 || &code[i - 2..i] != "::") {
            // `super` in a file `a/b.rs` is `a`; in `a/b/mod.rs` also `a`.
            let mut base = here.to_vec();
            let mut j = i;
            let mut ups = 0;
            while code[j..].starts_with("super::") {
                ups += 1;
                j += "super::".len();
            }
            let _ = is_mod_file;
            for _ in 0..ups {
                base.pop();
            }
            Some((base, j))
        } else {
            None
        };
        let Some((mut path, mut j)) = start else {
            i += 1;
            continue;
        };
        loop {
            let seg_len = b[j..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
            if seg_len == 0 {
                break;
            }
            path.push(code[j..j + seg_len].to_string());
            j += seg_len;
            if code[j..].starts_with("::") {
                j += 2;
            } else {
                break;
            }
        }
        out.push(path);
        i = j.max(i + 1);
    }
    out
}

/// Where a name re-exported at the crate root comes from (`pub use
/// runtime::engine::Engine;` in lib.rs makes `crate::Engine` a `runtime`
/// path), so `crate::Engine` cannot slip past the rules.
fn root_reexports(lib: &str) -> Vec<(String, Vec<String>)> {
    let code = code_only(lib);
    let mut out = Vec::new();
    for stmt in code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else { continue };
        let rest: String = rest.chars().filter(|c| !c.is_whitespace()).collect();
        let (prefix, names) = match rest.find("::{") {
            Some(p) => (rest[..p].to_string(), rest[p + 3..rest.len() - 1].to_string()),
            None => {
                let p = rest.rfind("::").unwrap();
                (rest[..p].to_string(), rest[p + 2..].to_string())
            }
        };
        let module: Vec<String> = prefix.split("::").map(str::to_string).collect();
        for name in names.split(',').filter(|n| !n.is_empty()) {
            let name = name.rsplit("::").next().unwrap();
            let name = name.split("as").last().unwrap();
            out.push((name.to_string(), module.clone()));
        }
    }
    out
}

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
