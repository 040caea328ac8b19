/* The C API from any thread (capi/README.md, "Threads"): a store another
   thread is using at that moment refuses a second thread's wasm_func_call,
   wasm_instance_new, wasm_memory_grow, wasm_table_grow/_set and
   wasm_global_set with "store is in use by another thread", leaving the
   store as it was; the thread using it may re-enter it (a host callback
   calling back in); and once it is done, any other thread may use it. */
#include <pthread.h>

#include "common.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int inside, tried;

static wasm_store_t *store;
static wasm_module_t *module;
static instance_t inst;
static wasm_global_t *global;
static wasm_table_t *table;
static int reentered_square = -1;

#define BUSY "Exception: store is in use by another thread"

/* host.tick for wat/store_claim.wat: tells the main thread it is inside a
   call, calls back into its own store (allowed: the same thread), and
   waits until the main thread has tried the store. */
static wasm_trap_t *blocking_tick(void *env, const wasm_val_vec_t *args, wasm_val_vec_t *results)
{
    int32_t sq = 0;
    (void)env;
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "square"), 7, &sq));
    reentered_square = sq;
    pthread_mutex_lock(&lock);
    inside = 1;
    pthread_cond_broadcast(&changed);
    while (!tried)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    results->data[0].kind = WASM_I32;
    results->data[0].of.i32 = 2 * args->data[0].of.i32;
    return NULL;
}

static void *bump_thread(void *arg)
{
    int32_t *out = arg;
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "bump"), 5, out));
    return NULL;
}

static void *square_thread(void *arg)
{
    int32_t *out = arg;
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "square"), 12, out));
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_engine_t *engine;
    wasm_func_t *tick;
    wasm_extern_t *imports[1];
    wasm_memory_t *mem;
    pthread_t t;
    int32_t bumped = 0, sq = 0;
    wasm_trap_t *trap = NULL;
    wasm_instance_t *second;
    wasm_val_t v;
    const wasm_valkind_t i32[1] = { WASM_I32 };
    wasm_functype_t *ft;

    test_init(argc, argv, "store_claim");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "store_claim");
    ft = functype_of(i32, 1, i32, 1);
    tick = wasm_func_new_with_env(store, ft, blocking_tick, NULL, NULL);
    wasm_functype_delete(ft);
    imports[0] = wasm_func_as_extern(tick);
    inst = instantiate(store, module, imports, 1);
    mem = wasm_extern_as_memory(export_named(&inst, "mem"));
    global = wasm_extern_as_global(export_named(&inst, "g"));
    table = wasm_extern_as_table(export_named(&inst, "tab"));
    v.kind = WASM_I32;
    CHECK(global && table && mem, "objects made");

    /* A second thread enters the store and stays inside a host call. */
    CHECK(pthread_create(&t, NULL, bump_thread, &bumped) == 0, "pthread_create");
    pthread_mutex_lock(&lock);
    while (!inside)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);

    /* Meanwhile this thread is refused everywhere, and nothing changes. */
    EXPECT_TRAP(call_i32(export_func(&inst, "square"), 3, &sq), BUSY);
    second = wasm_instance_new(store, module, &(wasm_extern_vec_t){ 1, imports, 1, sizeof(void *), NULL }, &trap);
    CHECK(second == NULL, "wasm_instance_new on a busy store");
    EXPECT_TRAP(trap, BUSY);
    CHECK(!wasm_memory_grow(mem, 1), "wasm_memory_grow on a busy store");
    CHECK(!wasm_table_grow(table, 1, NULL), "wasm_table_grow on a busy store");
    CHECK(!wasm_table_set(table, 0, NULL), "wasm_table_set on a busy store");
    v.of.i32 = 99;
    wasm_global_set(global, &v);

    pthread_mutex_lock(&lock);
    tried = 1;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    pthread_join(t, NULL);
    CHECK_EQ_INT(bumped, 2 * 5 + 1, "the other thread's call ran undisturbed");
    CHECK_EQ_INT(reentered_square, 49, "the thread inside re-entered its store");
    CHECK_EQ_INT((int)wasm_memory_size(mem), 1, "the refused grow changed nothing");
    CHECK_EQ_INT((int)wasm_table_size(table), 1, "the refused table grow changed nothing");
    wasm_global_get(global, &v);
    CHECK_EQ_INT(v.of.i32, 1, "the refused global set changed nothing");

    /* One after another: this thread, then a third one, use the store. */
    EXPECT_NO_TRAP(call_i32(export_func(&inst, "square"), 3, &sq));
    CHECK_EQ_INT(sq, 9, "square after the other thread left");
    CHECK(wasm_memory_grow(mem, 1), "wasm_memory_grow when the store is free");
    CHECK(wasm_table_grow(table, 1, NULL), "wasm_table_grow when the store is free");
    v.of.i32 = 42;
    wasm_global_set(global, &v);
    wasm_global_get(global, &v);
    CHECK_EQ_INT(v.of.i32, 42, "wasm_global_set when the store is free");
    CHECK(pthread_create(&t, NULL, square_thread, &sq) == 0, "pthread_create");
    pthread_join(t, NULL);
    CHECK_EQ_INT(sq, 144, "a third thread's call");

    instance_release(&inst);
    wasm_func_delete(tick);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
