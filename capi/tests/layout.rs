//! Our headers lay out every struct, typedef and constant exactly as
//! WAMR's: one C program per API, built against each header set, prints
//! them all, and the two outputs must be equal. Ours are also compiled
//! with warnings as errors; the `wasm_export.h` program includes
//! `wasm_c_api.h` too, as programs using both APIs do.

mod common;

use std::process::Command;

#[test]
fn layouts_match_wamr() {
    compare("layout");
}

#[test]
fn export_layouts_match_wamr() {
    compare("export_layout");
}

#[test]
fn gc_layouts_match_wamr() {
    compare("gc_layout");
}

/// Builds `capi/tests/c/NAME.c` against WAMR's headers and ours and
/// compares what the two print.
fn compare(name: &str) {
    let dir = common::scratch(name);
    let source = common::repo().join(format!("capi/tests/c/{name}.c"));
    let reference = common::shared().join("reference");
    let ours = common::repo().join("include");

    let print = |include: &std::path::Path, exe: &str, extra: &[&str]| {
        let exe = dir.join(exe);
        common::compile(&[&source], include, &exe, false, extra);
        let out = common::run(&mut Command::new(&exe));
        assert!(out.status.success(), "{} failed", exe.display());
        String::from_utf8(out.stdout).expect("text output")
    };
    let wamr = print(&reference, &format!("{name}-wamr"), &[]);
    let cranewasm =
        print(&ours, &format!("{name}-cranewasm"), &["-Wall", "-Wextra", "-Werror", "-Wno-unused-function"]);
    assert!(wamr.lines().count() > 60, "the program printed its report:\n{wamr}");
    for (a, b) in wamr.lines().zip(cranewasm.lines()) {
        assert_eq!(a, b, "WAMR's header (left) and ours (right) differ");
    }
    assert_eq!(wamr.lines().count(), cranewasm.lines().count());
}
