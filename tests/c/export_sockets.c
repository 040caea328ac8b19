/* WASI sockets through wasm_export.h: the address pool and the name-lookup
 * pool given with wasm_runtime_set_wasi_addr_pool and
 * wasm_runtime_set_wasi_ns_lookup_pool on a module, and with the
 * InstantiationArgs2 setters (which replace the module's), decide what
 * the guest's sockets may reach; also on `*module` of the wasm-c-api.
 * The guest connects a UDP socket to 127.0.0.1:9 (which sends nothing) and
 * looks up "localhost"; each answers its WASI errno (EACCES is 2). */
#include "export_common.h"

static const char *WAT =
    "(module\n"
    "  (import \"wasi_snapshot_preview1\" \"sock_open\" (func $open (param i32 i32 i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"sock_connect\" (func $connect (param i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"sock_addr_resolve\"\n"
    "    (func $resolve (param i32 i32 i32 i32 i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"fd_close\" (func $close (param i32) (result i32)))\n"
    "  (memory (export \"memory\") 1)\n"
    "  (data (i32.const 64) \"\\00\\00\\00\\00\\7f\\00\\00\\01\\09\\00\")\n" /* 127.0.0.1:9 */
    "  (data (i32.const 128) \"localhost\\00\")\n"
    "  (data (i32.const 160) \"\\ff\\ff\\ff\\ff\\00\\00\\00\\00\\01\")\n" /* any type, IPv4 */
    "  (func (export \"connect4\") (result i32) (local $e i32)\n"
    "    (local.set $e (call $open (i32.const -1) (i32.const 0) (i32.const 0) (i32.const 0)))\n"
    "    (if (local.get $e) (then (return (local.get $e))))\n"
    "    (local.set $e (call $connect (i32.load (i32.const 0)) (i32.const 64)))\n"
    "    (drop (call $close (i32.load (i32.const 0))))\n"
    "    (local.get $e))\n"
    "  (func (export \"resolve\") (result i32)\n"
    "    (call $resolve (i32.const 128) (i32.const 144) (i32.const 160) (i32.const 256) (i32.const 4)\n"
    "      (i32.const 240))))";

#define EACCES_WASI 2

/* Calls export `name` of `i`: its i32 result. */
static int32_t call_export(wasm_module_inst_t i, const char *name)
{
    uint32_t cells[1] = { 0 };
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), wasm_runtime_lookup_function(i, name), 0,
                                 cells),
          "%s: %s", name, exception(i));
    return (int32_t)cells[0];
}

/* Instantiates `m` (with `a2` if given) and checks what connect4 and
   resolve answer. */
static void expect(wasm_module_t m, struct InstantiationArgs2 *a2, int connect, int resolve, const char *what)
{
    char err[256] = "";
    wasm_module_inst_t i =
        a2 ? wasm_runtime_instantiate_ex2(m, a2, err, sizeof err) : wasm_runtime_instantiate(m, 65536, 0, err, sizeof err);
    CHECK(i != NULL, "%s: %s", what, err);
    int32_t got = call_export(i, "connect4");
    CHECK(got == connect, "%s: connect to 127.0.0.1 answered %d, expected %d", what, got, connect);
    got = call_export(i, "resolve");
    CHECK(got == resolve, "%s: a lookup of localhost answered %d, expected %d", what, got, resolve);
    wasm_runtime_deinstantiate(i);
}

int main(int argc, char **argv)
{
    const char *loopback[] = { "127.0.0.1/32" }, *v6_only[] = { "::1/128" }, *net8[] = { "127.0.0.0/8" };
    const char *localhost[] = { "localhost" }, *elsewhere[] = { "*.invalid" }, *any[] = { "*" };
    struct InstantiationArgs2 *a2 = NULL;
    wasm_module_t m;

    test_init(argc, argv, "export_sockets");
    CHECK(wasm_runtime_init(), "init");
    m = load_wat(WAT);

    /* No pools: nothing may be reached or looked up. */
    expect(m, NULL, EACCES_WASI, EACCES_WASI, "no pools");

    /* The module's pools. */
    wasm_runtime_set_wasi_addr_pool(m, loopback, 1);
    wasm_runtime_set_wasi_ns_lookup_pool(m, localhost, 1);
    expect(m, NULL, 0, 0, "the module's pools");

    /* Instantiation arguments replace them. */
    CHECK(wasm_runtime_instantiation_args_create(&a2), "args");
    wasm_runtime_instantiation_args_set_wasi_addr_pool(a2, v6_only, 1);
    wasm_runtime_instantiation_args_set_wasi_ns_lookup_pool(a2, elsewhere, 1);
    expect(m, a2, EACCES_WASI, EACCES_WASI, "arguments without loopback IPv4 or localhost");
    wasm_runtime_instantiation_args_set_wasi_addr_pool(a2, net8, 1);
    wasm_runtime_instantiation_args_set_wasi_ns_lookup_pool(a2, any, 1);
    expect(m, a2, 0, 0, "arguments with 127.0.0.0/8 and *");
    wasm_runtime_instantiation_args_destroy(a2);
    wasm_runtime_unload(m);

    /* The wasm-c-api: the pools of *module apply to wasm_instance_new's
       WASI. */
    {
        wasm_engine_t *engine = wasm_engine_new();
        wasm_store_t *store = wasm_store_new(engine);
        wasm_byte_vec_t bin;
        wasm_module_t *cm;
        wasm_importtype_vec_t imports;
        wasm_extern_t *externs[4];
        wasm_extern_vec_t ext_vec, exports;
        wasm_instance_t *inst;
        wasm_val_t result[1] = { WASM_INIT_VAL };
        wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_ARRAY_VEC(result);
        size_t k;

        CHECK(cranewasm_wat2wasm(WAT, strlen(WAT), &bin), "WAT");
        cm = wasm_module_new(store, &bin);
        wasm_byte_vec_delete(&bin);
        CHECK(cm != NULL && *cm != NULL, "wasm_module_new");
        wasm_runtime_set_wasi_addr_pool(*cm, loopback, 1);
        wasm_module_imports(cm, &imports);
        CHECK_EQ_INT(imports.size, 4, "four WASI imports");
        for (k = 0; k < imports.size; k++)
            externs[k] = wasm_extern_new_empty(store, wasm_externtype_kind(wasm_importtype_type(imports.data[k])));
        wasm_extern_vec_new(&ext_vec, imports.size, externs);
        inst = wasm_instance_new(store, cm, &ext_vec, NULL);
        CHECK(inst != NULL, "wasm_instance_new");
        wasm_instance_exports(inst, &exports);
        /* exports: memory, connect4, resolve */
        CHECK(wasm_func_call(wasm_extern_as_func(exports.data[1]), &args, &results) == NULL, "connect4");
        CHECK_EQ_INT(result[0].of.i32, 0, "*module's pool lets the guest connect to 127.0.0.1");
        CHECK(wasm_func_call(wasm_extern_as_func(exports.data[2]), &args, &results) == NULL, "resolve");
        CHECK_EQ_INT(result[0].of.i32, EACCES_WASI, "*module has no lookup pool");
        wasm_extern_vec_delete(&exports);
        wasm_instance_delete(inst);
        wasm_extern_vec_delete(&ext_vec);
        wasm_importtype_vec_delete(&imports);
        wasm_module_delete(cm);
        wasm_store_delete(store);
        wasm_engine_delete(engine);
    }
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
