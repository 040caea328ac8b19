/* WAMR's wasm_func_call (wasm_c_api.c: params_to_argv, argv_to_results):
 * what it makes of argument and result vectors that do not match the
 * signature. Rows "calls: ..." of the table in capi/README.md.
 *
 *  - The function runs before `results` is looked at: a function that
 *    traps gives its own trap even when `results` has no room at all.
 *  - Arguments are read from args->data, one per parameter, whatever
 *    args->size and num_elems say: extra arguments are ignored.
 *  - Each argument is read at the width of its own kind byte, so a value
 *    of the other kind of the same width (f32 for i32, f64 for i64) passes
 *    its bits unchanged.
 * Where WAMR writes results past the room the caller gave, or reads
 * arguments the caller did not give, our library runs nothing it cannot
 * complete safely: SAFE_ONLY checks below. A host function that no
 * instance has linked is called directly by ours (KEPT); WAMR traps with
 * "failed to call unlinked function".
 */
#include "wamr.h"

static wasm_module_t *module;
static wasm_instance_t *instance;

static wasm_trap_t *fail_cb(void *env, const wasm_val_vec_t *args,
                            wasm_val_vec_t *results)
{
    (void)args;
    (void)results;
    return wasm_trap_new(store, (const wasm_message_t *)env);
}

static void setup(void)
{
    wasm_functype_t *ft = wasm_functype_new_0_0();
    static wasm_message_t msg;
    wasm_func_t *fail;
    wasm_extern_t *imports[1];
    wasm_trap_t *trap;
    wasm_name_new_from_string_nt(&msg, "fail");
    fail = wasm_func_new_with_env(store, ft, fail_cb, &msg, NULL);
    wasm_functype_delete(ft);
    module = compile_module(store, "wamr_calls");
    imports[0] = wasm_func_as_extern(fail);
    instance = try_instantiate(store, module, imports, 1, &trap);
    EXPECT_NO_TRAP(trap);
    CHECK(instance != NULL, "instantiate wamr_calls");
}

static int32_t count(void)
{
    return call_i32_export(module, instance, "count", NULL, 0);
}

static wasm_func_t *func(const char *name)
{
    wasm_func_t *f = wasm_extern_as_func(export_of(module, instance, name));
    CHECK(f != NULL, "export %s", name);
    return f;
}

static void runs_before_looking_at_results(void)
{
    wasm_func_t *f;
    wasm_val_vec_t args = WASM_EMPTY_VEC, results = WASM_EMPTY_VEC;
    setup();
    f = func("tick_trap");
    EXPECT_TRAP(wasm_func_call(f, &args, &results), "Exception: unreachable");
    CHECK_EQ_INT(count(), 1, "the function ran");
    wasm_func_delete(f);
}

static void results_without_room(void)
{
    if (SAFE_ONLY("results without room: WAMR writes past them")) {
        wasm_func_t *f;
        wasm_val_t one[1] = { WASM_I32_VAL(-1) };
        wasm_val_vec_t args = WASM_EMPTY_VEC, none = WASM_EMPTY_VEC;
        wasm_val_vec_t short_ = { 1, one, 0, sizeof(wasm_val_t), NULL };
        wasm_trap_t *trap;
        setup();
        f = func("tick_result");
        trap = wasm_func_call(f, &args, &none);
        CHECK(trap != NULL, "no room for the result: a trap");
        CHECK_EQ_INT(count(), 1, "the function ran first");
        CHECK(none.size == 0 && none.data == NULL && none.num_elems == 0,
              "the empty results vector is left alone");
        wasm_trap_delete(trap);
        wasm_func_delete(f);

        f = func("tick_two");
        trap = wasm_func_call(f, &args, &short_);
        CHECK(trap != NULL, "room for one of two results: a trap");
        CHECK_EQ_INT(count(), 2, "the function ran first");
        CHECK(short_.size == 1 && short_.num_elems == 0
                  && one[0].kind == WASM_I32 && one[0].of.i32 == -1,
              "nothing is written to a results vector without room");
        wasm_trap_delete(trap);
        wasm_func_delete(f);
    }
}

static void extra_arguments_ignored(void)
{
    wasm_func_t *f;
    wasm_val_t a[3] = { WASM_I32_VAL(2), WASM_I32_VAL(3), WASM_I32_VAL(100) };
    wasm_val_t r[1] = { WASM_INIT_VAL };
    wasm_val_vec_t args = WASM_ARRAY_VEC(a), results = WASM_ARRAY_VEC(r);
    wasm_val_vec_t uninit;
    setup();
    f = func("add");
    EXPECT_NO_TRAP(wasm_func_call(f, &args, &results));
    CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 5,
          "add(2, 3, 100) adds the first two: got %d", r[0].of.i32);
    CHECK(results.size == 1 && results.num_elems == 1,
          "results size and num_elems set to the result count");

    /* Filled through _new_uninitialized without setting num_elems. */
    wasm_val_vec_new_uninitialized(&uninit, 2);
    uninit.data[0] = (wasm_val_t)WASM_I32_VAL(20);
    uninit.data[1] = (wasm_val_t)WASM_I32_VAL(22);
    r[0] = (wasm_val_t)WASM_INIT_VAL;
    results = (wasm_val_vec_t)WASM_ARRAY_VEC(r);
    EXPECT_NO_TRAP(wasm_func_call(f, &uninit, &results));
    CHECK(r[0].of.i32 == 42, "arguments read from data whatever num_elems: "
          "got %d", r[0].of.i32);
    wasm_val_vec_delete(&uninit);
    wasm_func_delete(f);
}

static void same_width_kinds_pass_bits(void)
{
    wasm_func_t *f;
    wasm_val_t a[1], r[1];
    wasm_val_vec_t args = WASM_ARRAY_VEC(a), results = WASM_ARRAY_VEC(r);
    setup();

    f = func("id_i32");
    memset(a, 0, sizeof a);
    a[0].kind = WASM_F32;
    a[0].of.f32 = 1.0f;
    EXPECT_NO_TRAP(wasm_func_call(f, &args, &results));
    CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 0x3f800000,
          "i32 parameter given an f32: kind %d bits %#x", r[0].kind,
          (unsigned)r[0].of.i32);
    wasm_func_delete(f);

    f = func("id_f32");
    memset(a, 0, sizeof a);
    a[0].kind = WASM_I32;
    a[0].of.i32 = 0x40400000; /* 3.0f */
    EXPECT_NO_TRAP(wasm_func_call(f, &args, &results));
    CHECK(r[0].kind == WASM_F32 && r[0].of.f32 == 3.0f,
          "f32 parameter given an i32: kind %d value %g", r[0].kind,
          r[0].of.f32);
    wasm_func_delete(f);

    f = func("id_i64");
    memset(a, 0, sizeof a);
    a[0].kind = WASM_F64;
    a[0].of.f64 = 1.0;
    EXPECT_NO_TRAP(wasm_func_call(f, &args, &results));
    CHECK(r[0].kind == WASM_I64 && r[0].of.i64 == 0x3ff0000000000000LL,
          "i64 parameter given an f64: kind %d bits %#llx", r[0].kind,
          (unsigned long long)r[0].of.i64);
    wasm_func_delete(f);

    f = func("id_f64");
    memset(a, 0, sizeof a);
    a[0].kind = WASM_I64;
    a[0].of.i64 = 0x4000000000000000LL; /* 2.0 */
    EXPECT_NO_TRAP(wasm_func_call(f, &args, &results));
    CHECK(r[0].kind == WASM_F64 && r[0].of.f64 == 2.0,
          "f64 parameter given an i64: kind %d value %g", r[0].kind,
          r[0].of.f64);
    wasm_func_delete(f);
}

static void missing_arguments(void)
{
    if (SAFE_ONLY("fewer arguments than parameters: WAMR reads past them, "
                  "or through NULL")) {
        wasm_func_t *f;
        wasm_val_t a[1] = { WASM_I32_VAL(1) }, r[1] = { WASM_INIT_VAL };
        wasm_val_vec_t one = WASM_ARRAY_VEC(a), results = WASM_ARRAY_VEC(r);
        wasm_trap_t *trap;
        setup();
        f = func("add");
        trap = wasm_func_call(f, &one, &results);
        CHECK(trap != NULL, "one argument for two parameters: a trap");
        wasm_trap_delete(trap);
        trap = wasm_func_call(f, NULL, &results);
        CHECK(trap != NULL, "no arguments vector: a trap");
        wasm_trap_delete(trap);
        wasm_func_delete(f);
    }
}

static int direct_calls;
static wasm_trap_t *seven_cb(const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    (void)args;
    direct_calls++;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 7;
    return NULL;
}

static void host_function_called_directly(void)
{
    if (KEPT("WAMR calls a host function only through an instance that "
             "linked it")) {
        wasm_functype_t *ft = wasm_functype_new_0_1(wasm_valtype_new(WASM_I32));
        wasm_func_t *f = wasm_func_new(store, ft, seven_cb);
        wasm_val_t r[1] = { WASM_INIT_VAL };
        wasm_functype_delete(ft);
        EXPECT_NO_TRAP(call(f, NULL, 0, r, 1));
        CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 7 && direct_calls == 1,
              "the callback ran: %d calls, result %d", direct_calls,
              r[0].of.i32);
        wasm_func_delete(f);
    }
}

int main(int argc, char **argv)
{
    test_init(argc, argv, "wamr_calls");
    RUN_PART(runs_before_looking_at_results);
    RUN_PART(results_without_room);
    RUN_PART(extra_arguments_ignored);
    RUN_PART(same_width_kinds_pass_bits);
    RUN_PART(missing_arguments);
    RUN_PART(host_function_called_directly);
    test_pass();
    return 0;
}
