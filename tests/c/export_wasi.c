/* WASI through both headers: wasm_runtime_set_wasi_args_ex on a module
 * (arguments, environment, a stdout fd, a bad directory mapping), the
 * InstantiationArgs2 WASI setters overriding the module's settings,
 * is_wasi_mode, lookup_wasi_start_function, execute_main and the exit
 * code of proc_exit; and through the wasm-c-api as WAMR does it:
 * wasm_importtype_is_linked for WASI imports, wasm_extern_new_empty
 * placeholders linked by wasm_instance_new, and `*module` of a
 * wasm_module_new result used with wasm_runtime_set_wasi_args. */
#include "export_common.h"

static const char *WAT =
    "(module\n"
    "  (import \"wasi_snapshot_preview1\" \"fd_write\" (func $fd_write (param i32 i32 i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"args_sizes_get\" (func $asg (param i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"environ_sizes_get\" (func $esg (param i32 i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"proc_exit\" (func $exit (param i32)))\n"
    "  (memory (export \"memory\") 1)\n"
    "  (data (i32.const 8) \"\\10\\00\\00\\00\\06\\00\\00\\00hello\\n\")\n"
    "  (func (export \"_start\")\n"
    "    (drop (call $fd_write (i32.const 1) (i32.const 8) (i32.const 1) (i32.const 100)))\n"
    "    (drop (call $asg (i32.const 200) (i32.const 204)))\n"
    "    (drop (call $esg (i32.const 208) (i32.const 212)))\n"
    "    (call $exit (i32.add (i32.mul (i32.load (i32.const 200)) (i32.const 10)) (i32.load (i32.const 208)))))\n"
    "  (func (export \"argc\") (result i32) (drop (call $asg (i32.const 200) (i32.const 204))) (i32.load (i32.const 200))))";

/* Reads what is in the pipe (non-blocking: the writes are done). */
static const char *drain(int fd)
{
    static char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

int main(int argc, char **argv)
{
    wasm_module_t m, plain;
    wasm_module_inst_t i;
    int fds[2];
    char err[256];
    const char *env[] = { "A=1", "B=2" };
    char *args[] = { "prog", "x", "y" };
    char *one[] = { "only" };
    const char *bad_map[] = { "no-delimiter" };
    struct InstantiationArgs2 *a2 = NULL;
    uint32_t cells[1];

    test_init(argc, argv, "export_wasi");
    CHECK(wasm_runtime_init(), "init");
    CHECK(pipe(fds) == 0, "pipe");
    m = load_wat(WAT);
    wasm_runtime_set_wasi_args_ex(m, NULL, 0, NULL, 0, env, 2, args, 3, -1, fds[1], -1);
    i = instantiate_module(m, 0);
    CHECK(wasm_runtime_is_wasi_mode(i), "a WASI module");
    CHECK(wasm_runtime_lookup_wasi_start_function(i) == wasm_runtime_lookup_function(i, "_start"), "_start");
    CHECK(wasm_application_execute_main(i, 0, NULL), "execute_main: %s", exception(i));
    CHECK(wasm_runtime_get_exception(i) == NULL, "proc_exit counts as success");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(i), 32, "3 arguments, 2 variables");
    CHECK(strcmp(drain(fds[0]), "hello\n") == 0, "fd_write went to the given stdout fd");
    /* Calling _start directly: proc_exit is WAMR's "wasi proc exit". */
    CHECK(!wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), wasm_runtime_lookup_function(i, "_start"), 0,
                                  cells),
          "proc_exit ends the call");
    CHECK_EXCEPTION(i, "Exception: wasi proc exit");
    drain(fds[0]);
    wasm_runtime_deinstantiate(i);

    /* InstantiationArgs2's WASI settings win over the module's. */
    CHECK(wasm_runtime_instantiation_args_create(&a2), "args");
    wasm_runtime_instantiation_args_set_wasi_arg(a2, one, 1);
    wasm_runtime_instantiation_args_set_wasi_env(a2, NULL, 0);
    wasm_runtime_instantiation_args_set_wasi_dir(a2, NULL, 0, NULL, 0);
    wasm_runtime_instantiation_args_set_wasi_stdio(a2, -1, fds[1], -1);
    wasm_runtime_instantiation_args_set_wasi_addr_pool(a2, NULL, 0);
    wasm_runtime_instantiation_args_set_wasi_ns_lookup_pool(a2, NULL, 0);
    i = wasm_runtime_instantiate_ex2(m, a2, err, sizeof err);
    CHECK(i != NULL, "instantiate_ex2: %s", err);
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), wasm_runtime_lookup_function(i, "argc"), 0,
                                 cells) && cells[0] == 1,
          "one argument from the arguments");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_instantiation_args_destroy(a2);

    /* A malformed directory mapping: WAMR's message. */
    wasm_runtime_set_wasi_args(m, NULL, 0, bad_map, 1, NULL, 0, NULL, 0);
    CHECK(wasm_runtime_instantiate(m, 65536, 0, err, sizeof err) == NULL
              && strstr(err, "error while pre-opening mapped directory: invalid map"),
          "a bad mapping: %s", err);
    {
        const char *missing[] = { "/no/such/dir" };
        wasm_runtime_set_wasi_args(m, missing, 1, NULL, 0, NULL, 0, NULL, 0);
        CHECK(wasm_runtime_instantiate(m, 65536, 0, err, sizeof err) == NULL
                  && !strcmp(err, "error while pre-opening directory /no/such/dir: 44\n"),
              "a missing directory, WASI's ENOENT: %s", err);
    }
    wasm_runtime_set_wasi_args(m, NULL, 0, NULL, 0, NULL, 0, NULL, 0);

    /* Address pools are checked as WAMR checks them. */
    {
        const char *no_mask[] = { "127.0.0.1" }, *bad_addr[] = { "nowhere/8" }, *good[] = { "127.0.0.1/8", "::1/128" };
        wasm_runtime_set_wasi_addr_pool(m, no_mask, 1);
        CHECK(wasm_runtime_instantiate(m, 65536, 0, err, sizeof err) == NULL
                  && !strcmp(err, "Invalid address pool entry: 127.0.0.1, must be in the format of ADDRESS/MASK"),
              "an entry without a mask: %s", err);
        wasm_runtime_set_wasi_addr_pool(m, bad_addr, 1);
        CHECK(wasm_runtime_instantiate(m, 65536, 0, err, sizeof err) == NULL
                  && strstr(err, "store address failed"),
              "not an address: %s", err);
        wasm_runtime_set_wasi_addr_pool(m, good, 2);
        i = wasm_runtime_instantiate(m, 65536, 0, err, sizeof err);
        CHECK(i != NULL, "good entries: %s", err);
        wasm_runtime_deinstantiate(i);
    }
    wasm_runtime_unload(m);

    /* Not a WASI module. */
    plain = load_wat("(module (func (export \"_start\")))");
    i = instantiate_module(plain, 0);
    CHECK(!wasm_runtime_is_wasi_mode(i) && wasm_runtime_get_wasi_exit_code(i) == 0, "not WASI");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(plain);

    /* The wasm-c-api: *module is the module of wasm_export.h, and
       wasm_instance_new links WASI for placeholders. */
    {
        wasm_engine_t *engine = wasm_engine_new();
        wasm_store_t *store = wasm_store_new(engine);
        wasm_byte_vec_t bin;
        wasm_module_t *cm;
        wasm_importtype_vec_t imports;
        wasm_extern_t *externs[8];
        wasm_extern_vec_t ext_vec, exports;
        wasm_instance_t *inst;
        wasm_trap_t *trap;
        size_t k;

        CHECK(cranewasm_wat2wasm(WAT, strlen(WAT), &bin), "WAT");
        cm = wasm_module_new(store, &bin);
        wasm_byte_vec_delete(&bin);
        CHECK(cm != NULL && *cm != NULL, "wasm_module_new, and its export-API module");
        CHECK_EQ_INT(wasm_runtime_get_import_count(*cm), 4, "*module answers wasm_export.h's queries");
        wasm_runtime_set_wasi_args_ex(*cm, NULL, 0, NULL, 0, env, 1, args, 2, -1, fds[1], -1);
        wasm_runtime_unload(*cm);
        CHECK_EQ_INT(wasm_runtime_get_import_count(*cm), 4, "unload of a wasm-c-api module is refused");
        wasm_module_imports(cm, &imports);
        for (k = 0; k < imports.size; k++) {
            CHECK(wasm_importtype_is_linked(imports.data[k]), "WASI import %zu is linked", k);
            externs[k] = wasm_extern_new_empty(store, wasm_externtype_kind(wasm_importtype_type(imports.data[k])));
        }
        wasm_extern_vec_new(&ext_vec, imports.size, externs);
        inst = wasm_instance_new(store, cm, &ext_vec, NULL);
        CHECK(inst != NULL, "wasm_instance_new with placeholders for WASI");
        wasm_instance_exports(inst, &exports);
        trap = wasm_func_call(wasm_extern_as_func(exports.data[1]), NULL, NULL);
        CHECK(strcmp(drain(fds[0]), "hello\n") == 0, "WASI's fd_write, with the module's stdout fd");
        CHECK(trap != NULL, "proc_exit ends the call with a trap");
        wasm_trap_delete(trap);
        wasm_extern_vec_delete(&exports);
        wasm_instance_delete(inst);
        wasm_extern_vec_delete(&ext_vec);
        wasm_importtype_vec_delete(&imports);
        wasm_module_delete(cm);
        wasm_store_delete(store);
        wasm_engine_delete(engine);
    }
    close(fds[0]);
    close(fds[1]);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
