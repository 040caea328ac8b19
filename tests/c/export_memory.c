/* App memory: validation of app, string and native addresses at the edges
 * of memory (with WAMR's exception), conversions both ways, address
 * ranges, module_malloc/free/dup_data, and an instance without memory. */
#include "export_common.h"

int main(int argc, char **argv)
{
    wasm_module_t m, none;
    wasm_module_inst_t i, n;
    uint64_t a, start = 1, end = 1;
    uint8_t *base, *p, *s = NULL, *e = NULL;
    void *native = NULL;
    const uint64_t size = 65536 * 2;

    test_init(argc, argv, "export_memory");
    CHECK(wasm_runtime_init(), "init");
    m = load_wat("(module (memory (export \"memory\") 2) (data (i32.const 100) \"text\\00\")"
                 " (data (i32.const 131070) \"zz\"))");
    i = instantiate_module(m, 0);
    base = wasm_runtime_addr_app_to_native(i, 0);
    CHECK(base != NULL, "memory base");

    CHECK(wasm_runtime_validate_app_addr(i, 0, size), "all of memory");
    CHECK(wasm_runtime_validate_app_addr(i, size, 0), "the empty range at the end");
    CHECK(!wasm_runtime_validate_app_addr(i, size - 1, 2), "one byte past the end");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_app_addr(i, UINT64_MAX, 2), "an overflowing range");
    wasm_runtime_clear_exception(i);
    CHECK(wasm_runtime_validate_app_str_addr(i, 100), "a string");
    CHECK(!wasm_runtime_validate_app_str_addr(i, 131070), "no NUL before the end");
    CHECK_EXCEPTION(i, "Exception: out of bounds memory access");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_app_str_addr(i, size), "past the end");
    wasm_runtime_clear_exception(i);
    CHECK(wasm_runtime_validate_native_addr(i, base + 10, 20), "native range");
    CHECK(!wasm_runtime_validate_native_addr(i, base - 1, 1), "before memory");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_native_addr(i, base + size - 4, 8), "across the end");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_validate_native_addr(i, &a, 8), "host memory");
    wasm_runtime_clear_exception(i);

    CHECK(wasm_runtime_addr_app_to_native(i, 100) == base + 100, "app to native");
    CHECK(wasm_runtime_addr_app_to_native(i, size) == NULL, "past the end");
    CHECK(wasm_runtime_addr_native_to_app(i, base + 100) == 100, "native to app");
    CHECK(wasm_runtime_addr_native_to_app(i, &a) == 0, "host memory has no app address");
    CHECK(wasm_runtime_get_app_addr_range(i, 5, &start, &end) && start == 0 && end == size, "app range");
    CHECK(!wasm_runtime_get_app_addr_range(i, size, &start, &end), "no range past the end");
    CHECK(wasm_runtime_get_native_addr_range(i, base + 5, &s, &e) && s == base && e == base + size, "native range");
    CHECK(!wasm_runtime_get_native_addr_range(i, (uint8_t *)&a, &s, &e), "host memory");
    CHECK(wasm_runtime_get_app_addr_range(i, 0, NULL, NULL), "NULL out pointers");
    wasm_runtime_deinstantiate(i);

    /* Allocation with an app heap. */
    i = instantiate_module(m, 16384);
    a = wasm_runtime_module_malloc(i, 64, &native);
    CHECK(a != 0 && native == wasm_runtime_addr_app_to_native(i, a), "malloc gives both addresses");
    memset(native, 0xab, 64);
    p = wasm_runtime_addr_app_to_native(i, 100);
    CHECK(memcmp(p, "text", 5) == 0, "the module's data is untouched by the heap");
    wasm_runtime_module_free(i, a);
    wasm_runtime_module_free(i, a);
    wasm_runtime_module_free(i, 12345);
    a = wasm_runtime_module_dup_data(i, "hello", 6);
    CHECK(a != 0 && strcmp(wasm_runtime_addr_app_to_native(i, a), "hello") == 0, "dup_data");
    CHECK(wasm_runtime_module_malloc(i, (uint64_t)1 << 33, &native) == 0 && native == NULL, "too much");
    CHECK(wasm_runtime_module_dup_data(i, NULL, 4) == 0, "dup_data of NULL");
    wasm_runtime_deinstantiate(i);

    /* Without an app heap or an allocator of its own: nothing to allocate. */
    i = instantiate_module(m, 0);
    CHECK(wasm_runtime_module_malloc(i, 8, NULL) == 0, "no heap");
    wasm_runtime_deinstantiate(i);

    /* An instance without memory. */
    none = load_wat("(module)");
    n = instantiate_module(none, 0);
    CHECK(wasm_runtime_module_malloc(n, 8, &native) == 0 && native == NULL, "no memory to allocate in");
    CHECK_EXCEPTION(n, "Exception: uninitialized memory");
    wasm_runtime_clear_exception(n);
    CHECK(!wasm_runtime_validate_app_addr(n, 0, 0), "no memory to validate in");
    CHECK(wasm_runtime_addr_app_to_native(n, 0) == NULL && wasm_runtime_get_default_memory(n) == NULL, "no memory");
    wasm_runtime_deinstantiate(n);
    wasm_runtime_unload(none);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
