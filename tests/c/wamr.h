/* Shared helpers for the wamr_*.c tests: checks of WAMR's own behaviour.
 *
 * Each wamr_*.c program asserts what WAMR 2.4's wasm_c_api.c does (the rows
 * of the deviation table in capi/README.md name the test of each), so that
 * a program written against WAMR behaves the same with our library. They
 * run against our library through run.sh like every test here.
 *
 * Origin of each expectation:
 *  - recorded-from-WAMR: every check outside the SAFE_ONLY, NOT_FOLLOWED,
 *    KEPT and NEEDS sections below. Each ran and held against WAMR
 *    2.4.3's own libiwasm.so (product-mini build; last on 2026-11-27), and
 *    tests/record-wamr.sh WAMR_BUILD_DIR runs them there again, as
 *
 *     CAPI_TEST_AGAINST_WAMR=1 VALGRIND=0 tests/c/run.sh \
 *         WAMR/core/iwasm/include WAMR_BUILD_DIR wamr_x
 *
 *  - written-from-source: the checks inside those sections. What WAMR does
 *    there (crash, refuse, lack the function) was read from its source;
 *    the checks assert our behaviour, and are skipped against WAMR.
 *
 * Three kinds of check cannot run against WAMR and are skipped there,
 * each saying so on stdout:
 *  - checks of the functions WAMR leaves out (referenced weakly, like
 *    symbols.c does; HAVE(fn) is false for them),
 *  - SAFE_ONLY checks: where WAMR crashes or corrupts memory (a NULL it
 *    dereferences, a write past the caller's buffer), our library does the
 *    safe thing WAMR's callers can still rely on, and the check asserts
 *    that instead. The reason is the string argument.
 *  - NOT_FOLLOWED and KEPT checks: the rows of the table marked "not
 *    followed" (our library deliberately behaves otherwise) and "kept"
 *    (ours does more than WAMR, which refuses or lacks the feature); the
 *    reason is the string argument and the table's row, and the check
 *    asserts ours.
 */
#ifndef CAPI_TEST_WAMR_H
#define CAPI_TEST_WAMR_H

#include <signal.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

/* Set when the program runs against WAMR's library (see above). */
static int against_wamr(void)
{
    const char *e = getenv("CAPI_TEST_AGAINST_WAMR");
    return e && *e && strcmp(e, "0") != 0;
}

/* Whether a weakly referenced function is present in the library. */
#define HAVE(fn) ((void (*)(void))(uintptr_t)(fn) != NULL)

/* if (SAFE_ONLY("why")) { checks }: the checks run against our library
   only; against WAMR, which crashes or corrupts memory there, they are
   skipped with a note. */
static int safe_only(const char *file, int line, const char *why)
{
    if (!against_wamr())
        return 1;
    printf("skipped against WAMR (%s:%d): %s\n", file, line, why);
    return 0;
}
#define SAFE_ONLY(why) safe_only(__FILE__, __LINE__, (why))

/* if (NOT_FOLLOWED("why")) { checks }: as SAFE_ONLY, for behaviour of ours
   that deliberately differs from WAMR's (a "not followed" row). */
#define NOT_FOLLOWED(why) safe_only(__FILE__, __LINE__, (why))
#define KEPT(why) safe_only(__FILE__, __LINE__, (why))

/* if (NEEDS(fn)) { checks }: skipped when the library lacks `fn` (WAMR
   leaves out 46 of the header's functions). */
static int needs(const char *name, int present)
{
    if (present)
        return 1;
    printf("skipped: the library has no %s\n", name);
    return 0;
}
#define NEEDS(fn) needs(#fn, HAVE(fn))

/* The engine and store of the running part (see run_part). */
static wasm_engine_t *engine;
static wasm_store_t *store;

/* Runs one part of a test in a child process with a fresh engine and
   store (deleted when the part returns), so that a crash (the library
   dereferencing a bad pointer, freeing twice) fails that part by name and
   the other parts still run. Each part's engine lives in its child: the
   parent makes none. */
static void run_part(const char *name, void (*part)(void))
{
    pid_t pid;
    int status = 0;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    if (pid < 0) {
        perror("fork");
        exit(1);
    }
    if (pid == 0) {
        alarm(120);
        test_failures = 0; /* the parent's count of earlier parts */
        engine = wasm_engine_new();
        store = wasm_store_new(engine);
        part();
        wasm_store_delete(store);
        wasm_engine_delete(engine);
        fflush(stdout);
        _exit(test_failures ? 1 : 0);
    }
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) || WEXITSTATUS(status) != 0) {
        if (WIFSIGNALED(status))
            fprintf(stderr, "FAIL %s: part %s crashed with signal %d\n",
                    test_name, name, WTERMSIG(status));
        else
            fprintf(stderr, "FAIL %s: part %s failed\n", test_name, name);
        test_failures++;
    }
}
#define RUN_PART(fn) run_part(#fn, fn)

/* A byte vector holding a copy of `s` without a NUL (as
   wasm_name_new_from_string makes it). */
static wasm_name_t name_of(const char *s)
{
    wasm_name_t n;
    wasm_name_new_from_string(&n, s);
    return n;
}

/* A borrowed extern vector over a C array, as WASM_ARRAY_VEC makes one. */
static wasm_extern_vec_t extern_array(wasm_extern_t **items, size_t n)
{
    wasm_extern_vec_t v = { n, items, n, sizeof(wasm_extern_t *), NULL };
    return v;
}

/* wasm_instance_new with a borrowed vector of `n` externs; the trap (if
   any) goes to *trap. */
static wasm_instance_t *try_instantiate(wasm_store_t *store,
                                        const wasm_module_t *module,
                                        wasm_extern_t **externs, size_t n,
                                        wasm_trap_t **trap)
{
    wasm_extern_vec_t v = extern_array(externs, n);
    *trap = NULL;
    return wasm_instance_new(store, module, &v, trap);
}

/* The exported extern named `name` of an instance (a new object owned by
   the caller), or NULL. */
static wasm_extern_t *export_of(const wasm_module_t *module,
                                const wasm_instance_t *instance,
                                const char *name)
{
    wasm_exporttype_vec_t types;
    wasm_extern_vec_t externs;
    wasm_extern_t *found = NULL;
    size_t i, n = strlen(name);
    wasm_module_exports(module, &types);
    wasm_instance_exports(instance, &externs);
    for (i = 0; i < types.num_elems && i < externs.num_elems; i++) {
        const wasm_name_t *en = wasm_exporttype_name(types.data[i]);
        if (en->num_elems == n + 1 && memcmp(en->data, name, n) == 0) {
            found = externs.data[i];
            externs.data[i] = NULL; /* kept; the rest are deleted */
        }
    }
    wasm_extern_vec_delete(&externs);
    wasm_exporttype_vec_delete(&types);
    return found;
}

/* Calls the exported function `name` with up to two i32/i64 arguments
   given as wasm_val_t; returns its trap, or NULL with *out set. */
static wasm_trap_t *call_export(const wasm_module_t *module,
                                const wasm_instance_t *instance,
                                const char *name, const wasm_val_t *args,
                                size_t nargs, wasm_val_t *out)
{
    wasm_extern_t *e = export_of(module, instance, name);
    wasm_func_t *f = wasm_extern_as_func(e);
    wasm_val_t r[1] = { WASM_INIT_VAL };
    wasm_trap_t *trap;
    CHECK(f != NULL, "no exported function %s", name);
    if (!f)
        return NULL;
    trap = call(f, args, nargs, r, wasm_func_result_arity(f));
    if (!trap && out)
        *out = r[0];
    wasm_extern_delete(e);
    return trap;
}

/* Calls exported `name` (no trap expected) and returns its result, which
   must be of `kind`. */
static wasm_val_t call_export_ok(const wasm_module_t *module,
                                 const wasm_instance_t *instance,
                                 const char *name, const wasm_val_t *args,
                                 size_t nargs, wasm_valkind_t kind)
{
    wasm_val_t out = WASM_INIT_VAL;
    EXPECT_NO_TRAP(call_export(module, instance, name, args, nargs, &out));
    CHECK(out.kind == kind, "%s: result kind %d, expected %d", name, out.kind,
          kind);
    return out;
}
#define call_i32_export(m, i, name, args, n) \
    (call_export_ok((m), (i), (name), (args), (n), WASM_I32).of.i32)
#define call_i64_export(m, i, name, args, n) \
    (call_export_ok((m), (i), (name), (args), (n), WASM_I64).of.i64)

#endif
