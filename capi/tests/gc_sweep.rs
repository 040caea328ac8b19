//! Every function of `gc_export.h` tolerates NULL for every pointer and
//! handle argument, and refuses, without reading it, a handle that is not
//! a live object of the type it expects, as `export_sweep.rs` checks for
//! `wasm_export.h`: a NULL sweep (scalars 0, then 1) and a foreign sweep
//! (each handle replaced by a one-byte `malloc` block, by a freed handle
//! of its type, and by a live handle of another type; other pointers by a
//! zeroed block), generated from the declarations in our header. The
//! foreign sweep also runs under valgrind (`VALGRIND=0` skips that run),
//! where reading a foreign or freed handle would be an invalid read.

mod common;

use std::fmt::Write;
use std::process::Command;

/// The handle types, in the order of the sweep's tables. `wasm_obj_t`s
/// include i31 words, which are scalars: a handle here is a pointer.
const HANDLES: [&str; 12] = [
    "wasm_module_t",
    "wasm_exec_env_t",
    "wasm_defined_type_t",
    "wasm_func_type_t",
    "wasm_struct_type_t",
    "wasm_array_type_t",
    "wasm_obj_t",
    "wasm_externref_obj_t",
    "wasm_anyref_obj_t",
    "wasm_func_obj_t",
    "wasm_struct_obj_t",
    "wasm_array_obj_t",
];

/// The handle type of a parameter, if it is one.
fn handle(param: &str) -> Option<usize> {
    if param.contains('*') {
        return None;
    }
    let words: Vec<&str> =
        param.split(|c: char| !c.is_alphanumeric() && c != '_').filter(|w| !w.is_empty() && *w != "const").collect();
    HANDLES.iter().position(|h| Some(h) == words.first())
}

/// Whether a parameter is a pointer (written with `*` or `[]`).
fn pointer(param: &str) -> bool {
    param.contains('*') || param.contains('[')
}

fn header_decls() -> Vec<common::Decl> {
    let header = std::fs::read_to_string(common::repo().join("include/gc_export.h")).expect("our header");
    let decls = common::declarations_marked(&header, "WASM_RUNTIME_API_EXTERN");
    let declared: std::collections::BTreeSet<String> = decls.iter().map(|d| d.name.clone()).collect();
    let pending = common::GC_PENDING_NEEDS_HEAP;
    for name in common::gc_export_symbols() {
        assert_eq!(
            declared.contains(&name),
            !pending.contains(&name.as_str()),
            "the header declares {name} unless pending"
        );
    }
    assert_eq!(decls.len(), 63 - pending.len(), "one declaration per function");
    decls
}

#[test]
fn every_gc_function_accepts_null() {
    let decls = header_decls();
    let mut c = String::from("#include <stdio.h>\n#include \"gc_export.h\"\nint main(void) {\n");
    for scalar in [0, 1] {
        for d in &decls {
            let args: Vec<String> = d
                .params
                .iter()
                .map(|p| if handle(p).is_some() || pointer(p) { "NULL".into() } else { scalar.to_string() })
                .collect();
            writeln!(c, "  (void){}({});", d.name, args.join(", ")).unwrap();
        }
    }
    c.push_str("  puts(\"swept\");\n  return 0;\n}\n");
    let exe = common::sweep_build("gc_null_sweep", &c);
    common::sweep_check(common::run(&mut Command::new(&exe)), "plainly");
}

/// Makes a dead and a live object of every handle type; see the module
/// docs.
const PRELUDE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wasm_c_api.h"
#include "gc_export.h"

#define N 12
static unsigned char zeroed[16][256] __attribute__((aligned(64)));
static void *blocks[16];
static int nblocks;
static void *dead[N], *live[N];
static int marker;

/* A zeroed block for argument `i` (re-zeroed for every call). */
static void *zero(int i) { memset(zeroed[i], 0, sizeof zeroed[i]); return zeroed[i]; }

/* The handle argument of type `k` in pass `pass`. */
static void *obj(int pass, int k) {
    switch (pass) {
    case 0: return blocks[nblocks++] = malloc(1);
    case 1: return dead[k];
    default: return live[(k + 1) % N];
    }
}
static void done(void) { while (nblocks) free(blocks[--nblocks]); }

static const char wat[] =
    "(module (type $s (struct (field (mut i32)) (field i64))) (type $a (array (mut i8)))"
    " (type $f (func (param i32 i32) (result i32)))"
    " (func (export \"add\") (type $f) (i32.add (local.get 0) (local.get 1))))";
static wasm_byte_vec_t bin;
static char err[128];

/* Loads the module and fills `objs` with one handle of each type. */
static void make(void **objs) {
    wasm_module_t m = wasm_runtime_load((uint8_t *)bin.data, (uint32_t)bin.size, err, sizeof err);
    wasm_module_inst_t i;
    wasm_exec_env_t env;
    if (!m) { fprintf(stderr, "load: %s\n", err); exit(2); }
    i = wasm_runtime_instantiate(m, 8192, 8192, err, sizeof err);
    if (!i) { fprintf(stderr, "instantiate: %s\n", err); exit(3); }
    env = wasm_runtime_create_exec_env(i, 8192);
    objs[0] = m;
    objs[1] = env;
    objs[2] = wasm_get_defined_type(m, 2);
    objs[3] = wasm_get_defined_type(m, 2);
    objs[4] = wasm_get_defined_type(m, 0);
    objs[5] = wasm_get_defined_type(m, 1);
    objs[6] = wasm_anyref_obj_new(env, &marker);
    objs[7] = wasm_externref_obj_new(env, &marker);
    objs[8] = wasm_anyref_obj_new(env, &marker);
    objs[9] = wasm_func_obj_new_with_typeidx(env, 2, 0);
    objs[10] = wasm_struct_obj_new_with_typeidx(env, 0);
    objs[11] = wasm_array_obj_new_with_typeidx(env, 1, 3, NULL);
    for (int k = 0; k < N; k++) if (!objs[k]) { fprintf(stderr, "no object %d\n", k); exit(5); }
}

/* Frees what make() made (types go with their module, objects with
   their instance). */
static void kill(void **objs) {
    wasm_module_inst_t i = wasm_runtime_get_module_inst(objs[1]);
    wasm_runtime_destroy_exec_env(objs[1]);
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(objs[0]);
}
"#;

#[test]
fn every_gc_function_refuses_foreign_and_dead_handles() {
    let decls = header_decls();
    let mut c = String::from(PRELUDE);
    c.push_str(&common::foreign_sweep_main(
        "40, 2",
        &decls,
        |i, p, scalar| match handle(p) {
            Some(k) => format!("obj(pass, {k})"),
            None if pointer(p) => format!("zero({i})"),
            None => scalar.to_string(),
        },
        |name, args| format!("(void){name}({})", args.join(", ")),
    ));
    c.push_str(
        "  if (!wasm_runtime_call_func_ref(live[1], live[9], 2, argv) || argv[0] != 42\n      \
         || wasm_struct_type_get_field_count(live[4]) != 2 || !wasm_defined_type_is_array_type(live[5])\n      \
         || wasm_externref_obj_get_value(live[7]) != &marker || wasm_anyref_obj_get_value(live[8]) != &marker\n      \
         || wasm_runtime_get_cur_local_obj_ref(live[1]) != NULL || wasm_struct_obj_get_field_count(live[10]) != 2\n      \
         || wasm_array_obj_length(live[11]) != 3 || !wasm_obj_is_struct_obj(live[10])) {\n    \
         puts(\"a live object was changed\");\n    return 1;\n  }\n  kill(live);\n  wasm_byte_vec_delete(&bin);\n  \
         wasm_runtime_destroy();\n  puts(\"swept\");\n  return 0;\n}\n",
    );
    let exe = common::sweep_build("gc_foreign_sweep", &c);
    common::sweep_run(&exe, "gc_sweep");
}
