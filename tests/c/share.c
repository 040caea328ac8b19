/* wasm_module_share / wasm_module_obtain move a compiled module between
   stores on different threads (ABI.md: stores are single-threaded; distinct
   stores run on distinct threads at once). Four threads obtain the same
   shared module at the same time, each into its own store, and run it; the
   shared handle keeps the module alive after the original is deleted. */
#include <pthread.h>

#include "common.h"

#define THREADS 4
#define ROUNDS 50

static wasm_engine_t *engine;
static wasm_shared_module_t *shared;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg, r;
    wasm_store_t *store = wasm_store_new(engine);
    wasm_module_t *m;
    CHECK(store != NULL, "thread %d: wasm_store_new", id);
    m = wasm_module_obtain(store, shared);
    CHECK(m != NULL, "thread %d: wasm_module_obtain", id);
    for (r = 0; r < ROUNDS; r++)
        counter_roundtrip(store, m, id * 1000 + r);
    wasm_module_delete(m);
    wasm_store_delete(store);
    return NULL;
}

static void run_threads(void)
{
    pthread_t t[THREADS];
    int i;
    for (i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) == 0,
              "pthread_create");
    for (i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(int argc, char **argv)
{
    wasm_store_t *store;
    wasm_module_t *module, *same_store;

    test_init(argc, argv, "share");
    engine = wasm_engine_new();
    store = wasm_store_new(engine);
    module = compile_module(store, "counter");

    shared = wasm_module_share(module);
    CHECK(shared != NULL, "wasm_module_share");
    CHECK(wasm_module_obtain(NULL, shared) == NULL, "obtain into NULL store");
    CHECK(wasm_module_obtain(store, NULL) == NULL, "obtain NULL");

    /* Obtained in the same store, it is a module like any other. */
    same_store = wasm_module_obtain(store, shared);
    CHECK(same_store != NULL, "obtain into the sharing store");
    counter_roundtrip(store, same_store, 3);
    wasm_module_delete(same_store);

    /* Threads use it while this thread uses the original. */
    run_threads();
    counter_roundtrip(store, module, 9);

    /* The original goes; the shared handle keeps the module alive. */
    wasm_module_delete(module);
    run_threads();
    wasm_shared_module_delete(shared);

    wasm_store_delete(store);
    wasm_engine_delete(engine);
    test_pass();
    return 0;
}
