/* Shared helpers for the export_wamr_*.c tests: checks of WAMR's own
 * behaviour through wasm_export.h, one rule of capi/README.md's
 * "wasm_export.h: WAMR's rules" table per part.
 *
 * They use only WAMR's public headers and the WAT files of wat/, so that
 * they build against WAMR's library as well as ours. Each program says,
 * rule by rule, whether its expected values were recorded from a run of
 * WAMR 2.4.3 (built as the sample the rule comes from builds it, or as
 * product-mini/platforms/linux with the thread manager, wasi-threads and
 * multi-module: -DWAMR_BUILD_LIB_WASI_THREADS=1 -DWAMR_BUILD_MULTI_MODULE=1
 * -DWAMR_BUILD_SHARED_MEMORY=1 -DWAMR_BUILD_SIMD=0
 * -DWAMR_DISABLE_WRITE_GS_BASE=1 -DBUILD_SHARED_LIBS=ON, target vmlib), or
 * written from WAMR's source. To run one against WAMR:
 *
 *     CAPI_TEST_AGAINST_WAMR=1 VALGRIND=0 tests/c/run.sh \
 *         WAMR/core/iwasm/include WAMR/product-mini/platforms/linux/build \
 *         export_wamr_calls
 *
 * Checks where ours deliberately differs (WAMR reads past the caller's
 * buffer, say) are marked OURS("why") and skipped against WAMR, saying so.
 */
#ifndef EXPORT_WAMR_TEST_H
#define EXPORT_WAMR_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "wasm_export.h"

/* Set when the program runs against WAMR's library (see above). */
static int against_wamr(void)
{
    const char *e = getenv("CAPI_TEST_AGAINST_WAMR");
    return e && *e && strcmp(e, "0") != 0;
}

/* if (OURS("why")) { checks }: the checks assert our behaviour where it
   deliberately differs from WAMR's (the table's row says why); against
   WAMR they are skipped with a note. */
static int ours_only(const char *file, int line, const char *why)
{
    if (!against_wamr())
        return 1;
    printf("skipped against WAMR (%s:%d): %s\n", file, line, why);
    return 0;
}
#define OURS(why) ours_only(__FILE__, __LINE__, (why))

/* Reads <wasm dir>/<name>.wasm into a malloc'd buffer. */
static uint8_t *read_wasm(const char *name, uint32_t *size)
{
    char path[4096];
    FILE *f;
    long len;
    uint8_t *buf;
    snprintf(path, sizeof path, "%s/%s.wasm", test_wasm_dir, name);
    f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open test module %s (run through run.sh)", path);
    fseek(f, 0, SEEK_END);
    len = ftell(f);
    fseek(f, 0, SEEK_SET);
    buf = malloc((size_t)len);
    CHECK(buf && fread(buf, 1, (size_t)len, f) == (size_t)len, "read %s", path);
    fclose(f);
    *size = (uint32_t)len;
    return buf;
}

/* The buffers of loaded modules: WAMR keeps pointers into a module's
   buffer (its export names, say) until the module is unloaded. */
static struct {
    wasm_module_t module;
    uint8_t *buf;
} loaded[32];

/* Loads <wasm dir>/<name>.wasm; unload() frees its buffer. */
static wasm_module_t load(const char *name)
{
    char err[256] = "";
    uint32_t size;
    uint8_t *buf = read_wasm(name, &size);
    wasm_module_t m = wasm_runtime_load(buf, size, err, sizeof err);
    CHECK(m != NULL, "wasm_runtime_load(%s.wasm): %s", name, err);
    for (size_t k = 0; k < sizeof loaded / sizeof loaded[0]; k++) {
        if (!loaded[k].module) {
            loaded[k].module = m;
            loaded[k].buf = buf;
            return m;
        }
    }
    CHECK(0, "more than %zu modules loaded at once", sizeof loaded / sizeof loaded[0]);
    return NULL;
}

/* Unloads a module load() loaded, and frees its buffer. */
static void unload(wasm_module_t m)
{
    wasm_runtime_unload(m);
    for (size_t k = 0; k < sizeof loaded / sizeof loaded[0]; k++) {
        if (loaded[k].module == m) {
            free(loaded[k].buf);
            loaded[k].module = NULL;
            loaded[k].buf = NULL;
        }
    }
}

/* Instantiates with a 64 KiB stack and `heap` bytes of app heap. */
static wasm_module_inst_t new_instance(wasm_module_t m, uint32_t heap)
{
    char err[256] = "";
    wasm_module_inst_t i = wasm_runtime_instantiate(m, 65536, heap, err, sizeof err);
    CHECK(i != NULL, "wasm_runtime_instantiate: %s", err);
    return i;
}

/* The instance's exception, or "" when there is none. */
static const char *exception_of(wasm_module_inst_t i)
{
    const char *e = wasm_runtime_get_exception(i);
    return e ? e : "";
}

#define CHECK_EXC(inst, expected)                                                             \
    CHECK(strcmp(exception_of(inst), (expected)) == 0, "exception \"%s\", expected \"%s\"", \
          exception_of(inst), (expected))

/* Looks an export up, failing the test if it is missing. */
static wasm_function_inst_t func(wasm_module_inst_t i, const char *name)
{
    wasm_function_inst_t f = wasm_runtime_lookup_function(i, name);
    CHECK(f != NULL, "export %s", name);
    return f;
}

#endif
