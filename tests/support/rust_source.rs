//! Reading Rust sources for the layer tests (`tests/layers.rs` for the
//! core, `capi/tests/layers.rs` for the C library): the files of a folder,
//! their code without comments and literals, and the module paths the code
//! names.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
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
pub fn code_only(text: &str) -> String {
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

pub fn is_boundary(b: &[u8], i: usize) -> bool {
    i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// The module path of a source file under `src/`: `src/runtime/vm/mod.rs`
/// is `["runtime", "vm"]`, `src/environ/types.rs` `["environ", "types"]`.
pub fn module_path(src: &Path, file: &Path) -> Vec<String> {
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
/// A `use` group stands for each path in it (`crate::a::{b, c::{d}}` is
/// `a::b` and `a::c::d`).
pub fn referenced_paths(code: &str, here: &[String], is_mod_file: bool) -> Vec<Vec<String>> {
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
        j = segments(code, j, &mut path);
        if code[j..].starts_with('{') {
            j = group(code, j, &path, &mut out);
        } else {
            out.push(path);
        }
        i = j.max(i + 1);
    }
    out
}

/// Reads `a::b::` segments at `j` onto `path`; where they end.
fn segments(code: &str, mut j: usize, path: &mut Vec<String>) -> usize {
    let b = code.as_bytes();
    loop {
        let seg_len = b[j..].iter().take_while(|c| c.is_ascii_alphanumeric() || **c == b'_').count();
        if seg_len == 0 {
            return j;
        }
        path.push(code[j..j + seg_len].to_string());
        j += seg_len;
        if code[j..].starts_with("::") {
            j += 2;
        } else {
            return j;
        }
    }
}

/// Reads the `use` group at `j` (its `{`), pushing `prefix` joined with
/// each path in it onto `out` (`self` is the prefix itself); where it ends.
fn group(code: &str, mut j: usize, prefix: &[String], out: &mut Vec<Vec<String>>) -> usize {
    j += 1;
    loop {
        j += code[j..].len() - code[j..].trim_start_matches(|c: char| c.is_whitespace() || c == ',').len();
        if j >= code.len() || code[j..].starts_with('}') {
            return (j + 1).min(code.len());
        }
        let mut path = prefix.to_vec();
        let end = segments(code, j, &mut path);
        if code[end..].starts_with('{') {
            j = group(code, end, &path, out);
            continue;
        }
        if path.last().is_some_and(|s| s == "self") {
            path.pop();
        }
        out.push(path);
        // Past an `as` rename or a `*`, to the next item.
        j = end.max(j + 1);
        while j < code.len() && !code[j..].starts_with(',') && !code[j..].starts_with('}') {
            j += 1;
        }
    }
}

/// Where a name re-exported at the crate root comes from (`pub use
/// runtime::engine::Engine;` in lib.rs makes `crate::Engine` a `runtime`
/// path), so `crate::Engine` cannot slip past the rules.
pub fn root_reexports(lib: &str) -> Vec<(String, Vec<String>)> {
    let code = code_only(lib);
    let mut out = Vec::new();
    for stmt in code.split(';') {
        let Some(rest) = stmt.trim().strip_prefix("pub use ") else { continue };
        // `a as b` is kept as `a@b` (a word `as`, not the letters in `wasm`).
        let rest = rest.split_whitespace().collect::<Vec<_>>().join(" ").replace(" as ", "@");
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
            let name = name.split('@').next_back().unwrap();
            out.push((name.to_string(), module.clone()));
        }
    }
    out
}
