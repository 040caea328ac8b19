/* App memory of a 64-bit memory (memory64) through wasm_export.h, whose app
 * offsets are uint64_t as in WAMR's memory64 build: validation at the edges
 * and past 4 GiB, conversions both ways, the address range, the app heap,
 * and wasm seeing the host's writes at i64 addresses. */
#include "export_common.h"

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    wasm_exec_env_t env;
    wasm_function_inst_t load8;
    wasm_val_t args[1], results[1];
    uint64_t a, start = 1, end = 1;
    uint8_t *base;
    void *native = NULL;
    const uint64_t size = 65536 * 2;

    test_init(argc, argv, "export_memory64");
    CHECK(wasm_runtime_init(), "init");
    m = load_wat("(module (memory (export \"memory\") i64 2) (data (i64.const 100) \"text\\00\")"
                 " (func (export \"load8\") (param i64) (result i32) (i32.load8_u (local.get 0))))");
    i = instantiate_module(m, 0);
    base = wasm_runtime_addr_app_to_native(i, 0);
    CHECK(base != NULL, "memory base");

    CHECK(wasm_runtime_validate_app_addr(i, 0, size), "all of memory");
    CHECK(wasm_runtime_validate_app_addr(i, size, 0), "the empty range at the end");
    CHECK(!wasm_runtime_validate_app_addr(i, size - 1, 2), "one byte past the end");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_app_addr(i, (uint64_t)1 << 32, 1), "past 4 GiB");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_app_addr(i, UINT64_MAX, 2), "an overflowing range");
    wasm_runtime_clear_exception(i);
    CHECK(wasm_runtime_validate_app_str_addr(i, 100), "a string");
    CHECK(strcmp(wasm_runtime_addr_app_to_native(i, 100), "text") == 0, "the data segment at an i64 offset");
    CHECK(wasm_runtime_addr_app_to_native(i, size) == NULL, "past the end");
    CHECK(wasm_runtime_addr_app_to_native(i, (uint64_t)1 << 33) == NULL, "far past the end");
    CHECK(wasm_runtime_addr_native_to_app(i, base + size - 1) == size - 1, "native to app");
    CHECK(wasm_runtime_get_app_addr_range(i, 5, &start, &end) && start == 0 && end == size, "app range");

    /* wasm reads what the host wrote, at an i64 address. */
    base[size - 1] = 77;
    env = wasm_runtime_create_exec_env(i, 65536);
    load8 = wasm_runtime_lookup_function(i, "load8");
    CHECK(load8 != NULL, "load8");
    args[0].kind = WASM_I64;
    args[0].of.i64 = (int64_t)(size - 1);
    CHECK(wasm_runtime_call_wasm_a(env, load8, 1, results, 1, args), "call load8");
    CHECK(results[0].kind == WASM_I32 && results[0].of.i32 == 77, "load8 = %d", results[0].of.i32);
    args[0].of.i64 = (int64_t)size;
    CHECK(!wasm_runtime_call_wasm_a(env, load8, 1, results, 1, args), "out of bounds");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);

    /* The app heap in a 64-bit memory. */
    i = instantiate_module(m, 16384);
    a = wasm_runtime_module_malloc(i, 64, &native);
    CHECK(a != 0 && native == wasm_runtime_addr_app_to_native(i, a), "malloc gives both addresses");
    CHECK(wasm_runtime_validate_app_addr(i, a, 64), "the block is in memory");
    memset(native, 0xab, 64);
    CHECK(strcmp(wasm_runtime_addr_app_to_native(i, 100), "text") == 0, "the module's data is untouched");
    wasm_runtime_module_free(i, a);
    wasm_runtime_deinstantiate(i);

    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
