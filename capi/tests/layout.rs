//! Our header lays out every struct, typedef and constant exactly as
//! WAMR's: one C program, built against each header, prints them all, and
//! the two outputs must be equal. Ours is also compiled with warnings as
//! errors.

mod common;

use std::process::Command;

#[test]
fn layouts_match_wamr() {
    let dir = common::scratch("layout");
    let source = common::repo().join("capi/tests/c/layout.c");
    let reference = common::shared().join("reference");
    let ours = common::repo().join("include");

    let print = |include: &std::path::Path, exe: &str, extra: &[&str]| {
        let exe = dir.join(exe);
        common::compile(&[&source], include, &exe, false, extra);
        let out = common::run(&mut Command::new(&exe));
        assert!(out.status.success(), "{} failed", exe.display());
        String::from_utf8(out.stdout).expect("text output")
    };
    let wamr = print(&reference, "layout-wamr", &[]);
    let cranewasm = print(&ours, "layout-cranewasm", &["-Wall", "-Wextra", "-Werror", "-Wno-unused-function"]);
    assert!(wamr.lines().count() > 100, "the program printed its report:\n{wamr}");
    for (a, b) in wamr.lines().zip(cranewasm.lines()) {
        assert_eq!(a, b, "WAMR's header (left) and ours (right) differ");
    }
    assert_eq!(wamr.lines().count(), cranewasm.lines().count());
}
