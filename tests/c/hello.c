/* A wasm export calls a host callback (wasm_func_new, no env): the callback
   sees the argument wasm passed, and wasm sees the callback's result. */
#include "common.h"

static int calls;
static int32_t seen_arg;

static wasm_trap_t *hello_cb(const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    calls++;
    /* ABI.md: params size = num_elems = param count; results size = result
       count, num_elems 0. */
    CHECK(args->size == 1 && args->num_elems == 1,
          "params vector size %zu num_elems %zu, expected 1/1", args->size,
          args->num_elems);
    CHECK(results->size == 1, "results vector size %zu, expected 1",
          results->size);
    CHECK(results->num_elems == 0, "results num_elems %zu, expected 0",
          results->num_elems);
    CHECK(args->data[0].kind == WASM_I32, "arg kind %d", args->data[0].kind);
    seen_arg = args->data[0].of.i32;
    printf("Hello from the host, wasm said %d\n", seen_arg);
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = seen_arg * 10;
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_store_t *store;
    wasm_module_t *module;
    wasm_functype_t *type;
    wasm_func_t *hello;
    wasm_extern_t *imports[1];
    instance_t inst;
    int32_t out = 0;
    const wasm_valkind_t i32[1] = { WASM_I32 };

    test_init(argc, argv, "hello");
    engine = wasm_engine_new();
    CHECK(engine != NULL, "wasm_engine_new");
    store = wasm_store_new(engine);
    CHECK(store != NULL, "wasm_store_new");
    module = compile_module(store, "hello");

    type = functype_of(i32, 1, i32, 1);
    CHECK(type != NULL, "functype");
    hello = wasm_func_new(store, type, hello_cb);
    CHECK(hello != NULL, "wasm_func_new");
    CHECK_EQ_INT(wasm_func_param_arity(hello), 1, "param arity");
    CHECK_EQ_INT(wasm_func_result_arity(hello), 1, "result arity");
    wasm_functype_delete(type);

    imports[0] = wasm_func_as_extern(hello);
    inst = instantiate(store, module, imports, 1);

    EXPECT_NO_TRAP(call_i32(export_func(&inst, "run"), 7, &out));
    CHECK_EQ_INT(calls, 1, "callback calls");
    CHECK_EQ_INT(seen_arg, 7, "argument seen by the callback");
    CHECK_EQ_INT(out, 71, "run(7) = hello(7) + 1");

    EXPECT_NO_TRAP(call_i32(export_func(&inst, "run"), -3, &out));
    CHECK_EQ_INT(calls, 2, "callback calls");
    CHECK_EQ_INT(out, -29, "run(-3)");

    instance_release(&inst);
    wasm_func_delete(hello);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
