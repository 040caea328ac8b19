//! Golden-code tests: each `tests/disas/NAME.wat` is a small module showing
//! one thing our code generation does (no bounds check under guard pages,
//! the memory base hoisted out of a loop, a direct call, the signature
//! check of `call_indirect`...); `NAME.expected` holds the optimised
//! Cranelift IR and the machine code it must compile to, so a change that
//! makes the code worse fails here, not only in a benchmark.
//!
//! Each case also asserts the property it exists for (`disas/properties.rs`:
//! no compare under guard pages, the base load outside the loop, one load
//! in the stack check...) on the code made now, so blessing a regression
//! into the expected text still fails.
//!
//! `CRANEWASM_BLESS=1 cargo test --release --test disas` prints what would
//! change and fails; with `CRANEWASM_BLESS_CONFIRM=1` as well it rewrites
//! the expected files (review the diff before committing it). One stray
//! variable in an environment therefore never turns a failure into a pass.
//!
//! The code is generated for a fixed CPU of the host's architecture
//! (x86-64-v3 with AVX; baseline ARMv8.0-A) whatever the model, so the
//! files are the same on every machine (see `Module::code_text`). x86-64's
//! expected files are `tests/disas/NAME.expected`, aarch64's are
//! `tests/disas/aarch64/NAME.expected` (`tests/aarch64.sh` runs this test
//! under qemu and blesses the same way); the properties, which read
//! x86-64's instructions, are checked on x86-64 only. A
//! `.wat` file may begin with `;; config: bounds-checks=explicit` (or
//! `guard-pages`, the default here whatever the environment says), and
//! `;; config: inlining=off` (or `on`, the default) to show code as it is
//! without (or with) inlining.

#![cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]

use std::path::{Path, PathBuf};

use cranewasm::{BoundsChecks, Config, Engine, Module};

#[path = "disas/code.rs"]
mod code;
#[path = "disas/properties.rs"]
mod properties;

const BLESS: &str = "CRANEWASM_BLESS";
/// Where the expected files of this architecture are, under `tests/disas`.
const EXPECTED_DIR: &str = if cfg!(target_arch = "aarch64") { "aarch64" } else { "" };
/// Whether `properties.rs` (x86-64 instructions) applies.
const PROPERTIES: bool = cfg!(target_arch = "x86_64");
const BLESS_CONFIRM: &str = "CRANEWASM_BLESS_CONFIRM";

fn engine_for(wat: &str) -> Engine {
    engine_with(wat, |_| {})
}

/// The case's engine, with `adjust` applied after its config lines.
fn engine_with(wat: &str, adjust: impl FnOnce(&mut Config)) -> Engine {
    let mut config = Config::new();
    config.bounds_checks(BoundsChecks::GuardPages);
    for line in wat.lines().take_while(|l| l.starts_with(";;")) {
        let Some(setting) = line.strip_prefix(";; config:") else { continue };
        match setting.trim() {
            "bounds-checks=explicit" => config.bounds_checks(BoundsChecks::Explicit),
            "bounds-checks=guard-pages" => config.bounds_checks(BoundsChecks::GuardPages),
            "inlining=on" => config.cranelift_inlining(true),
            "inlining=off" => config.cranelift_inlining(false),
            other => panic!("unknown config line {other:?}"),
        };
    }
    adjust(&mut config);
    Engine::new(&config).expect("engine")
}

/// A line diff of `expected` against `actual` (longest common subsequence;
/// the files are small), with `-`/`+` marks and two lines of context.
fn diff(expected: &str, actual: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut lcs = vec![vec![0u32; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
        }
    }
    let mut lines: Vec<(char, &str)> = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            (i, j) = (i + 1, j + 1);
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let near_change = |k: usize| lines[k.saturating_sub(2)..(k + 3).min(lines.len())].iter().any(|(m, _)| *m != ' ');
    (0..lines.len()).filter(|&k| near_change(k)).map(|k| format!("{}{}\n", lines[k].0, lines[k].1)).collect()
}

#[test]
fn generated_code_matches_the_expected_files() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/disas");
    let bless = std::env::var_os(BLESS).is_some();
    let confirmed = bless && std::env::var_os(BLESS_CONFIRM).is_some();
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("tests/disas")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "wat"))
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "the golden cases are missing from {}", dir.display());
    let mut failures = Vec::new();
    for wat_path in &cases {
        let wat = std::fs::read_to_string(wat_path).unwrap();
        let actual = Module::code_text(&engine_for(&wat), &wat)
            .unwrap_or_else(|e| panic!("{}: does not compile: {e}", wat_path.display()));
        let name = wat_path.file_stem().unwrap().to_str().unwrap();
        if let Err(why) = if PROPERTIES { properties::check(name, &code::parse(&actual)) } else { Ok(()) } {
            failures.push(format!("{}: the property this case exists for does not hold: {why}", wat_path.display()));
        }
        let expected_path = dir.join(EXPECTED_DIR).join(format!("{name}.expected"));
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        if expected == actual {
            continue;
        }
        let change = format!("{}:\n{}", expected_path.display(), diff(&expected, &actual));
        if confirmed {
            std::fs::write(&expected_path, &actual).unwrap();
            eprintln!("rewrote {change}");
        } else {
            failures.push(change);
        }
    }
    // An expected file whose module is gone would silently stop testing.
    for entry in std::fs::read_dir(dir.join(EXPECTED_DIR)).unwrap() {
        let path = entry.unwrap().path();
        let wat = dir.join(path.file_stem().unwrap()).with_extension("wat");
        if path.extension().is_some_and(|e| e == "expected") && !wat.exists() {
            failures.push(format!("{}: no .wat beside it", path.display()));
        }
    }
    let how = if bless {
        format!("{BLESS} is set: after reviewing the changes above, set {BLESS_CONFIRM}=1 as well to write them")
    } else {
        format!(
            "after reviewing, accept the new code with {BLESS}=1 {BLESS_CONFIRM}=1 cargo test --release --test disas"
        )
    };
    assert!(failures.is_empty(), "generated code differs from the expected files ({how}):\n\n{}", failures.join("\n"));
}

/// The properties can fail: each of these cases compiled without the
/// choice it shows breaks its property.
#[test]
#[cfg(target_arch = "x86_64")]
fn properties_reject_code_without_the_choice() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/disas");
    type SwitchOff = fn(&mut Config);
    let switches: [(&str, SwitchOff); 5] = [
        ("load_guard_pages", |c| {
            c.bounds_checks(BoundsChecks::Explicit);
        }),
        ("address_step_unrolled", |c| {
            c.address_steps(false);
        }),
        ("mul_consts", |c| {
            c.mul_consts(false);
        }),
        ("inline_callee", |c| {
            c.cranelift_inlining(false);
        }),
        ("loop_exit_counter", |c| {
            c.loop_passes(false);
        }),
    ];
    for (name, switch_off) in switches {
        let wat = std::fs::read_to_string(dir.join(format!("{name}.wat"))).unwrap();
        let text = Module::code_text(&engine_with(&wat, switch_off), &wat).unwrap();
        assert!(properties::check(name, &code::parse(&text)).is_err(), "{name}: the property holds without its choice");
        let text = Module::code_text(&engine_for(&wat), &wat).unwrap();
        properties::check(name, &code::parse(&text)).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn the_diff_marks_what_changed() {
    let d = diff("a\nb\nc\nd\ne\nf\ng\n", "a\nb\nc\nX\ne\nf\ng\n");
    assert_eq!(d, " b\n c\n-d\n+X\n e\n f\n");
}
