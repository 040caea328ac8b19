/* Shared helpers for the wasm_export.h test programs (export_*.c), on top
 * of common.h's checks: loading a test module with wasm_runtime_load,
 * instantiating it, and capturing what the library prints on stdout. */
#ifndef EXPORT_TEST_COMMON_H
#define EXPORT_TEST_COMMON_H

#include <time.h>
#include <unistd.h>

#include "common.h"
#include "wasm_export.h"

/* Loads <wasm dir>/<name>.wasm with wasm_runtime_load. */
static wasm_module_t load_module(const char *name)
{
    char err[256] = "";
    wasm_byte_vec_t bytes = load_wasm(name);
    wasm_module_t m = wasm_runtime_load((uint8_t *)bytes.data, (uint32_t)bytes.size, err, sizeof err);
    /* The binary is copied: the buffer may go at once. */
    wasm_byte_vec_delete(&bytes);
    CHECK(m != NULL, "wasm_runtime_load(%s.wasm): %s", name, err);
    return m;
}

/* Loads a module from WebAssembly text (through cranewasm_wat2wasm, whose
   binary keeps the text's names in a name section). */
static wasm_module_t load_wat(const char *wat)
{
    char err[256] = "";
    wasm_byte_vec_t bytes;
    wasm_module_t m;
    CHECK(cranewasm_wat2wasm(wat, strlen(wat), &bytes), "the test's WAT does not parse");
    m = wasm_runtime_load((uint8_t *)bytes.data, (uint32_t)bytes.size, err, sizeof err);
    wasm_byte_vec_delete(&bytes);
    CHECK(m != NULL, "wasm_runtime_load: %s", err);
    return m;
}

/* Instantiates with a stack of 64 KiB and `heap` bytes of app heap. */
static wasm_module_inst_t instantiate_module(wasm_module_t m, uint32_t heap)
{
    char err[256] = "";
    wasm_module_inst_t i = wasm_runtime_instantiate(m, 65536, heap, err, sizeof err);
    CHECK(i != NULL, "wasm_runtime_instantiate: %s", err);
    return i;
}

/* The instance's exception, or "" when there is none. */
static const char *exception(wasm_module_inst_t i)
{
    const char *e = wasm_runtime_get_exception(i);
    return e ? e : "";
}

#define CHECK_EXCEPTION(inst, expected)                                       \
    CHECK(strcmp(exception(inst), (expected)) == 0, "exception \"%s\", expected \"%s\"", \
          exception(inst), (expected))

/* Captures what is written to stdout (C's and fd 1) between
   capture_begin() and capture_end(), which returns it (NUL-terminated, in a
   static buffer). */
static int capture_saved = -1;
static char capture_path[] = "/tmp/cranewasm-capture-XXXXXX";
static void capture_begin(void)
{
    int fd;
    fflush(stdout);
    fd = mkstemp(capture_path);
    CHECK(fd >= 0, "mkstemp");
    capture_saved = dup(1);
    dup2(fd, 1);
    close(fd);
}
static const char *capture_end(void)
{
    static char buf[8192];
    FILE *f;
    size_t n;
    fflush(stdout);
    dup2(capture_saved, 1);
    close(capture_saved);
    f = fopen(capture_path, "rb");
    CHECK(f != NULL, "reopen the capture");
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    unlink(capture_path);
    strcpy(capture_path, "/tmp/cranewasm-capture-XXXXXX");
    return buf;
}

/* Milliseconds on the monotonic clock. */
static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

#endif
