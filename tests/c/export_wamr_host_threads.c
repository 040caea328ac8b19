/* Host threads with wasm_runtime_spawn_exec_env / _destroy_spawned_exec_env,
 * wasm_runtime_init_thread_env / _destroy_thread_env and
 * wasm_runtime_get_exec_env_singleton used together, as WAMR's
 * spawn-thread and terminate samples use them (issue 30, "Also check").
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build with the thread
 * manager, see export_wamr.h): a new host thread has no thread
 * environment, and its call fails with "Exception: thread signal env not
 * inited"; once initialised it spawns an exec env from the main
 * instance's singleton and calls through it; destroying the thread
 * environment undoes it; the shared memory sees every thread's additions;
 * a host thread may also instantiate the module itself and call through
 * that instance's singleton. */
#include <pthread.h>

#include "export_wamr.h"

#define THREADS 4
#define ADDS 10000

static wasm_module_t module;
static wasm_module_inst_t main_inst;
static int thread_ok[THREADS];
/* An exception spreads over the instance's cluster, and so does its
 * clearing (as in WAMR): one thread's clear could wipe another's
 * exception between its call and its check, and one thread's exception
 * would stop another's running call. So the failing calls go one thread
 * at a time, and all of them before any thread calls for real. */
static pthread_mutex_t exception_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t failed_calls_done;

static void *worker(void *arg)
{
    int k = (int)(intptr_t)arg;
    uint32_t cells[1] = { ADDS };
    wasm_exec_env_t env;
    wasm_module_inst_t sub;
    CHECK(!wasm_runtime_thread_env_inited(), "a new thread has no thread environment");
    env = wasm_runtime_spawn_exec_env(wasm_runtime_get_exec_env_singleton(main_inst));
    CHECK(env != NULL, "spawn_exec_env from the main singleton");
    sub = wasm_runtime_get_module_inst(env);
    pthread_mutex_lock(&exception_lock);
    CHECK(!wasm_runtime_call_wasm(env, func(sub, "add"), 1, cells), "a call without a thread environment fails");
    CHECK_EXC(sub, "Exception: thread signal env not inited");
    wasm_runtime_clear_exception(sub);
    pthread_mutex_unlock(&exception_lock);
    pthread_barrier_wait(&failed_calls_done);
    CHECK(wasm_runtime_init_thread_env() && wasm_runtime_thread_env_inited(), "init_thread_env");
    cells[0] = ADDS;
    thread_ok[k] = wasm_runtime_call_wasm(env, func(sub, "add"), 1, cells);
    wasm_runtime_destroy_spawned_exec_env(env);
    wasm_runtime_destroy_thread_env();
    CHECK(!wasm_runtime_thread_env_inited(), "destroy_thread_env");
    return NULL;
}

/* A host thread with an instance of its own, called through its
   singleton. */
static void *own_instance(void *arg)
{
    char err[128];
    uint32_t cells[1] = { 5 };
    wasm_module_inst_t i;
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    i = wasm_runtime_instantiate(module, 65536, 0, err, sizeof err);
    CHECK(i != NULL, "instantiate: %s", err);
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), func(i, "add"), 1, cells), "add: %s",
          exception_of(i));
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), func(i, "get"), 0, cells), "get");
    CHECK_EQ_INT(cells[0], 5, "its own memory");
    wasm_runtime_deinstantiate(i);
    wasm_runtime_destroy_thread_env();
    return arg;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS + 1];
    uint32_t cells[1];

    test_init(argc, argv, "export_wamr_host_threads");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    module = load("export_wamr_counter");
    main_inst = new_instance(module, 0);
    CHECK(pthread_barrier_init(&failed_calls_done, NULL, THREADS) == 0, "pthread_barrier_init");
    for (int k = 0; k < THREADS; k++)
        CHECK(pthread_create(&th[k], NULL, worker, (void *)(intptr_t)k) == 0, "pthread_create");
    CHECK(pthread_create(&th[THREADS], NULL, own_instance, NULL) == 0, "pthread_create");
    for (int k = 0; k <= THREADS; k++)
        pthread_join(th[k], NULL);
    for (int k = 0; k < THREADS; k++)
        CHECK(thread_ok[k], "thread %d's calls", k);
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(main_inst), func(main_inst, "get"), 0, cells),
          "get");
    CHECK_EQ_INT(cells[0], THREADS * ADDS, "every thread's additions in the shared memory");
    wasm_runtime_deinstantiate(main_inst);
    unload(module);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
