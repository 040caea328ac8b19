/* Shared helpers for the C API test programs.
 *
 * Every test is a self-checking program: it exits 0 when every check holds and
 * exits 1 after printing the failed check (file:line, the expression, and a
 * message) otherwise. Tests use only the public header. Test modules are WAT
 * files under tests/c/wat/, compiled with wat2wasm by run.sh into a folder
 * whose path is the program's first argument.
 */
#ifndef CAPI_TEST_COMMON_H
#define CAPI_TEST_COMMON_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wasm_c_api.h"

static const char *test_wasm_dir = ".";
static const char *test_name = "test";
static int test_failures;
/* CAPI_TEST_KEEP_GOING=1 reports every failed check instead of stopping at
   the first (later checks may then fail as a consequence, or crash). */
static int test_keep_going;

static void test_fail(const char *file, int line, const char *expr,
                      const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "FAIL %s: %s:%d: check `%s` failed", test_name, file,
            line, expr);
    if (fmt && *fmt) {
        fputs(": ", stderr);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
    }
    fputc('\n', stderr);
    fflush(stderr);
    test_failures++;
    if (!test_keep_going)
        exit(1);
}

/* CHECK(cond, printf-format, args...): the message says what was expected. */
#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond))                                                        \
            test_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);              \
    } while (0)

#define CHECK_EQ_INT(actual, expected, what)                                \
    do {                                                                    \
        long long a_ = (long long)(actual), e_ = (long long)(expected);     \
        if (a_ != e_)                                                       \
            test_fail(__FILE__, __LINE__, #actual " == " #expected,         \
                      "%s: got %lld, expected %lld", what, a_, e_);         \
    } while (0)

static void test_init(int argc, char **argv, const char *name)
{
    const char *keep = getenv("CAPI_TEST_KEEP_GOING");
    test_name = name;
    test_keep_going = keep && *keep && strcmp(keep, "0") != 0;
    if (argc > 1)
        test_wasm_dir = argv[1];
    /* Output from host callbacks and from the runtime interleaves; keep it
       in order. */
    setvbuf(stdout, NULL, _IONBF, 0);
}

static void test_pass(void)
{
    if (test_failures) {
        fprintf(stderr, "FAIL %s: %d checks failed\n", test_name,
                test_failures);
        exit(1);
    }
    printf("PASS %s\n", test_name);
}

/* Reads <wasm dir>/<name>.wasm into a vector the runtime may free. */
static wasm_byte_vec_t load_wasm(const char *name)
{
    char path[4096];
    FILE *f;
    long len;
    wasm_byte_vec_t bytes;

    snprintf(path, sizeof path, "%s/%s.wasm", test_wasm_dir, name);
    f = fopen(path, "rb");
    CHECK(f != NULL, "cannot open test module %s (run through run.sh)", path);
    CHECK(fseek(f, 0, SEEK_END) == 0, "seek %s", path);
    len = ftell(f);
    CHECK(len > 0, "empty test module %s", path);
    CHECK(fseek(f, 0, SEEK_SET) == 0, "seek %s", path);
    wasm_byte_vec_new_uninitialized(&bytes, (size_t)len);
    CHECK(bytes.data != NULL, "wasm_byte_vec_new_uninitialized(%ld)", len);
    CHECK(fread(bytes.data, 1, (size_t)len, f) == (size_t)len, "read %s",
          path);
    /* ABI.md: _new_uninitialized leaves num_elems 0; this vector is full. */
    bytes.num_elems = (size_t)len;
    fclose(f);
    return bytes;
}

static wasm_module_t *compile_module(wasm_store_t *store, const char *name)
{
    wasm_byte_vec_t bytes = load_wasm(name);
    wasm_module_t *module = wasm_module_new(store, &bytes);
    wasm_byte_vec_delete(&bytes);
    CHECK(module != NULL, "wasm_module_new(%s.wasm) returned NULL", name);
    return module;
}

/* A module from WebAssembly text (cranewasm_wat2wasm), or NULL when the
   store's engine refuses the binary. */
static wasm_module_t *try_compile_text(wasm_store_t *store, const char *text)
{
    wasm_byte_vec_t bin;
    wasm_module_t *m;
    CHECK(cranewasm_wat2wasm(text, strlen(text), &bin), "cranewasm_wat2wasm");
    m = wasm_module_new(store, &bin);
    wasm_byte_vec_delete(&bin);
    return m;
}

/* Copies a runtime-provided name into a C string, checking the ABI.md rule
   that names handed out end in a NUL which is counted in size/num_elems. */
static void check_runtime_name(const wasm_name_t *name, const char *expected,
                               const char *what)
{
    size_t n = strlen(expected);
    CHECK(name != NULL, "%s: name is NULL", what);
    CHECK(name->data != NULL, "%s: name has no data", what);
    CHECK(name->size == n + 1 && name->num_elems == n + 1,
          "%s: expected \"%s\" with counted NUL (size %zu), got size %zu "
          "num_elems %zu: \"%.*s\"",
          what, expected, n + 1, name->size, name->num_elems,
          (int)name->num_elems, name->data);
    CHECK(memcmp(name->data, expected, n) == 0 && name->data[n] == '\0',
          "%s: expected \"%s\", got \"%.*s\"", what, expected,
          (int)name->num_elems, name->data);
}

/* Copies a trap's message into buf as a C string (for messages in checks). */
static const char *trap_text(const wasm_trap_t *trap, char *buf, size_t cap)
{
    wasm_message_t msg;
    size_t n;
    wasm_trap_message(trap, &msg);
    n = msg.num_elems < cap - 1 ? msg.num_elems : cap - 1;
    if (msg.data)
        memcpy(buf, msg.data, n);
    buf[n] = '\0';
    wasm_byte_vec_delete(&msg);
    return buf;
}

/* Checks that `trap` is a trap whose NUL-terminated message is exactly
   `expected`, then deletes it. */
static void expect_trap_at(const char *file, int line, wasm_trap_t *trap,
                           const char *expected)
{
    wasm_message_t msg;
    size_t n = strlen(expected);
    if (!trap) {
        test_fail(file, line, "trap != NULL",
                  "expected a trap \"%s\", the call succeeded", expected);
        return;
    }
    wasm_trap_message(trap, &msg);
    if (!(msg.data && msg.size == n + 1 && msg.num_elems == n + 1
          && memcmp(msg.data, expected, n) == 0 && msg.data[n] == '\0'))
        test_fail(file, line, "trap message",
                  "expected \"%s\" (size %zu with NUL), got \"%.*s\" "
                  "(size %zu, num_elems %zu)",
                  expected, n + 1, (int)msg.num_elems,
                  msg.data ? msg.data : "", msg.size, msg.num_elems);
    wasm_byte_vec_delete(&msg);
    wasm_trap_delete(trap);
}
#define EXPECT_TRAP(trap, expected) \
    expect_trap_at(__FILE__, __LINE__, (trap), (expected))

#define EXPECT_NO_TRAP(trap)                                                \
    do {                                                                    \
        wasm_trap_t *t_ = (trap);                                           \
        if (t_) {                                                           \
            char b_[256];                                                   \
            test_fail(__FILE__, __LINE__, #trap " == NULL",                 \
                      "unexpected trap \"%s\"", trap_text(t_, b_, sizeof b_)); \
        }                                                                   \
    } while (0)

/* An instance together with its exports, looked up by export name. */
typedef struct {
    wasm_instance_t *instance;
    wasm_exporttype_vec_t types;
    wasm_extern_vec_t externs;
} instance_t;

static instance_t instantiate(wasm_store_t *store, const wasm_module_t *module,
                              wasm_extern_t *const *imports, size_t nimports)
{
    instance_t inst;
    /* The imports stay owned by the caller: a borrowed, stack-built vector. */
    wasm_extern_vec_t import_vec = { nimports, (wasm_extern_t **)imports,
                                     nimports, sizeof(wasm_extern_t *), NULL };
    wasm_trap_t *trap = NULL;
    char buf[256];

    memset(&inst, 0, sizeof inst);
    inst.instance = wasm_instance_new(store, module, &import_vec, &trap);
    CHECK(trap == NULL, "instantiation trapped: %s",
          trap_text(trap, buf, sizeof buf));
    CHECK(inst.instance != NULL, "wasm_instance_new returned NULL");
    if (!inst.instance) /* only reached with CAPI_TEST_KEEP_GOING */
        return inst;
    wasm_module_exports(module, &inst.types);
    wasm_instance_exports(inst.instance, &inst.externs);
    CHECK_EQ_INT(inst.externs.num_elems, inst.types.num_elems,
                 "instance exports vs module exports");
    return inst;
}

static wasm_extern_t *export_named(const instance_t *inst, const char *name)
{
    size_t i, n = strlen(name);
    for (i = 0; i < inst->types.num_elems; i++) {
        const wasm_name_t *en = wasm_exporttype_name(inst->types.data[i]);
        size_t len = en->num_elems;
        /* Runtime names carry a counted NUL (ABI.md); compare without it. */
        if (len > 0 && en->data[len - 1] == '\0')
            len--;
        if (len == n && memcmp(en->data, name, n) == 0)
            return inst->externs.data[i];
    }
    test_fail(__FILE__, __LINE__, "export exists", "no export named \"%s\"",
              name);
    return NULL;
}

static wasm_func_t *export_func(const instance_t *inst, const char *name)
{
    wasm_func_t *f = wasm_extern_as_func(export_named(inst, name));
    CHECK(f != NULL, "export \"%s\" is not a function", name);
    return f;
}

static void instance_release(instance_t *inst)
{
    wasm_extern_vec_delete(&inst->externs);
    wasm_exporttype_vec_delete(&inst->types);
    wasm_instance_delete(inst->instance);
    inst->instance = NULL;
}

/* Calls `f` with the given arguments; results go to `results` (capacity
   nresults). Returns the trap, if any. */
static wasm_trap_t *call(const wasm_func_t *f, const wasm_val_t *args,
                         size_t nargs, wasm_val_t *results, size_t nresults)
{
    wasm_val_vec_t a = { nargs, (wasm_val_t *)args, nargs, sizeof(wasm_val_t),
                         NULL };
    wasm_val_vec_t r = { nresults, results, 0, sizeof(wasm_val_t), NULL };
    return wasm_func_call(f, &a, &r);
}

static wasm_trap_t *call_i32(const wasm_func_t *f, int32_t arg, int32_t *out)
{
    wasm_val_t a[1] = { WASM_I32_VAL(arg) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    /* Room for the result even when the caller does not want it: the
       results vector must hold every result (wasm_func_call checks). */
    wasm_trap_t *trap = call(f, a, 1, r, wasm_func_result_arity(f));
    if (!trap && out) {
        CHECK(r[0].kind == WASM_I32, "result kind %d, expected i32",
              r[0].kind);
        *out = r[0].of.i32;
    }
    return trap;
}

static wasm_functype_t *functype_of(const wasm_valkind_t *params, size_t np,
                                    const wasm_valkind_t *results, size_t nr)
{
    wasm_valtype_vec_t p, r;
    size_t i;
    wasm_valtype_vec_new_uninitialized(&p, np);
    wasm_valtype_vec_new_uninitialized(&r, nr);
    for (i = 0; i < np; i++)
        p.data[i] = wasm_valtype_new(params[i]);
    for (i = 0; i < nr; i++)
        r.data[i] = wasm_valtype_new(results[i]);
    p.num_elems = np;
    r.num_elems = nr;
    return wasm_functype_new(&p, &r);
}

/* The "counter" module (wat/counter.wat) imports host.tick: tick(x) = 2x,
   counting its calls in the int the env points at. */
static wasm_trap_t *counter_tick_cb(void *env, const wasm_val_vec_t *args,
                                    wasm_val_vec_t *results)
{
    if (env)
        (*(int *)env)++;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 2 * args->data[0].of.i32;
    return NULL;
}

static wasm_func_t *counter_tick(wasm_store_t *store, int *calls)
{
    const wasm_valkind_t i32[1] = { WASM_I32 };
    wasm_functype_t *ft = functype_of(i32, 1, i32, 1);
    wasm_func_t *f = wasm_func_new_with_env(store, ft, counter_tick_cb, calls,
                                            NULL);
    wasm_functype_delete(ft);
    CHECK(f != NULL, "wasm_func_new_with_env(tick)");
    return f;
}

/* Instantiates "counter" with a fresh tick and checks bump/square on it;
   deletes everything it made. The first bump of a fresh instance returns
   2x + 1. */
static void counter_roundtrip(wasm_store_t *store, const wasm_module_t *m,
                              int32_t x)
{
    int calls = 0;
    wasm_func_t *tick = counter_tick(store, &calls);
    wasm_extern_t *imports[1];
    instance_t inst;
    int32_t out = 0;
    imports[0] = wasm_func_as_extern(tick);
    inst = instantiate(store, m, imports, 1);
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "bump"), x, &out));
    CHECK_EQ_INT(out, 2 * x + 1, "bump on a fresh instance");
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "square"), x, &out));
    CHECK_EQ_INT(out, x * x, "square");
    CHECK_EQ_INT(calls, 1, "tick calls");
    instance_release(&inst);
    wasm_func_delete(tick);
}

#endif
