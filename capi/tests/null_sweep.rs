//! Every function of the API tolerates NULL for every pointer argument: a
//! C program, generated from the declarations in our header, calls all of
//! them that way (twice: with scalar arguments 0, then 1) and must exit
//! normally.

mod common;

use std::collections::BTreeSet;
use std::fmt::Write;
use std::process::Command;

/// The argument passed for a parameter: NULL for pointers (and callback
/// typedefs), `scalar` for everything else.
fn argument(param: &str, scalar: u32) -> String {
    if param.contains('*') || param.contains("callback") { "NULL".into() } else { scalar.to_string() }
}

#[test]
fn every_function_accepts_null() {
    let header = std::fs::read_to_string(common::repo().join("include/wasm_c_api.h")).expect("our header");
    let decls = common::declarations(&header);
    let declared: BTreeSet<String> = decls.iter().map(|d| d.name.clone()).collect();
    for name in common::api_symbols() {
        assert!(declared.contains(&name), "the header declares {name}");
    }

    let mut c = String::from("#include <stdio.h>\n#include \"wasm_c_api.h\"\nint main(void) {\n");
    for scalar in [0, 1] {
        for d in &decls {
            let args: Vec<String> = d.params.iter().map(|p| argument(p, scalar)).collect();
            writeln!(c, "  (void){}({});", d.name, args.join(", ")).unwrap();
        }
    }
    c.push_str("  puts(\"swept\");\n  return 0;\n}\n");

    let dir = common::scratch("null_sweep");
    let source = dir.join("null_sweep.c");
    std::fs::write(&source, c).expect("write the sweep");
    let exe = dir.join("null_sweep");
    common::compile(&[&source], &common::repo().join("include"), &exe, true, &["-Wno-deprecated-declarations"]);
    let out = common::run(&mut Command::new(&exe));
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).contains("swept"),
        "the sweep failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}
