/* wasm_export.h calls: exec envs, wasm_runtime_call_wasm with WAMR's
 * 32-bit cells, _call_wasm_a, the variadic _call_wasm_v (with more
 * arguments than registers), _call_indirect, traps and their exceptions
 * and call stacks, argument errors, calls after deinstantiation, and calls
 * from other threads (which need wasm_runtime_init_thread_env, as in
 * WAMR). */
#include <math.h>
#include <pthread.h>

#include "export_common.h"

static const char *WAT =
    "(module\n"
    "  (func $add (export \"add\") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))\n"
    "  (func (export \"mix\") (param i32 i64 f32 f64) (result f64)\n"
    "    (f64.add (f64.add (f64.convert_i32_s (local.get 0)) (f64.convert_i64_s (local.get 1)))\n"
    "             (f64.add (f64.promote_f32 (local.get 2)) (local.get 3))))\n"
    "  (func (export \"swap\") (param i64 f32) (result f32 i64) (local.get 1) (local.get 0))\n"
    "  (func $div (export \"div\") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))\n"
    "  (func $outer (export \"outer\") (param i32) (result i32) (call $div (i32.const 1) (local.get 0)))\n"
    "  (func (export \"many\") (param i32 i64 f64 i32 i64 f64 i32 i64 f64 i32 f64 f32 f32 f32) (result f64)\n"
    "    (f64.add (f64.add (f64.add (f64.convert_i32_s (local.get 0)) (f64.convert_i64_s (local.get 1)))\n"
    "                      (f64.add (local.get 2) (f64.convert_i32_s (local.get 3))))\n"
    "      (f64.add (f64.add (f64.add (f64.convert_i64_s (local.get 4)) (local.get 5))\n"
    "                        (f64.add (f64.convert_i32_s (local.get 6)) (f64.convert_i64_s (local.get 7))))\n"
    "        (f64.add (f64.add (local.get 8) (f64.convert_i32_s (local.get 9)))\n"
    "          (f64.add (local.get 10) (f64.add (f64.promote_f32 (local.get 11))\n"
    "            (f64.add (f64.promote_f32 (local.get 12)) (f64.promote_f32 (local.get 13)))))))))\n"
    "  (func (export \"ref\") (param externref) (result externref) (local.get 0))\n"
    "  (func (export \"sleepy\") (result i32) (i32.const 7))\n"
    "  (table 3 funcref)\n"
    "  (elem (i32.const 0) $add $div))";

static wasm_module_inst_t g_inst;
static wasm_function_inst_t g_add;

static pthread_barrier_t g_no_env_checked;
static pthread_mutex_t g_no_env_lock = PTHREAD_MUTEX_INITIALIZER;

static void *thread_call(void *arg)
{
    uint32_t argv[2] = { 20, 22 };
    wasm_exec_env_t env;
    int *result = arg;
    /* Without its environment, a thread's call fails as in WAMR. */
    CHECK(!wasm_runtime_thread_env_inited(), "a new thread starts without its environment");
    env = wasm_runtime_create_exec_env(g_inst, 65536);
    /* One thread at a time: the other's clear would race with the check. */
    pthread_mutex_lock(&g_no_env_lock);
    CHECK(!wasm_runtime_call_wasm(env, g_add, 2, argv), "a call from a thread without its environment fails");
    CHECK_EXCEPTION(g_inst, "Exception: thread signal env not inited");
    wasm_runtime_clear_exception(g_inst);
    pthread_mutex_unlock(&g_no_env_lock);
    /* The exception is the instance's, as in WAMR: the main thread's calls
     * start only once no thread can set one any more. */
    pthread_barrier_wait(&g_no_env_checked);
    CHECK(wasm_runtime_init_thread_env(), "wasm_runtime_init_thread_env");
    for (int i = 0; i < 2000; i++) {
        argv[0] = (uint32_t)i;
        argv[1] = 1;
        if (!wasm_runtime_call_wasm(env, g_add, 2, argv) || argv[0] != (uint32_t)i + 1) {
            *result = -1;
            break;
        }
    }
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_destroy_thread_env();
    if (*result == 0)
        *result = 1;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i, other;
    wasm_exec_env_t env, single;
    wasm_function_inst_t add, mix, swap, div, outer, many, ref, other_add;
    uint32_t cells[8];
    wasm_val_t args[4], results[2];
    char buf[512];
    uint32_t n;
    double d;
    float f;
    int64_t i64;

    test_init(argc, argv, "export_call");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load_wat(WAT);
    i = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(i, 65536);
    CHECK(env != NULL, "create_exec_env");
    CHECK(wasm_runtime_get_module_inst(env) == i, "the exec env's instance");
    single = wasm_runtime_get_exec_env_singleton(i);
    CHECK(single != NULL && single != env && single == wasm_runtime_get_exec_env_singleton(i),
          "one singleton per instance");
    wasm_runtime_set_user_data(env, &n);
    CHECK(wasm_runtime_get_user_data(env) == &n, "user data");
    CHECK(wasm_runtime_get_function_attachment(env) == NULL, "no attachment outside a native");

    add = wasm_runtime_lookup_function(i, "add");
    mix = wasm_runtime_lookup_function(i, "mix");
    swap = wasm_runtime_lookup_function(i, "swap");
    div = wasm_runtime_lookup_function(i, "div");
    outer = wasm_runtime_lookup_function(i, "outer");
    many = wasm_runtime_lookup_function(i, "many");
    ref = wasm_runtime_lookup_function(i, "ref");
    CHECK(add && mix && swap && div && outer && many && ref, "lookup_function");
    CHECK(add == wasm_runtime_lookup_function(i, "add"), "one handle per function");
    CHECK(wasm_runtime_lookup_function(i, "nope") == NULL, "a missing function is NULL");
    CHECK_EQ_INT(wasm_func_get_param_count(mix, i), 4, "mix's parameters");
    CHECK_EQ_INT(wasm_func_get_result_count(swap, i), 2, "swap's results");
    {
        wasm_valkind_t kinds[4];
        wasm_func_get_param_types(mix, i, kinds);
        CHECK(kinds[0] == WASM_I32 && kinds[1] == WASM_I64 && kinds[2] == WASM_F32 && kinds[3] == WASM_F64,
              "mix's parameter kinds");
        wasm_func_get_result_types(swap, i, kinds);
        CHECK(kinds[0] == WASM_F32 && kinds[1] == WASM_I64, "swap's result kinds");
    }

    /* Cells: i32 one, i64 and f64 two (low word first). */
    cells[0] = 40;
    cells[1] = 2;
    CHECK(wasm_runtime_call_wasm(env, add, 2, cells) && cells[0] == 42, "add(40, 2) = %u", cells[0]);
    cells[0] = (uint32_t)-3;
    i64 = 1LL << 40;
    memcpy(&cells[1], &i64, 8);
    f = 2.5f;
    memcpy(&cells[3], &f, 4);
    d = 0.25;
    memcpy(&cells[4], &d, 8);
    CHECK(wasm_runtime_call_wasm(env, mix, 6, cells), "mix: %s", exception(i));
    memcpy(&d, cells, 8);
    CHECK(d == -3.0 + 1099511627776.0 + 2.75, "mix = %f", d);
    i64 = -77;
    memcpy(cells, &i64, 8);
    f = 1.5f;
    memcpy(&cells[2], &f, 4);
    CHECK(wasm_runtime_call_wasm(env, swap, 3, cells), "swap");
    memcpy(&f, cells, 4);
    memcpy(&i64, &cells[1], 8);
    CHECK(f == 1.5f && i64 == -77, "multi-value results in cells");

    /* Too few cells: WAMR's exception. */
    CHECK(!wasm_runtime_call_wasm(env, mix, 5, cells), "too few cells");
    CHECK_EXCEPTION(i, "Exception: invalid argument count 5, must be no smaller than 6");
    /* An exception left set makes every call fail, as WAMR's calls report
       the instance's exception; clearing it makes them work again. */
    cells[0] = 1;
    cells[1] = 1;
    CHECK(!wasm_runtime_call_wasm(env, add, 2, cells), "a call with an exception left set fails");
    wasm_runtime_clear_exception(i);
    CHECK(wasm_runtime_get_exception(i) == NULL, "cleared");
    CHECK(wasm_runtime_call_wasm(env, add, 2, cells) && cells[0] == 2, "works once cleared");

    /* A trap: the exception and the call stack with the name section's names. */
    cells[0] = 0;
    CHECK(!wasm_runtime_call_wasm(env, outer, 1, cells), "1 / 0 traps");
    CHECK_EXCEPTION(i, "Exception: integer divide by zero");
    n = wasm_runtime_get_call_stack_buf_size(env);
    CHECK(n > 0 && n < sizeof buf, "call stack size %u", n);
    CHECK(wasm_runtime_dump_call_stack_to_buf(env, buf, sizeof buf) == n, "dumped the whole stack");
    CHECK(strstr(buf, "#00: ") && strstr(buf, " - div\n") && strstr(buf, "#01: ") && strstr(buf, " - outer\n"),
          "call stack: %s", buf);
    CHECK(wasm_runtime_dump_call_stack_to_buf(env, buf, 8) == 8 && strlen(buf) == 7, "a short buffer truncates");
    capture_begin();
    wasm_runtime_dump_call_stack(env);
    CHECK(strstr(capture_end(), " - div\n") != NULL, "dump_call_stack prints on stdout");
    wasm_runtime_clear_exception(i);

    /* wasm_val_t arrays. */
    args[0].kind = WASM_I32;
    args[0].of.i32 = 7;
    args[1].kind = WASM_I64;
    args[1].of.i64 = 8;
    args[2].kind = WASM_F32;
    args[2].of.f32 = 0.5f;
    args[3].kind = WASM_F64;
    args[3].of.f64 = 100.0;
    CHECK(wasm_runtime_call_wasm_a(env, mix, 1, results, 4, args), "call_wasm_a");
    CHECK(results[0].kind == WASM_F64 && results[0].of.f64 == 115.5, "mix = %f", results[0].of.f64);
    CHECK(!wasm_runtime_call_wasm_a(env, mix, 1, results, 3, args), "wrong argument count");
    CHECK(!wasm_runtime_call_wasm_a(env, mix, 2, results, 4, args), "wrong result count");
    args[1].kind = WASM_I32;
    CHECK(!wasm_runtime_call_wasm_a(env, mix, 1, results, 4, args), "wrong kind");
    CHECK(wasm_runtime_get_exception(i) == NULL, "count and kind errors are logged, as in WAMR");
    args[0].kind = WASM_EXTERNREF;
    args[0].of.ref = (struct wasm_ref_t *)&n; /* of.foreign in wasm_export.h alone */
    CHECK(wasm_runtime_call_wasm_a(env, ref, 1, results, 1, args), "externref through call_wasm_a");
    CHECK(results[0].kind == WASM_EXTERNREF && (void *)results[0].of.ref == (void *)&n, "the same host pointer");

    /* Variadic: more integer and floating-point arguments than registers. */
    CHECK(wasm_runtime_call_wasm_v(env, add, 1, results, 2, 30, 12) && results[0].of.i32 == 42, "call_wasm_v add");
    CHECK(wasm_runtime_call_wasm_v(env, many, 1, results, 14, 1, (int64_t)2, 3.0, 4, (int64_t)5, 6.0, 7,
                                   (int64_t)8, 9.0, 10, 11.0, 12.0, 13.0, 14.0),
          "call_wasm_v many: %s", exception(i));
    CHECK(results[0].of.f64 == 105.0, "many = %f", results[0].of.f64);
    CHECK(!wasm_runtime_call_wasm_v(env, add, 1, results, 3, 1, 2, 3), "wrong count");

    /* Through table 0: calculate_native's way. */
    cells[0] = 5;
    cells[1] = 6;
    CHECK(wasm_runtime_call_indirect(env, 0, 2, cells) && cells[0] == 11, "call_indirect(0)");
    CHECK(!wasm_runtime_call_indirect(env, 2, 2, cells), "a null element");
    CHECK_EXCEPTION(i, "Exception: uninitialized element");
    wasm_runtime_clear_exception(i);
    CHECK(!wasm_runtime_call_indirect(env, 3, 2, cells), "past the table");
    CHECK_EXCEPTION(i, "Exception: undefined element");
    wasm_runtime_clear_exception(i);

    /* A function of another instance, an exec env of another instance. */
    other = instantiate_module(m, 0);
    other_add = wasm_runtime_lookup_function(other, "add");
    cells[0] = cells[1] = 1;
    CHECK(!wasm_runtime_call_wasm(env, other_add, 2, cells), "a function of another instance is refused");
    wasm_runtime_clear_exception(i);
    wasm_runtime_set_module_inst(env, other);
    CHECK(wasm_runtime_get_module_inst(env) == other, "set_module_inst");
    CHECK(wasm_runtime_call_wasm(env, other_add, 2, cells) && cells[0] == 2, "the exec env now runs the other");
    wasm_runtime_set_module_inst(env, i);

    /* Threads: distinct exec envs on several threads. */
    {
        pthread_t t[2];
        int r[2] = { 0, 0 };
        g_inst = i;
        g_add = add;
        pthread_barrier_init(&g_no_env_checked, NULL, 3);
        for (int k = 0; k < 2; k++)
            CHECK(pthread_create(&t[k], NULL, thread_call, &r[k]) == 0, "pthread_create");
        pthread_barrier_wait(&g_no_env_checked);
        for (int k = 0; k < 2000; k++) {
            cells[0] = (uint32_t)k;
            cells[1] = 2;
            CHECK(wasm_runtime_call_wasm(env, add, 2, cells) && cells[0] == (uint32_t)k + 2, "main thread call");
        }
        for (int k = 0; k < 2; k++)
            pthread_join(t[k], NULL);
        pthread_barrier_destroy(&g_no_env_checked);
        CHECK(r[0] == 1 && r[1] == 1, "every thread's calls returned the right sums");
    }

    /* Deinstantiation frees the functions: calls with them are refused. */
    wasm_runtime_destroy_exec_env(single);
    CHECK(wasm_runtime_get_exec_env_singleton(i) == single, "the singleton is not the client's to destroy");
    wasm_runtime_deinstantiate(other);
    CHECK(wasm_runtime_get_module_inst(env) == i, "still the first instance");
    wasm_runtime_deinstantiate(i);
    cells[0] = cells[1] = 1;
    CHECK(!wasm_runtime_call_wasm(env, add, 2, cells), "a call after deinstantiate is refused");
    CHECK(wasm_runtime_get_module_inst(env) == NULL, "the exec env's instance is gone");
    CHECK(wasm_runtime_lookup_function(i, "add") == NULL, "a dead instance has no functions");
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
