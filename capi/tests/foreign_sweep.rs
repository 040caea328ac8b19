//! Every function of the API refuses, without reading it, an object pointer
//! that is not a live object of the type it expects: a C program, generated
//! from the declarations in our header, calls every function three times
//! with each object argument replaced by
//!
//! 1. a one-byte block from `malloc`, as the zero-sized ctypes structs a
//!    binding allocates itself (`wasm_func_t()`),
//! 2. an object of that type that was deleted, and
//! 3. a live object of another type,
//!
//! and every other pointer argument by a zeroed block (an empty vector, a
//! zero value; for `wasm_val_delete`, which frees it, one from `malloc`),
//! twice each (scalar arguments 0, then 1). It must exit
//! normally, and under valgrind without a single invalid read or write (a
//! one-byte block read as a header, or a freed object read, would be one).
//! Then the live objects of the third pass must still be intact.
//!
//! `VALGRIND=0` skips the valgrind run, as `tests/c/run.sh` does.

mod common;

use std::fmt::Write;
use std::process::Command;

/// The C types whose pointers are objects of the library: the header's
/// opaque structs, `wasm_config_t` and the module handle types.
fn object_types(header: &str) -> Vec<String> {
    let mut types: Vec<String> = header
        .lines()
        .filter_map(|l| {
            let rest = l.strip_prefix("typedef struct ")?.strip_suffix(';')?;
            let (a, b) = rest.split_once(' ')?;
            (a == b).then(|| a.to_string())
        })
        .collect();
    types.extend(["wasm_config_t", "wasm_module_t", "wasm_shared_module_t"].map(String::from));
    types
}

/// The object type a parameter points at, if it is a (single) pointer to
/// one of `types`.
fn object_param<'a>(param: &str, types: &'a [String]) -> Option<&'a str> {
    if param.matches('*').count() != 1 || param.contains('(') {
        return None;
    }
    let base = param.split('*').next()?.split_whitespace().rfind(|w| *w != "const" && *w != "struct")?;
    types.iter().find(|t| *t == base).map(String::as_str)
}

/// Makes a dead and a live object of every type; see the module docs.
const PRELUDE: &str = r#"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wasm_c_api.h"

static unsigned char zeroed[8][256] __attribute__((aligned(64)));
static void *blocks[16];
static int nblocks;
static void *dead[32], *wrong_frame, *wrong_valtype;

/* A zeroed block for argument `i` (re-zeroed for every call). */
static void *zero(int i) { memset(zeroed[i], 0, sizeof zeroed[i]); return zeroed[i]; }

/* The object argument of type `k` in pass `pass`. */
static void *obj(int pass, int k, int is_frame) {
    switch (pass) {
    case 0: return blocks[nblocks++] = malloc(1);
    case 1: return dead[k];
    default: return is_frame ? wrong_valtype : wrong_frame;
    }
}
static void done(void) { while (nblocks) free(blocks[--nblocks]); }

static wasm_trap_t *cb(const wasm_val_vec_t *a, wasm_val_vec_t *r) { (void)a; (void)r; return NULL; }

static wasm_engine_t *engine;
static wasm_store_t *store;

/* One of everything, to make the objects below from. */
static wasm_module_t *m;
static wasm_instance_t *inst;
static wasm_extern_vec_t ex;
static wasm_importtype_vec_t im;
static wasm_exporttype_vec_t et;
static wasm_functype_t *ft;
static wasm_func_t *f;
static wasm_trap_t *trap;

static void setup(void) {
    static const char wat[] =
        "(module (import \"h\" \"f\" (func)) (func (export \"boom\") unreachable)"
        " (global (export \"g\") i32 (i32.const 1)) (table (export \"t\") 1 funcref)"
        " (memory (export \"m\") 1) (tag (export \"e\") (param i32)))";
    wasm_byte_vec_t bin;
    wasm_extern_t *imports[1];
    wasm_extern_vec_t iv = WASM_ARRAY_VEC(imports);
    ft = wasm_functype_new_0_0();
    f = wasm_func_new(store, ft, cb);
    imports[0] = wasm_func_as_extern(f);
    if (!cranewasm_wat2wasm(wat, sizeof wat - 1, &bin)) exit(2);
    m = wasm_module_new(store, &bin);
    wasm_byte_vec_delete(&bin);
    inst = wasm_instance_new(store, m, &iv, NULL);
    if (!inst) exit(3);
    wasm_instance_exports(inst, &ex);
    wasm_module_imports(m, &im);
    wasm_module_exports(m, &et);
    trap = wasm_func_call(wasm_extern_as_func(ex.data[0]), NULL, NULL);
}

static void teardown(void) {
    wasm_trap_delete(trap);
    wasm_exporttype_vec_delete(&et);
    wasm_importtype_vec_delete(&im);
    wasm_extern_vec_delete(&ex);
    wasm_instance_delete(inst);
    wasm_module_delete(m);
    wasm_func_delete(f);
    wasm_functype_delete(ft);
}

/* Makes an object of `type`, for dead[] (deleted before the passes) and
   the live ones of the third pass. */
static void make(void **slot, const char *type) {
    wasm_limits_t lim = { 1, 1 };
#define IS(t) (strcmp(type, #t) == 0)
    if IS(wasm_store_t) *slot = wasm_store_new(engine);
    else if IS(wasm_config_t) *slot = wasm_config_new();
    else if (IS(wasm_module_t) || IS(wasm_shared_module_t)) *slot = wasm_module_share(m);
    else if IS(wasm_instance_t) *slot = wasm_instance_copy(inst);
    else if IS(wasm_func_t) *slot = wasm_func_copy(f);
    else if IS(wasm_extern_t) *slot = wasm_extern_copy(ex.data[2]);
    else if IS(wasm_global_t) *slot = wasm_global_copy(wasm_extern_as_global(ex.data[1]));
    else if IS(wasm_table_t) *slot = wasm_table_copy(wasm_extern_as_table(ex.data[2]));
    else if IS(wasm_memory_t) *slot = wasm_memory_copy(wasm_extern_as_memory(ex.data[3]));
    else if IS(wasm_ref_t) *slot = wasm_func_as_ref(f);
    else if IS(wasm_foreign_t) *slot = wasm_foreign_new(store);
    else if IS(wasm_trap_t) *slot = wasm_trap_copy(trap);
    else if IS(wasm_frame_t) *slot = wasm_trap_origin(trap);
    else if IS(wasm_valtype_t) *slot = wasm_valtype_new(WASM_F64);
    else if IS(wasm_functype_t) *slot = wasm_functype_copy(ft);
    else if IS(wasm_globaltype_t) *slot = wasm_global_type(wasm_extern_as_global(ex.data[1]));
    else if IS(wasm_tabletype_t) *slot = wasm_table_type(wasm_extern_as_table(ex.data[2]));
    else if IS(wasm_memorytype_t) *slot = wasm_memorytype_new(&lim);
    else if IS(wasm_externtype_t) *slot = wasm_extern_type(ex.data[0]);
    else if IS(wasm_importtype_t) *slot = wasm_importtype_copy(im.data[0]);
    else if IS(wasm_exporttype_t) *slot = wasm_exporttype_copy(et.data[0]);
    else if IS(cranewasm_interrupt_handle_t) *slot = cranewasm_store_interrupt_handle(store);
    else if IS(cranewasm_tag_t) {
        wasm_name_t n;
        wasm_name_new_from_string(&n, "e");
        *slot = cranewasm_instance_export_tag(inst, &n);
        wasm_name_delete(&n);
    }
    else { fprintf(stderr, "no maker for %s\n", type); exit(4); }
    if (!*slot) { fprintf(stderr, "could not make a %s\n", type); exit(5); }
}

/* Deletes an object made by make(). */
static void kill(void *o, const char *type) {
    if IS(wasm_store_t) wasm_store_delete(o);
    else if IS(wasm_config_t) wasm_config_delete(o);
    else if (IS(wasm_module_t) || IS(wasm_shared_module_t)) wasm_shared_module_delete(o);
    else if IS(wasm_instance_t) wasm_instance_delete(o);
    else if IS(wasm_func_t) wasm_func_delete(o);
    else if IS(wasm_extern_t) wasm_extern_delete(o);
    else if IS(wasm_global_t) wasm_global_delete(o);
    else if IS(wasm_table_t) wasm_table_delete(o);
    else if IS(wasm_memory_t) wasm_memory_delete(o);
    else if IS(wasm_ref_t) wasm_ref_delete(o);
    else if IS(wasm_foreign_t) wasm_foreign_delete(o);
    else if IS(wasm_trap_t) wasm_trap_delete(o);
    else if IS(wasm_frame_t) wasm_frame_delete(o);
    else if IS(wasm_valtype_t) wasm_valtype_delete(o);
    else if IS(wasm_functype_t) wasm_functype_delete(o);
    else if IS(wasm_globaltype_t) wasm_globaltype_delete(o);
    else if IS(wasm_tabletype_t) wasm_tabletype_delete(o);
    else if IS(wasm_memorytype_t) wasm_memorytype_delete(o);
    else if IS(wasm_externtype_t) wasm_externtype_delete(o);
    else if IS(wasm_importtype_t) wasm_importtype_delete(o);
    else if IS(wasm_exporttype_t) wasm_exporttype_delete(o);
    else if IS(cranewasm_interrupt_handle_t) cranewasm_interrupt_handle_delete(o);
    else if IS(cranewasm_tag_t) cranewasm_tag_delete(o);
}
"#;

#[test]
fn every_function_refuses_foreign_and_dead_objects() {
    let header = std::fs::read_to_string(common::repo().join("include/wasm_c_api.h")).expect("our header");
    let decls = common::declarations(&header);
    let types = object_types(&header);
    // The 22 opaque types of the header (20 of wasm_c_api.h's, our
    // interrupt handle and tags) and the 3 above.
    assert_eq!(types.len(), 25, "object types found in the header: {types:?}");

    let mut c = String::from(PRELUDE);
    // The engine is one per process: a dead one is the first, deleted
    // before the one the sweep uses is made.
    let engine = types.iter().position(|t| t == "wasm_engine_t").expect("wasm_engine_t");
    writeln!(c, "int main(void) {{\n  int pass;\n  dead[{engine}] = wasm_engine_new();").unwrap();
    writeln!(c, "  wasm_engine_delete(dead[{engine}]);").unwrap();
    c.push_str("  engine = wasm_engine_new();\n  store = wasm_store_new(engine);\n  setup();\n");
    for (k, t) in types.iter().enumerate().filter(|&(k, _)| k != engine) {
        writeln!(c, "  make(&dead[{k}], \"{t}\");").unwrap();
    }
    c.push_str("  make(&wrong_frame, \"wasm_frame_t\");\n  make(&wrong_valtype, \"wasm_valtype_t\");\n");
    for (k, t) in types.iter().enumerate().filter(|&(k, _)| k != engine) {
        writeln!(c, "  kill(dead[{k}], \"{t}\");").unwrap();
    }
    let mut calls = 0;
    c.push_str("  for (pass = 0; pass < 3; pass++) {\n");
    for scalar in [0, 1] {
        for d in &decls {
            let args: Vec<String> = d
                .params
                .iter()
                .enumerate()
                .map(|(i, p)| match object_param(p, &types) {
                    Some(t) => {
                        let k = types.iter().position(|x| x == t).unwrap();
                        format!("obj(pass, {k}, {})", (t == "wasm_frame_t") as u8)
                    }
                    // It frees the value it is given, which must come from
                    // malloc (WAMR's wasm_val_delete).
                    None if p.contains('*') && d.name == "wasm_val_delete" => "calloc(1, sizeof(wasm_val_t))".into(),
                    None if p.contains('*') => format!("zero({i})"),
                    None if p.contains("callback") => "NULL".into(),
                    None => scalar.to_string(),
                })
                .collect();
            writeln!(c, "    (void){}({}); done();", d.name, args.join(", ")).unwrap();
            calls += 1;
        }
    }
    c.push_str(
        "  }\n  if (wasm_frame_func_index(wrong_frame) != 1 || wasm_valtype_kind(wrong_valtype) != WASM_F64) {\n    \
         puts(\"a live object of another type was changed\");\n    return 1;\n  }\n  \
         wasm_frame_delete(wrong_frame);\n  wasm_valtype_delete(wrong_valtype);\n  teardown();\n  wasm_store_delete(store);\n  \
         wasm_engine_delete(engine);\n  puts(\"swept\");\n  return 0;\n}\n",
    );
    assert_eq!(calls, 2 * decls.len());

    let dir = common::scratch("foreign_sweep");
    let source = dir.join("foreign_sweep.c");
    std::fs::write(&source, c).expect("write the sweep");
    let exe = dir.join("foreign_sweep");
    common::compile(&[&source], &common::repo().join("include"), &exe, true, &["-Wno-deprecated-declarations"]);

    common::sweep_check(common::run(&mut Command::new(&exe)), "plainly");
    if std::env::var("VALGRIND").is_ok_and(|v| v == "0") {
        eprintln!("foreign_sweep: the valgrind run is SKIPPED (VALGRIND=0)");
        return;
    }
    // Leaks are not the point here (the sweep leaves what its calls made to
    // the process): any invalid access is.
    // Nothing is suppressed: under valgrind the engine checks bounds
    // explicitly, so no guard-page fault is reported (see README, "Under
    // valgrind").
    let mut vg = Command::new("valgrind");
    vg.args(["-q", "--smc-check=all-non-file", "--leak-check=no", "--error-exitcode=1"]).arg(&exe);
    let out = vg.output().unwrap_or_else(|e| panic!("cannot run valgrind (install it, or set VALGRIND=0): {e}"));
    common::sweep_check(out, "under valgrind");
}
