/* Multi-module as WAMR's samples use it (issue 30, "Also check"; WAMR's
 * multi-module sample): a module reader supplying mA, a module registered
 * with wasm_runtime_register_module (mB, importing from mA), and a main
 * module importing functions, a constant and a mutable global, and the
 * memory of mA, and a function of mB.
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build with
 * multi-module, see export_wamr.h): the reader is asked for mA only (mB is
 * registered), and once; calls through mA and mB give 11 and 21; the
 * constant reads 7; the mutable global is mA's own (bump in mA, read in
 * the main module: 101; set in the main module, bumped in mA: 501); a
 * store to the imported memory is seen by mA (1234); each buffer the
 * reader gave goes back to the destroyer with the runtime; a module the
 * reader cannot supply fails the load with WAMR's message. */
#include "export_wamr.h"

static int reads, releases;

static bool reader(package_type_t type, const char *name, uint8_t **buf, uint32_t *size)
{
    char file[64];
    CHECK(type == Wasm_Module_Bytecode, "the reader is asked for bytecode");
    if (strcmp(name, "mA") != 0)
        return false;
    reads++;
    snprintf(file, sizeof file, "export_wamr_mm_a");
    *buf = read_wasm(file, size);
    return true;
}

static void destroyer(uint8_t *buf, uint32_t size)
{
    releases++;
    free(buf);
}

static int32_t call0(wasm_module_inst_t i, const char *name)
{
    uint32_t cells[1] = { 0 };
    wasm_exec_env_t env = wasm_runtime_get_exec_env_singleton(i);
    CHECK(wasm_runtime_call_wasm(env, func(i, name), 0, cells), "%s: %s", name, exception_of(i));
    return (int32_t)cells[0];
}

int main(int argc, char **argv)
{
    char err[256] = "";
    wasm_module_t b, c;
    wasm_module_inst_t i;

    test_init(argc, argv, "export_wamr_multi_module");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    wasm_runtime_set_module_reader(reader, destroyer);

    b = load("export_wamr_mm_b");
    CHECK(wasm_runtime_register_module("mB", b, err, sizeof err), "register mB: %s", err);
    CHECK(reads == 1, "loading mB read mA: %d", reads);
    c = load("export_wamr_mm_c");
    CHECK(reads == 1, "mA was read once: %d", reads);
    CHECK(wasm_runtime_find_module_registered("mA") != NULL, "what the reader supplied is registered");
    CHECK(wasm_runtime_find_module_registered("mB") == b, "mB");

    i = new_instance(c, 0);
    CHECK_EQ_INT(call0(i, "C1"), 11, "a function of mA");
    CHECK_EQ_INT(call0(i, "C2"), 21, "a function of mB, which calls mA");
    CHECK_EQ_INT(call0(i, "C3"), 7, "mA's constant global");
    CHECK_EQ_INT(call0(i, "C4"), 101, "mA's mutable global, bumped by mA, read here");
    CHECK_EQ_INT(call0(i, "C6"), 501, "set here, bumped by mA");
    CHECK_EQ_INT(call0(i, "C5"), 1234, "mA's memory, stored to here, loaded by mA");
    wasm_runtime_deinstantiate(i);

    unload(c);
    unload(b);
    wasm_runtime_destroy();
    CHECK(releases == reads, "every buffer the reader gave went back (%d of %d)", releases, reads);
    test_pass();
    return 0;
}
