/* Calls that cross the wasm/host boundary several times in one stack:
   wasm -> host -> wasm -> host, and a 200-level recursion that alternates
   between a wasm export and a host function calling back into it. */
#include "common.h"

static const wasm_func_t *w2_func, *level_func;
static char order[16];
static int order_len;
static int max_depth_seen;

static wasm_trap_t *h1_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    wasm_val_t a[1], r[1] = { WASM_INIT_VAL };
    order[order_len++] = 'A';
    a[0].kind = WASM_I32;
    a[0].of.i32 = args->data[0].of.i32 + 100;
    /* Re-enter wasm from inside a host callback. */
    EXPECT_NO_TRAP(call(w2_func, a, 1, r, 1));
    order[order_len++] = 'C';
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = r[0].of.i32 - 1;
    return NULL;
}

static wasm_trap_t *h2_cb(const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    order[order_len++] = 'B';
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = args->data[0].of.i32 + 1000;
    return NULL;
}

/* down(n) = n == 0 ? 0 : n + level(n - 1), where level calls down again. */
static wasm_trap_t *down_cb(const wasm_val_vec_t *args,
                            wasm_val_vec_t *results)
{
    int32_t n = args->data[0].of.i32;
    int32_t sub = 0;
    if (n > max_depth_seen)
        max_depth_seen = n;
    if (n > 0) {
        wasm_trap_t *trap = call_i32(level_func, n - 1, &sub);
        if (trap)
            return trap; /* pass the inner trap on to the outer call */
    }
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = n + sub;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_functype_t *type;
    wasm_func_t *h1, *h2, *down;
    wasm_extern_t *imports[3];
    instance_t inst;
    int32_t out = 0;
    const wasm_valkind_t i32[1] = { WASM_I32 };

    test_init(argc, argv, "callback_chain");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "callback_chain");
    type = functype_of(i32, 1, i32, 1);
    h1 = wasm_func_new(store, type, h1_cb);
    h2 = wasm_func_new(store, type, h2_cb);
    down = wasm_func_new(store, type, down_cb);
    CHECK(h1 && h2 && down, "wasm_func_new");
    wasm_functype_delete(type);
    imports[0] = wasm_func_as_extern(h1);
    imports[1] = wasm_func_as_extern(h2);
    imports[2] = wasm_func_as_extern(down);
    inst = instantiate(store, module, imports, 3);
    w2_func = export_func(&inst, "w2");
    level_func = export_func(&inst, "level");

    /* w1(1) = 2 * h1(2); h1(2) = w2(102) - 1; w2(102) = h2(306) + 5 = 1311 */
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "w1"), 1, &out));
    CHECK_EQ_INT(out, 2620, "w1(1) through the chain");
    CHECK(order_len == 3 && memcmp(order, "ABC", 3) == 0,
          "callbacks ran in order %.*s, expected ABC", order_len, order);

    /* Again, to see that nothing was left behind by the nested calls. */
    order_len = 0;
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "w1"), 10, &out));
    CHECK_EQ_INT(out, 2 * (1000 + 3 * 111 + 5 - 1), "w1(10)");
    CHECK(order_len == 3, "three callbacks again");

    /* 200 wasm frames interleaved with 200 host frames. */
    EXPECT_NO_TRAP(call_i32(level_func, 200, &out));
    CHECK_EQ_INT(out, 200 * 201 / 2, "alternating recursion sum");
    CHECK_EQ_INT(max_depth_seen, 200, "deepest level");

    instance_release(&inst);
    wasm_func_delete(h1);
    wasm_func_delete(h2);
    wasm_func_delete(down);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
