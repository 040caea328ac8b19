/* Host functions with an env pointer and a finalizer (wasm_func_new_with_env).
 *
 * ABI.md: "The env finalizer runs once, when the func is deleted with its
 * store." So the env stays alive while an instance can still call the
 * function, even after the client deleted its own wasm_func_t, and the
 * finalizer runs exactly once, at wasm_store_delete at the latest.
 *
 * WAMR differs: its store does not own host functions, and it runs the
 * finalizer inside wasm_func_delete, while an instance that imported the
 * function can still call it with the (finalized) env. Scenarios A and B
 * fail on WAMR for that reason, and E because WAMR cannot call a host
 * function directly.
 */
#include "common.h"

typedef struct {
    int calls;
    int finalized;
    int32_t last_arg;
} counter_t;

static wasm_trap_t *count_cb(void *env, const wasm_val_vec_t *args,
                             wasm_val_vec_t *results)
{
    counter_t *c = env;
    CHECK(c != NULL, "env pointer not passed to the callback");
    CHECK(c->finalized == 0, "callback ran after its env was finalized");
    c->calls++;
    c->last_arg = args->data[0].of.i32;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = c->calls * 1000 + args->data[0].of.i32;
    return NULL;
}

static void count_finalizer(void *env)
{
    counter_t *c = env;
    c->finalized++;
}

/* An env on the heap that only the finalizer frees: valgrind reports a leak
   if the finalizer never runs and an error if it runs twice. */
typedef struct {
    int32_t offset;
} heap_env_t;
static int heap_finalized;

static wasm_trap_t *offset_cb(void *env, const wasm_val_vec_t *args,
                              wasm_val_vec_t *results)
{
    heap_env_t *h = env;
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = args->data[0].of.i32 + h->offset;
    return NULL;
}

static void heap_finalizer(void *env)
{
    heap_finalized++;
    free(env);
}

static wasm_functype_t *i32_to_i32(void)
{
    const wasm_valkind_t k[1] = { WASM_I32 };
    return functype_of(k, 1, k, 1);
}

static int32_t run(const instance_t *inst, const char *name, int32_t arg)
{
    int32_t out = 0;
    EXPECT_NO_TRAP(call_i32(export_func(inst, name), arg, &out));
    return out;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    test_init(argc, argv, "callback_env");
    engine = wasm_engine_new();
    CHECK(engine != NULL, "wasm_engine_new");

    /* A: the client never deletes its funcs; the store deletion finalizes
       each env exactly once. */
    {
        counter_t c1 = { 0, 0, 0 };
        heap_env_t *h = malloc(sizeof *h);
        wasm_store_t *store = wasm_store_new(engine);
        wasm_module_t *module = compile_module(store, "callback_env");
        wasm_functype_t *type = i32_to_i32();
        wasm_func_t *f1, *f2;
        wasm_extern_t *imports[2];
        instance_t inst;

        h->offset = 500;
        heap_finalized = 0;
        f1 = wasm_func_new_with_env(store, type, count_cb, &c1,
                                    count_finalizer);
        f2 = wasm_func_new_with_env(store, type, offset_cb, h, heap_finalizer);
        CHECK(f1 && f2, "wasm_func_new_with_env");
        wasm_functype_delete(type);
        imports[0] = wasm_func_as_extern(f1);
        imports[1] = wasm_func_as_extern(f2);
        inst = instantiate(store, module, imports, 2);

        CHECK_EQ_INT(run(&inst, "run", 5), 1005, "first call sees env");
        CHECK_EQ_INT(run(&inst, "run", 6), 2006, "second call sees env");
        CHECK_EQ_INT(c1.calls, 2, "env calls");
        CHECK_EQ_INT(c1.last_arg, 6, "env last argument");
        CHECK_EQ_INT(run(&inst, "run2", 1), 501, "heap env");

        instance_release(&inst);
        wasm_module_delete(module);
        CHECK_EQ_INT(c1.finalized, 0, "finalizer ran before the store died");
        CHECK_EQ_INT(heap_finalized, 0,
                     "heap finalizer ran before the store died");
        wasm_store_delete(store);
        CHECK_EQ_INT(c1.finalized, 1,
                     "finalizer runs once when the store is deleted "
                     "(funcs never deleted by the client)");
        CHECK_EQ_INT(heap_finalized, 1, "heap env finalizer runs once");
    }

    /* B: the client deletes its func right after instantiating (as WAMR's
       samples do). The instance still calls it, with a live env; the
       finalizer runs once, with the store. */
    {
        counter_t c1 = { 0, 0, 0 }, c2 = { 0, 0, 0 };
        wasm_store_t *store = wasm_store_new(engine);
        wasm_module_t *module = compile_module(store, "callback_env");
        wasm_functype_t *type = i32_to_i32();
        wasm_func_t *f1, *f2;
        wasm_extern_t *imports[2];
        instance_t inst;

        f1 = wasm_func_new_with_env(store, type, count_cb, &c1,
                                    count_finalizer);
        f2 = wasm_func_new_with_env(store, type, count_cb, &c2,
                                    count_finalizer);
        wasm_functype_delete(type);
        imports[0] = wasm_func_as_extern(f1);
        imports[1] = wasm_func_as_extern(f2);
        inst = instantiate(store, module, imports, 2);
        wasm_func_delete(f1);
        wasm_func_delete(f2);
        CHECK_EQ_INT(c1.finalized, 0,
                     "finalizer ran at wasm_func_delete while an instance "
                     "still imports the function");
        CHECK_EQ_INT(run(&inst, "run", 1), 1001, "call after func delete");
        CHECK_EQ_INT(run(&inst, "run2", 2), 1002, "second env is distinct");
        CHECK_EQ_INT(run(&inst, "run2", 3), 2003, "second env counts");
        CHECK_EQ_INT(c1.calls, 1, "first env calls");
        CHECK_EQ_INT(c2.calls, 2, "second env calls");
        instance_release(&inst);
        wasm_module_delete(module);
        wasm_store_delete(store);
        CHECK_EQ_INT(c1.finalized, 1, "first finalizer ran exactly once");
        CHECK_EQ_INT(c2.finalized, 1, "second finalizer ran exactly once");
    }

    /* C: a NULL finalizer is allowed; the env is still passed. The client
       deletes everything itself, then the store. */
    {
        counter_t c1 = { 0, 0, 0 };
        wasm_store_t *store = wasm_store_new(engine);
        wasm_module_t *module = compile_module(store, "callback_env");
        wasm_functype_t *type = i32_to_i32();
        wasm_func_t *f = wasm_func_new_with_env(store, type, count_cb, &c1,
                                                NULL);
        wasm_extern_t *imports[2];
        instance_t inst;
        CHECK(f != NULL, "wasm_func_new_with_env without finalizer");
        wasm_functype_delete(type);
        imports[0] = imports[1] = wasm_func_as_extern(f);
        inst = instantiate(store, module, imports, 2);
        CHECK_EQ_INT(run(&inst, "run", 4), 1004, "env without a finalizer");
        CHECK_EQ_INT(run(&inst, "run2", 4), 2004,
                     "one func imported twice shares its env");
        instance_release(&inst);
        wasm_func_delete(f);
        wasm_module_delete(module);
        wasm_store_delete(store);
        CHECK_EQ_INT(c1.finalized, 0, "no finalizer was given");
    }

    /* D: a func the client deletes itself, never imported anywhere: its
       finalizer has run exactly once once the store is gone. */
    {
        counter_t c1 = { 0, 0, 0 };
        wasm_store_t *store = wasm_store_new(engine);
        wasm_functype_t *type = i32_to_i32();
        wasm_func_t *f = wasm_func_new_with_env(store, type, count_cb, &c1,
                                                count_finalizer);
        wasm_functype_delete(type);
        wasm_func_delete(f);
        wasm_store_delete(store);
        CHECK_EQ_INT(c1.finalized, 1, "finalizer of an unused func");
    }

    /* E: the host calls its own function directly with wasm_func_call; the
       callback runs with its env. (WAMR instead traps with "failed to call
       unlinked function" for any host function not reached through an
       instance; ABI.md reserves that trap for missing imports.) */
    {
        counter_t c1 = { 0, 0, 0 };
        wasm_store_t *store = wasm_store_new(engine);
        wasm_functype_t *type = i32_to_i32();
        wasm_func_t *f = wasm_func_new_with_env(store, type, count_cb, &c1,
                                                count_finalizer);
        wasm_val_t a[1] = { WASM_I32_VAL(9) }, r[1] = { WASM_INIT_VAL };
        wasm_functype_delete(type);
        EXPECT_NO_TRAP(call(f, a, 1, r, 1));
        CHECK(r[0].kind == WASM_I32, "result kind %d", r[0].kind);
        CHECK_EQ_INT(r[0].of.i32, 1009, "direct call of a host func");
        CHECK_EQ_INT(c1.calls, 1, "callback ran once");
        wasm_func_delete(f);
        wasm_store_delete(store);
        CHECK_EQ_INT(c1.finalized, 1, "finalizer after a direct call");
    }

    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
