/* Modules: loading and WAMR's load errors, names, custom sections, import
 * and export queries with their type handles, loading from sections, and
 * multi-module: modules registered by name and read by the module reader
 * (with their buffers handed back to the destroyer), circular
 * dependencies and unknown ones. */
#include "export_common.h"

static const char *TYPES =
    "(module\n"
    "  (import \"env\" \"g\" (global (mut f32)))\n"
    "  (import \"env\" \"f\" (func (param i32 f64) (result i64)))\n"
    "  (import \"env\" \"m\" (memory 1 3))\n"
    "  (import \"wasi_snapshot_preview1\" \"fd_close\" (func (param i32) (result i32)))\n"
    "  (import \"env\" \"t\" (table 2 funcref))\n"
    "  (func (export \"e_f\") (param externref) (result f32) (f32.const 1))\n"
    "  (global (export \"e_g\") i64 (i64.const 1))\n"
    "  (table (export \"e_t\") 3 7 externref)\n"
    "  (@custom \"hello\" \"world\"))";

static const char *MATH = "(module (func (export \"add\") (param i32 i32) (result i32) "
                          "(i32.add (local.get 0) (local.get 1))) (memory (export \"mem\") 1))";
static const char *USER =
    "(module (import \"mathlib\" \"add\" (func $add (param i32 i32) (result i32)))\n"
    "  (import \"readlib\" \"add\" (func $add2 (param i32 i32) (result i32)))\n"
    "  (import \"readlib\" \"mem\" (memory 1))\n"
    "  (func (export \"run\") (result i32)\n"
    "    (i32.store (i32.const 8) (i32.const 5))\n"
    "    (call $add2 (call $add (i32.const 1) (i32.const 2)) (i32.load (i32.const 8)))))";
static const char *LOOPY = "(module (import \"loop\" \"f\" (func)))";
static const char *NEEDS_TABLE = "(module (import \"nowhere\" \"t\" (table 1 funcref)))";

static int reads, releases;
static wasm_byte_vec_t read_bytes[4];

static bool reader(package_type_t type, const char *name, uint8_t **buf, uint32_t *size)
{
    const char *wat = !strcmp(name, "readlib") ? MATH : !strcmp(name, "loop") ? LOOPY : NULL;
    wasm_byte_vec_t *b;
    CHECK(type == Wasm_Module_Bytecode, "the reader is asked for bytecode");
    if (!wat)
        return false;
    b = &read_bytes[reads++];
    CHECK(cranewasm_wat2wasm(wat, strlen(wat), b), "reader's WAT");
    *buf = (uint8_t *)b->data;
    *size = (uint32_t)b->size;
    return true;
}
static void destroyer(uint8_t *buf, uint32_t size)
{
    for (int k = 0; k < reads; k++)
        if ((uint8_t *)read_bytes[k].data == buf) {
            CHECK(size == read_bytes[k].size, "the buffer's own size");
            wasm_byte_vec_delete(&read_bytes[k]);
            releases++;
        }
}

static void expect_load_error(const uint8_t *buf, uint32_t size, const char *expected)
{
    char err[256] = "";
    wasm_module_t m = wasm_runtime_load((uint8_t *)buf, size, err, sizeof err);
    CHECK(m == NULL, "the load fails (%s)", expected);
    CHECK(strncmp(err, expected, strlen(expected)) == 0, "error \"%s\", expected \"%s...\"", err, expected);
}

int main(int argc, char **argv)
{
    wasm_module_t m, math, user, loopy, n;
    wasm_module_inst_t inst;
    wasm_import_t imp;
    wasm_export_t exp;
    char err[128];
    uint32_t len = 0;
    const uint8_t *data;
    static const uint8_t aot[16] = { 0, 'a', 'o', 't', 6 };
    static const uint8_t bad[] = { 0, 'a', 's', 'm', 1, 0, 0, 0, 0x01, 0x03, 0x01, 0x70, 0x00 };
    LoadArgs args;

    test_init(argc, argv, "export_module");
    CHECK(wasm_runtime_init(), "init");

    /* Load errors, with WAMR's texts. */
    expect_load_error(NULL, 0, "WASM module load failed: unexpected end");
    expect_load_error((const uint8_t *)"\0as", 3, "WASM module load failed: unexpected end");
    expect_load_error((const uint8_t *)"abcdefgh", 8, "WASM module load failed: magic header not detected");
    expect_load_error(aot, sizeof aot, "WASM module load failed: AOT modules (.aot files) are not supported");
    expect_load_error(bad, sizeof bad, "WASM module load failed: ");
    CHECK(wasm_runtime_load(bad, sizeof bad, NULL, 0) == NULL, "no error buffer");
    CHECK(wasm_runtime_load((uint8_t *)bad, sizeof bad, err, 8) == NULL && strcmp(err, "WASM mo") == 0,
          "the error truncated to the buffer");
    CHECK(wasm_runtime_load_ex((uint8_t *)bad, sizeof bad, NULL, err, sizeof err) == NULL
              && strcmp(err, "WASM module load failed: null load arguments") == 0,
          "NULL load arguments: %s", err);

    /* Names and custom sections. */
    m = load_wat(TYPES);
    CHECK(strcmp(wasm_runtime_get_module_name(m), "") == 0, "no name");
    CHECK(wasm_runtime_set_module_name(m, "named", err, sizeof err), "set_module_name");
    CHECK(strcmp(wasm_runtime_get_module_name(m), "named") == 0, "the name");
    CHECK(!wasm_runtime_set_module_name(m, NULL, err, sizeof err), "a NULL name");
    data = wasm_runtime_get_custom_section(m, "hello", &len);
    CHECK(data && len == 5 && memcmp(data, "world", 5) == 0, "the custom section");
    CHECK(wasm_runtime_get_custom_section(m, "nope", &len) == NULL, "a missing custom section");
    CHECK(wasm_runtime_is_underlying_binary_freeable(m), "the binary is copied");
    CHECK(wasm_runtime_resolve_symbols(m), "nothing to resolve late");

    /* Imports: functions, tables, memories, globals, as WAMR lists them. */
    CHECK_EQ_INT(wasm_runtime_get_import_count(m), 5, "imports");
    CHECK_EQ_INT(wasm_runtime_get_import_count(NULL), -1, "NULL module");
    wasm_runtime_get_import_type(m, 0, &imp);
    CHECK(!strcmp(imp.module_name, "env") && !strcmp(imp.name, "f") && imp.kind == WASM_IMPORT_EXPORT_KIND_FUNC
              && !imp.linked,
          "import 0: env.f, not linked");
    CHECK_EQ_INT(wasm_func_type_get_param_count(imp.u.func_type), 2, "f's parameters");
    CHECK_EQ_INT(wasm_func_type_get_param_valkind(imp.u.func_type, 1), WASM_F64, "f's second parameter");
    CHECK_EQ_INT(wasm_func_type_get_param_valkind(imp.u.func_type, 2), (wasm_valkind_t)-1, "past the parameters");
    CHECK_EQ_INT(wasm_func_type_get_result_count(imp.u.func_type), 1, "f's results");
    CHECK_EQ_INT(wasm_func_type_get_result_valkind(imp.u.func_type, 0), WASM_I64, "f's result");
    wasm_runtime_get_import_type(m, 1, &imp);
    CHECK(!strcmp(imp.name, "fd_close") && imp.linked, "WASI imports are linked");
    wasm_runtime_get_import_type(m, 2, &imp);
    CHECK(imp.kind == WASM_IMPORT_EXPORT_KIND_TABLE && !strcmp(imp.name, "t"), "then the table");
    CHECK(wasm_table_type_get_elem_kind(imp.u.table_type) == WASM_FUNCREF
              && wasm_table_type_get_init_size(imp.u.table_type) == 2
              && wasm_table_type_get_max_size(imp.u.table_type) == 1024 && !wasm_table_type_get_shared(imp.u.table_type),
          "the table's type (WAMR's default maximum)");
    wasm_runtime_get_import_type(m, 3, &imp);
    CHECK(imp.kind == WASM_IMPORT_EXPORT_KIND_MEMORY && wasm_memory_type_get_init_page_count(imp.u.memory_type) == 1
              && wasm_memory_type_get_max_page_count(imp.u.memory_type) == 3
              && !wasm_memory_type_get_shared(imp.u.memory_type),
          "then the memory");
    wasm_runtime_get_import_type(m, 4, &imp);
    CHECK(imp.kind == WASM_IMPORT_EXPORT_KIND_GLOBAL && wasm_global_type_get_valkind(imp.u.global_type) == WASM_F32
              && wasm_global_type_get_mutable(imp.u.global_type),
          "then the global");
    CHECK_EQ_INT(wasm_func_type_get_param_count((wasm_func_type_t)imp.u.global_type), 0,
                 "a global type is no function type");
    wasm_runtime_get_import_type(m, 5, &imp);
    CHECK(imp.module_name == NULL && imp.u.func_type == NULL, "past the imports: zeroed");

    /* Exports. */
    CHECK_EQ_INT(wasm_runtime_get_export_count(m), 3, "exports");
    wasm_runtime_get_export_type(m, 0, &exp);
    CHECK(!strcmp(exp.name, "e_f") && exp.kind == WASM_IMPORT_EXPORT_KIND_FUNC
              && wasm_func_type_get_param_valkind(exp.u.func_type, 0) == WASM_EXTERNREF
              && wasm_func_type_get_result_valkind(exp.u.func_type, 0) == WASM_F32,
          "export 0");
    wasm_runtime_get_export_type(m, 1, &exp);
    CHECK(exp.kind == WASM_IMPORT_EXPORT_KIND_GLOBAL && wasm_global_type_get_valkind(exp.u.global_type) == WASM_I64
              && !wasm_global_type_get_mutable(exp.u.global_type),
          "export 1");
    wasm_runtime_get_export_type(m, 2, &exp);
    CHECK(exp.kind == WASM_IMPORT_EXPORT_KIND_TABLE && wasm_table_type_get_elem_kind(exp.u.table_type) == WASM_EXTERNREF
              && wasm_table_type_get_max_size(exp.u.table_type) == 7,
          "export 2");
    wasm_runtime_get_export_type(m, -1, &exp);
    CHECK(exp.name == NULL, "a negative index: zeroed");

    /* Instantiation needs the imported global, which nothing provides. */
    CHECK(wasm_runtime_instantiate(m, 65536, 0, err, sizeof err) == NULL
              && strcmp(err, "failed to link import global (env, g)") == 0,
          "instantiation: %s", err);
    wasm_runtime_unload(m);
    wasm_runtime_unload(m);

    /* Loading from sections: type, function, export, code. */
    {
        static uint8_t type_body[] = { 1, 0x60, 0, 1, 0x7f };
        static uint8_t func_body[] = { 1, 0 };
        static uint8_t export_body[] = { 1, 1, 'f', 0, 0 };
        static uint8_t code_body[] = { 1, 4, 0, 0x41, 42, 0x0b };
        wasm_section_t s4 = { NULL, 10, code_body, sizeof code_body };
        wasm_section_t s3 = { &s4, 7, export_body, sizeof export_body };
        wasm_section_t s2 = { &s3, 3, func_body, sizeof func_body };
        wasm_section_t s1 = { &s2, 1, type_body, sizeof type_body };
        wasm_exec_env_t env;
        uint32_t cells[1];
        n = wasm_runtime_load_from_sections(&s1, false, err, sizeof err);
        CHECK(n != NULL, "load_from_sections: %s", err);
        inst = instantiate_module(n, 0);
        env = wasm_runtime_get_exec_env_singleton(inst);
        CHECK(wasm_runtime_call_wasm(env, wasm_runtime_lookup_function(inst, "f"), 0, cells) && cells[0] == 42,
              "the module from sections runs");
        wasm_runtime_deinstantiate(inst);
        wasm_runtime_unload(n);
        CHECK(wasm_runtime_load_from_sections(&s1, true, err, sizeof err) == NULL && strstr(err, "AOT"),
              "AOT section lists: %s", err);
    }

    /* Multi-module: a registered module and one the reader supplies. */
    math = load_wat(MATH);
    CHECK(!wasm_runtime_register_module("mathlib", math, NULL, 0), "an error buffer is required");
    CHECK(!wasm_runtime_register_module(NULL, math, err, sizeof err)
              && !strcmp(err, "Register module failed: module_name and module are required"),
          "a name is required");
    CHECK(!wasm_runtime_register_module("env", math, err, sizeof err)
              && !strcmp(err, "Register module failed: can not register as a built-in module"),
          "built-in names");
    CHECK(wasm_runtime_register_module("mathlib", math, err, sizeof err), "register");
    CHECK(wasm_runtime_register_module("mathlib", math, err, sizeof err), "again under the same name");
    CHECK(!wasm_runtime_register_module("other", math, err, sizeof err)
              && !strcmp(err, "Register module failed: failed to rename the module"),
          "no renaming");
    CHECK(wasm_runtime_find_module_registered("mathlib") == math, "find_module_registered");
    CHECK(wasm_runtime_find_module_registered("nope") == NULL, "an unregistered name");
    wasm_runtime_set_module_reader(reader, destroyer);
    user = load_wat(USER);
    CHECK(reads == 1 && wasm_runtime_find_module_registered("readlib") != NULL,
          "the reader supplied readlib, which is now registered");
    inst = instantiate_module(user, 0);
    {
        uint32_t cells[1];
        CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(inst),
                                     wasm_runtime_lookup_function(inst, "run"), 0, cells),
              "run: %s", exception(inst));
        CHECK_EQ_INT(cells[0], 8, "1 + 2 through mathlib, + 5 stored in readlib's memory, through readlib");
    }
    wasm_runtime_deinstantiate(inst);
    loopy = load_wat(LOOPY);
    CHECK(reads == 2, "the reader was asked for loop once; the loop stopped there");
    n = load_wat(NEEDS_TABLE);
    CHECK(wasm_runtime_instantiate(n, 65536, 0, err, sizeof err) == NULL
              && !strcmp(err, "failed to link import table (nowhere, t)"),
          "a table from an unknown module: %s", err);
    wasm_runtime_unload(n);
    wasm_runtime_unload(loopy);
    wasm_runtime_unload(user);
    wasm_runtime_unload(math);
    CHECK(wasm_runtime_find_module_registered("mathlib") == NULL, "unloading unregisters");
    wasm_runtime_destroy();
    CHECK(releases == reads, "every buffer the reader gave went back to the destroyer (%d of %d)", releases, reads);
    test_pass();
    return 0;
}
