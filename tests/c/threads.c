/* Four threads, each with its own store, each doing 1000 rounds of
   instantiate + call + delete at the same time (ABI.md: distinct stores run
   on distinct threads at once). Two threads compile the module themselves,
   two obtain a shared one. Host callbacks run on the calling thread with
   their own env. Set CAPI_TEST_ROUNDS to change the round count. */
#include <pthread.h>

#include "common.h"

#define THREADS 4

static wasm_engine_t *engine;
static wasm_shared_module_t *shared;
static int rounds = 1000;

typedef struct {
    int id;
    int ticks;
    int rounds_done;
    pthread_t self;
} worker_t;

static void *worker(void *arg)
{
    worker_t *w = arg;
    wasm_store_t *store = wasm_store_new(engine);
    wasm_module_t *m;
    wasm_func_t *tick;
    int r;

    CHECK(store != NULL, "thread %d: wasm_store_new", w->id);
    if (w->id % 2)
        m = wasm_module_obtain(store, shared);
    else
        m = compile_module(store, "counter");
    CHECK(m != NULL, "thread %d: module", w->id);
    tick = counter_tick(store, &w->ticks);
    for (r = 0; r < rounds; r++) {
        wasm_extern_t *imports[1];
        instance_t inst;
        int32_t out = 0;
        wasm_memory_t *mem;
        imports[0] = wasm_func_as_extern(tick);
        inst = instantiate(store, m, imports, 1);
        EXPECT_NO_TRAP(call_i32(export_func(&inst, "bump"), r + w->id, &out));
        CHECK_EQ_INT(out, 2 * (r + w->id) + 1, "first bump of an instance");
        EXPECT_NO_TRAP(call_i32(export_func(&inst, "bump"), w->id, &out));
        CHECK_EQ_INT(out, 2 * w->id + 2, "second bump sees its own state");
        mem = wasm_extern_as_memory(export_named(&inst, "mem"));
        CHECK(mem && wasm_memory_data(mem)[0] == 2,
              "the instance's own memory");
        instance_release(&inst);
        w->rounds_done++;
    }
    CHECK(pthread_equal(w->self, pthread_self()), "ran on its thread");
    wasm_func_delete(tick);
    wasm_module_delete(m);
    wasm_store_delete(store);
    return NULL;
}

int main(int argc, char **argv)
{
    wasm_store_t *store;
    wasm_module_t *module;
    worker_t w[THREADS];
    const char *env = getenv("CAPI_TEST_ROUNDS");
    int i;

    test_init(argc, argv, "threads");
    if (env && atoi(env) > 0)
        rounds = atoi(env);
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "counter");
    shared = wasm_module_share(module);
    CHECK(shared != NULL, "wasm_module_share");

    for (i = 0; i < THREADS; i++) {
        w[i].id = i;
        w[i].ticks = 0;
        w[i].rounds_done = 0;
        CHECK(pthread_create(&w[i].self, NULL, worker, &w[i]) == 0,
              "pthread_create");
    }
    for (i = 0; i < THREADS; i++)
        pthread_join(w[i].self, NULL);
    for (i = 0; i < THREADS; i++) {
        CHECK_EQ_INT(w[i].rounds_done, rounds, "rounds done");
        CHECK_EQ_INT(w[i].ticks, 2 * rounds, "host callbacks per thread");
    }
    printf("%d threads x %d rounds of instantiate + 2 calls\n", THREADS,
           rounds);

    wasm_shared_module_delete(shared);
    wasm_module_delete(module);
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
