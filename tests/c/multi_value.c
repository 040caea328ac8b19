/* Multi-value: wasm functions with several results called from the host,
   host functions with several results called from wasm, and long parameter
   lists (20 values) in both directions. */
#include "common.h"

static int swap4_calls;

static void check_zeroed_results(const wasm_val_vec_t *results, size_t n)
{
    size_t i, j;
    /* ABI.md: the results vector a host function receives has size = result
       count, num_elems = 0 and zeroed data. */
    CHECK(results->size == n, "results size %zu, expected %zu",
          results->size, n);
    CHECK(results->num_elems == 0, "results num_elems %zu, expected 0",
          results->num_elems);
    for (i = 0; i < n; i++)
        for (j = 0; j < sizeof(wasm_val_t); j++)
            CHECK(((const unsigned char *)&results->data[i])[j] == 0,
                  "results data[%zu] byte %zu is not zero", i, j);
}

static wasm_trap_t *swap4_cb(const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    swap4_calls++;
    CHECK(args->size == 4 && args->num_elems == 4, "4 params");
    CHECK(args->data[0].kind == WASM_I32 && args->data[1].kind == WASM_I64 &&
              args->data[2].kind == WASM_F32 &&
              args->data[3].kind == WASM_F64,
          "param kinds %d %d %d %d", args->data[0].kind, args->data[1].kind,
          args->data[2].kind, args->data[3].kind);
    check_zeroed_results(results, 4);
    results->data[0].kind = WASM_F64;
    results->data[0].of.f64 = args->data[3].of.f64;
    results->data[1].kind = WASM_F32;
    results->data[1].of.f32 = args->data[2].of.f32;
    results->data[2].kind = WASM_I64;
    results->data[2].of.i64 = args->data[1].of.i64;
    results->data[3].kind = WASM_I32;
    results->data[3].of.i32 = args->data[0].of.i32;
    return NULL;
}

static wasm_trap_t *triple_cb(const wasm_val_vec_t *args,
                              wasm_val_vec_t *results)
{
    int i;
    CHECK(args->num_elems == 0, "no params");
    check_zeroed_results(results, 3);
    for (i = 0; i < 3; i++) {
        results->data[i].kind = WASM_I32;
        results->data[i].of.i32 = i + 1;
    }
    /* ABI.md: the runtime reads results from data whatever num_elems says;
       leave num_elems at 0. */
    return NULL;
}

static wasm_trap_t *sum20_cb(const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    int64_t s = 0;
    size_t i;
    CHECK(args->size == 20 && args->num_elems == 20, "20 params, got %zu",
          args->num_elems);
    for (i = 0; i < 20; i++) {
        CHECK(args->data[i].kind == WASM_I64, "param %zu kind", i);
        CHECK(args->data[i].of.i64 == (int64_t)i + 1, "param %zu value", i);
        s += args->data[i].of.i64 * (int64_t)(i + 1);
    }
    results->data[0].kind = WASM_I64;
    results->data[0].of.i64 = s;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_func_t *swap4, *triple, *sum20;
    wasm_extern_t *imports[3];
    instance_t inst;
    int i;

    test_init(argc, argv, "multi_value");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "multi_value");
    {
        const wasm_valkind_t p[4] = { WASM_I32, WASM_I64, WASM_F32, WASM_F64 };
        const wasm_valkind_t r[4] = { WASM_F64, WASM_F32, WASM_I64, WASM_I32 };
        const wasm_valkind_t r3[3] = { WASM_I32, WASM_I32, WASM_I32 };
        wasm_valkind_t p20[20];
        const wasm_valkind_t r1[1] = { WASM_I64 };
        wasm_functype_t *t4 = functype_of(p, 4, r, 4);
        wasm_functype_t *t3 = functype_of(NULL, 0, r3, 3);
        wasm_functype_t *t20;
        for (i = 0; i < 20; i++)
            p20[i] = WASM_I64;
        t20 = functype_of(p20, 20, r1, 1);
        swap4 = wasm_func_new(store, t4, swap4_cb);
        triple = wasm_func_new(store, t3, triple_cb);
        sum20 = wasm_func_new(store, t20, sum20_cb);
        CHECK(swap4 && triple && sum20, "wasm_func_new");
        CHECK_EQ_INT(wasm_func_param_arity(swap4), 4, "swap4 params");
        CHECK_EQ_INT(wasm_func_result_arity(swap4), 4, "swap4 results");
        CHECK_EQ_INT(wasm_func_result_arity(triple), 3, "triple results");
        CHECK_EQ_INT(wasm_func_param_arity(sum20), 20, "sum20 params");
        wasm_functype_delete(t4);
        wasm_functype_delete(t3);
        wasm_functype_delete(t20);
    }
    imports[0] = wasm_func_as_extern(swap4);
    imports[1] = wasm_func_as_extern(triple);
    imports[2] = wasm_func_as_extern(sum20);
    inst = instantiate(store, module, imports, 3);

    /* Two results from wasm; wasm_func_call sets num_elems = size = 2. */
    {
        wasm_val_t a[2] = { WASM_I32_VAL(47), WASM_I32_VAL(5) };
        wasm_val_t r[2] = { WASM_INIT_VAL, WASM_INIT_VAL };
        wasm_val_vec_t args = { 2, a, 2, sizeof(wasm_val_t), NULL };
        wasm_val_vec_t res = { 2, r, 0, sizeof(wasm_val_t), NULL };
        EXPECT_NO_TRAP(wasm_func_call(export_func(&inst, "divmod"), &args,
                                      &res));
        CHECK(res.num_elems == 2 && res.size == 2,
              "results num_elems %zu size %zu, expected 2/2", res.num_elems,
              res.size);
        CHECK(r[0].kind == WASM_I32 && r[0].of.i32 == 9, "quotient");
        CHECK(r[1].kind == WASM_I32 && r[1].of.i32 == 2, "remainder");
    }

    /* Eight mixed results. */
    {
        wasm_val_t r[8];
        wasm_val_vec_t res = { 8, r, 0, sizeof(wasm_val_t), NULL };
        wasm_val_vec_t none = WASM_EMPTY_VEC;
        wasm_func_t *f = export_func(&inst, "eight");
        wasm_functype_t *ft = wasm_func_type(f);
        const wasm_valtype_vec_t *rt = wasm_functype_results(ft);
        CHECK_EQ_INT(rt->num_elems, 8, "eight's result types");
        for (i = 0; i < 8; i++)
            CHECK_EQ_INT(wasm_valtype_kind(rt->data[i]), i % 4,
                         "result type kind");
        wasm_functype_delete(ft);
        memset(r, 0x5c, sizeof r);
        EXPECT_NO_TRAP(wasm_func_call(f, &none, &res));
        CHECK_EQ_INT(res.num_elems, 8, "results num_elems");
        for (i = 0; i < 8; i++)
            CHECK_EQ_INT(r[i].kind, i % 4, "result kind");
        CHECK(r[0].of.i32 == 1 && r[1].of.i64 == 2 && r[2].of.f32 == 3.5f &&
                  r[3].of.f64 == 4.25 && r[4].of.i32 == -5 &&
                  r[5].of.i64 == -6 && r[6].of.f32 == -7.5f &&
                  r[7].of.f64 == -8.25,
              "the eight values");
    }

    /* 20 parameters each way. */
    {
        wasm_val_t a[20], r[1] = { WASM_INIT_VAL };
        int64_t expect = 0;
        for (i = 0; i < 20; i++) {
            a[i].kind = WASM_I64;
            a[i].of.i64 = 1000000007LL * (i + 1);
        }
        EXPECT_NO_TRAP(call(export_func(&inst, "weigh20"), a, 20, r, 1));
        CHECK(r[0].kind == WASM_I64 &&
                  r[0].of.i64 == a[0].of.i64 + 1000 * a[19].of.i64 +
                                     10 * a[9].of.i64,
              "20 parameters into wasm");
        for (i = 0; i < 20; i++)
            expect += (int64_t)(i + 1) * (i + 1);
        EXPECT_NO_TRAP(call(export_func(&inst, "host_sum20"), NULL, 0, r, 1));
        CHECK(r[0].kind == WASM_I64 && r[0].of.i64 == expect,
              "20 parameters into the host: %lld, expected %lld",
              (long long)r[0].of.i64, (long long)expect);
    }

    /* Four results through a host function and back. (WAMR fails here
       and below: its interpreters lose all but the first result of a C-API
       host function with several results.) */
    {
        wasm_val_t a[4] = { WASM_I32_VAL(-7), WASM_I64_VAL(1LL << 40),
                            WASM_F32_VAL(0.5f), WASM_F64_VAL(-1e300) };
        wasm_val_t r[4];
        memset(r, 0, sizeof r);
        EXPECT_NO_TRAP(call(export_func(&inst, "via_host"), a, 4, r, 4));
        CHECK_EQ_INT(swap4_calls, 1, "swap4 called once");
        CHECK(r[0].kind == WASM_F64 && r[0].of.f64 == -1e300, "f64 back");
        CHECK(r[1].kind == WASM_F32 && r[1].of.f32 == 0.5f, "f32 back");
        CHECK(r[2].kind == WASM_I64 && r[2].of.i64 == (1LL << 40), "i64 back");
        CHECK(r[3].kind == WASM_I32 && r[3].of.i32 == -7, "i32 back");
    }

    /* Three results from the host, consumed by wasm in order. */
    {
        wasm_val_t r[1] = { WASM_INIT_VAL };
        EXPECT_NO_TRAP(call(export_func(&inst, "from_triple"), NULL, 0, r, 1));
        CHECK_EQ_INT(r[0].of.i32, 123, "wasm got the host's 1, 2, 3 in order");
    }

    instance_release(&inst);
    wasm_func_delete(swap4);
    wasm_func_delete(triple);
    wasm_func_delete(sum20);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
