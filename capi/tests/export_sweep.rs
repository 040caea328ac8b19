//! Every function of `wasm_export.h` tolerates NULL for every pointer and
//! handle argument, and refuses, without reading it, a handle that is not
//! a live object of the type it expects — as `null_sweep.rs` and
//! `foreign_sweep.rs` check for `wasm_c_api.h`.
//!
//! Two C programs are generated from the declarations in our header:
//!
//! * the NULL sweep calls every function with NULL for each pointer and
//!   handle and the scalars 0, then 1;
//! * the foreign sweep calls every function three times with each handle
//!   (module, instance, exec env, function, memory, type, instantiation
//!   arguments) replaced by a one-byte block from `malloc`, by a handle of
//!   that type that was freed, and by a live handle of another type, and
//!   every other pointer by a zeroed block; then checks that the live
//!   objects still work. It runs plainly and under valgrind, where any
//!   read of a foreign or freed handle would be an invalid read.
//!
//! The runtime's own memory functions take what `wasm_runtime_malloc`
//! gave, as `free` does: they get NULL, and what the allocators return is
//! freed. `VALGRIND=0` skips the valgrind run.

mod common;

use std::fmt::Write;
use std::process::Command;

/// The handle types, in the order of the sweep's tables.
const HANDLES: [&str; 10] = [
    "wasm_module_t",
    "wasm_module_inst_t",
    "wasm_exec_env_t",
    "wasm_function_inst_t",
    "wasm_memory_inst_t",
    "wasm_func_type_t",
    "wasm_table_type_t",
    "wasm_global_type_t",
    "wasm_memory_type_t",
    "InstantiationArgs2",
];

/// The handle type of a parameter, if it is one (a pointer to a handle is
/// an out parameter, not a handle).
fn handle(param: &str) -> Option<usize> {
    if param.contains("**") {
        return None;
    }
    let words: Vec<&str> =
        param.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty() && *w != "const").collect();
    let base = if words.first() == Some(&"struct") { words.get(1) } else { words.first() }?;
    HANDLES.iter().position(|h| h == base)
}

/// Whether a parameter is a pointer (written with `*` or `[]`, or a
/// pointer typedef other than the handles).
fn pointer(param: &str) -> bool {
    param.contains('*') || param.contains('[') || param.contains("wasm_shared_heap_t") || param.contains("section_list")
}

/// Whether a parameter is a function pointer typedef.
fn callback(param: &str) -> bool {
    ["callback", "reader", "destroyer", "dtor", "cleanup"].iter().any(|w| param.contains(w))
}

/// A call of `name` with `args`, adapted for the runtime memory functions.
fn call(name: &str, args: &[String]) -> String {
    match name {
        // Memory of the runtime's allocator: given NULL, and what they
        // return is freed.
        "wasm_runtime_free" => "wasm_runtime_free(NULL)".into(),
        "wasm_runtime_realloc" => format!("wasm_runtime_free(wasm_runtime_realloc(NULL, {}))", args[1]),
        "wasm_runtime_malloc" | "wasm_runtime_aligned_alloc" => {
            format!("wasm_runtime_free({name}({}))", args.join(", "))
        }
        _ => format!("(void){name}({})", args.join(", ")),
    }
}

fn header_decls() -> Vec<common::Decl> {
    let header = std::fs::read_to_string(common::repo().join("include/wasm_export.h")).expect("our header");
    let decls = common::declarations_marked(&header, "WASM_RUNTIME_API_EXTERN");
    let declared: std::collections::BTreeSet<String> = decls.iter().map(|d| d.name.clone()).collect();
    for name in common::export_symbols() {
        assert!(declared.contains(&name), "the header declares {name}");
    }
    assert_eq!(decls.len(), 173, "one declaration per function");
    decls
}

#[test]
fn every_function_accepts_null() {
    let decls = header_decls();
    let mut c =
        String::from("#include <stdio.h>\n#include \"wasm_c_api.h\"\n#include \"wasm_export.h\"\nint main(void) {\n");
    for scalar in [0, 1] {
        for d in &decls {
            let args: Vec<String> =
                d.params
                    .iter()
                    .map(|p| {
                        if handle(p).is_some() || pointer(p) || callback(p) {
                            "NULL".into()
                        } else {
                            scalar.to_string()
                        }
                    })
                    .collect();
            writeln!(c, "  {};", call(&d.name, &args)).unwrap();
        }
    }
    c.push_str("  puts(\"swept\");\n  return 0;\n}\n");
    let exe = common::sweep_build("export_null_sweep", &c);
    common::sweep_check(common::run(&mut Command::new(&exe)), "plainly");
}

/// Makes a dead and a live object of every handle type; see the module
/// docs.
const PRELUDE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wasm_c_api.h"
#include "wasm_export.h"

static unsigned char zeroed[16][256] __attribute__((aligned(64)));
static void *blocks[16];
static int nblocks;
static void *dead[10], *live[10];

/* A zeroed block for argument `i` (re-zeroed for every call). */
static void *zero(int i) { memset(zeroed[i], 0, sizeof zeroed[i]); return zeroed[i]; }

/* The handle argument of type `k` in pass `pass`. */
static void *obj(int pass, int k) {
    switch (pass) {
    case 0: return blocks[nblocks++] = malloc(1);
    case 1: return dead[k];
    default: return live[(k + 1) % 10];
    }
}
static void done(void) { while (nblocks) free(blocks[--nblocks]); }

static const char wat[] =
    "(module (import \"env\" \"nothing\" (func)) (memory (export \"memory\") 1)"
    " (table (export \"table\") 2 funcref) (global (export \"g\") (mut i32) (i32.const 7))"
    " (func (export \"f\") (param i32) (result i32) local.get 0) (func (export \"trap\") unreachable))";
static wasm_byte_vec_t bin;
static char err[128];

/* Loads the module and fills `objs` with one handle of each type, made
   from it. */
static void make(void **objs) {
    wasm_module_t m = wasm_runtime_load((uint8_t *)bin.data, (uint32_t)bin.size, err, sizeof err);
    wasm_module_inst_t i;
    wasm_import_t imp;
    wasm_export_t exp;
    struct InstantiationArgs2 *args = NULL;
    if (!m) { fprintf(stderr, "load: %s\n", err); exit(2); }
    i = wasm_runtime_instantiate(m, 8192, 8192, err, sizeof err);
    if (!i) { fprintf(stderr, "instantiate: %s\n", err); exit(3); }
    objs[0] = m;
    objs[1] = i;
    objs[2] = wasm_runtime_create_exec_env(i, 8192);
    objs[3] = wasm_runtime_lookup_function(i, "f");
    objs[4] = wasm_runtime_get_default_memory(i);
    wasm_runtime_get_import_type(m, 0, &imp);
    objs[5] = imp.u.func_type;
    wasm_runtime_get_export_type(m, 1, &exp);
    objs[6] = exp.u.table_type;
    wasm_runtime_get_export_type(m, 2, &exp);
    objs[7] = exp.u.global_type;
    wasm_runtime_get_export_type(m, 0, &exp);
    objs[8] = exp.u.memory_type;
    if (!wasm_runtime_instantiation_args_create(&args)) exit(4);
    objs[9] = args;
    for (int k = 0; k < 10; k++) if (!objs[k]) { fprintf(stderr, "no object %d\n", k); exit(5); }
}

/* Frees what make() made (types and functions go with their module and
   instance). */
static void kill(void **objs) {
    wasm_runtime_instantiation_args_destroy(objs[9]);
    wasm_runtime_destroy_exec_env(objs[2]);
    wasm_runtime_deinstantiate(objs[1]);
    wasm_runtime_unload(objs[0]);
}
"#;

#[test]
fn every_function_refuses_foreign_and_dead_handles() {
    let decls = header_decls();
    let mut c = String::from(PRELUDE);
    c.push_str(&common::foreign_sweep_main(
        "41, 0",
        &decls,
        |i, p, scalar| match handle(p) {
            Some(k) => format!("obj(pass, {k})"),
            None if callback(p) => "NULL".into(),
            None if pointer(p) => format!("zero({i})"),
            None => scalar.to_string(),
        },
        call,
    ));
    c.push_str(
        "  /* The sweep ended with wasm_runtime_destroy_thread_env(). */\n  wasm_runtime_init_thread_env();\n  if (!wasm_runtime_call_wasm(live[2], live[3], 1, argv) || argv[0] != 41\n      \
         || !wasm_memory_get_base_address(live[4]) || wasm_func_type_get_param_count(live[5]) != 0\n      \
         || wasm_global_type_get_valkind(live[7]) != WASM_I32) {\n    \
         puts(\"a live object was changed\");\n    return 1;\n  }\n  kill(live);\n  wasm_byte_vec_delete(&bin);\n  \
         puts(\"swept\");\n  return 0;\n}\n",
    );
    let exe = common::sweep_build("export_foreign_sweep", &c);
    common::sweep_run(&exe, "export_sweep");
}
