/* wasm_export.h's thread manager: 8 threads x 1,000,000 atomic increments
   on one shared memory through spawned exec envs (wasm_runtime_spawn_thread),
   with an exact total; host threads with wasm_runtime_spawn_exec_env and
   wasm_runtime_init_thread_env; each spawned exec env on its own slice of
   the shadow stack; max_thread_num enforced; joins of unknown threads
   refused. Set CAPI_TEST_INCREMENTS to change the per-thread count. */
#include <pthread.h>

#include "export_common.h"

#define THREADS 8

static const char *wat =
    "(module\n"
    "  (memory (export \"memory\") 1 1 shared)\n"
    "  (global $sp (mut i32) (i32.const 65536))\n"
    /* The linker's symbols, without which WAMR's loader finds no aux stack
       for threads (export_wamr_aux_stack.c). */
    "  (global (export \"__heap_base\") i32 (i32.const 65536))\n"
    "  (global (export \"__data_end\") i32 (i32.const 1024))\n"
    "  (func (export \"inc\") (param $n i32)\n"
    "    (loop $l\n"
    "      (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))\n"
    "      (local.set $n (i32.sub (local.get $n) (i32.const 1)))\n"
    "      (br_if $l (local.get $n))))\n"
    "  (func (export \"get\") (result i32) (i32.atomic.load (i32.const 0)))\n"
    "  (func (export \"sp\") (result i32) (global.get $sp)))\n";

static uint32_t increments = 1000000;
static uint32_t sps[THREADS];
/* The workers meet here, so that all 8 run (and hold their stacks) at once. */
static pthread_barrier_t all_running;

static int call0(wasm_exec_env_t env, const char *name, uint32_t *cells, uint32_t argc)
{
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    wasm_function_inst_t f = wasm_runtime_lookup_function(i, name);
    return f && wasm_runtime_call_wasm(env, f, argc, cells);
}

/* A wasm_runtime_spawn_thread callback: its shadow stack pointer into
   sps[index], then (once all are running) its increments. */
static void *worker(wasm_exec_env_t env, void *arg)
{
    uint32_t index = (uint32_t)(uintptr_t)arg, cells[1];
    int ok = call0(env, "sp", cells, 0);
    sps[index] = cells[0];
    pthread_barrier_wait(&all_running);
    cells[0] = increments;
    if (!ok || !call0(env, "inc", cells, 1))
        return NULL;
    return (void *)(uintptr_t)(index + 1);
}

/* A host thread with an exec env of wasm_runtime_spawn_exec_env. */
static void *host_thread(void *arg)
{
    wasm_exec_env_t env = arg;
    uint32_t cells[1] = { 1000 };
    int inited_before = wasm_runtime_thread_env_inited(), ok;
    CHECK(!inited_before, "a new host thread has no thread env");
    ok = call0(env, "inc", cells, 1);
    CHECK(!ok, "a call without wasm_runtime_init_thread_env fails");
    CHECK(strcmp(exception(wasm_runtime_get_module_inst(env)), "Exception: thread signal env not inited") == 0,
          "exception: %s", exception(wasm_runtime_get_module_inst(env)));
    wasm_runtime_clear_exception(wasm_runtime_get_module_inst(env));
    CHECK(wasm_runtime_init_thread_env() && wasm_runtime_thread_env_inited(), "init_thread_env");
    ok = call0(env, "inc", cells, 1);
    wasm_runtime_destroy_thread_env();
    CHECK(!wasm_runtime_thread_env_inited(), "destroy_thread_env");
    return (void *)(uintptr_t)ok;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t inst;
    wasm_exec_env_t env, spawned[THREADS + 1];
    wasm_thread_t tids[THREADS];
    uint32_t cells[1], main_sp;
    const char *n = getenv("CAPI_TEST_INCREMENTS");
    void *ret;
    pthread_t host;
    int k;

    test_init(argc, argv, "export_threads");
    if (n && *n)
        increments = (uint32_t)strtoul(n, NULL, 10);
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    wasm_runtime_set_max_thread_num(THREADS);
    m = load_wat(wat);
    inst = instantiate_module(m, 0);
    env = wasm_runtime_create_exec_env(inst, 65536);
    CHECK(call0(env, "sp", cells, 0), "sp");
    main_sp = cells[0];

    /* 8 threads x increments, all at once. */
    pthread_barrier_init(&all_running, NULL, THREADS);
    for (k = 0; k < THREADS; k++)
        CHECK(wasm_runtime_spawn_thread(env, &tids[k], worker, (void *)(uintptr_t)k) == 0, "spawn_thread %d", k);
    for (k = 0; k < THREADS; k++) {
        CHECK(wasm_runtime_join_thread(tids[k], &ret) == 0, "join_thread %d", k);
        CHECK(ret == (void *)(uintptr_t)(k + 1), "thread %d's result", k);
    }
    pthread_barrier_destroy(&all_running);
    CHECK(wasm_runtime_join_thread(tids[0], &ret) == -1, "a thread is joined once");
    CHECK(call0(env, "get", cells, 0), "get");
    CHECK_EQ_INT(cells[0], THREADS * increments, "the total of the atomic increments");
    for (k = 0; k < THREADS; k++) {
        CHECK(sps[k] != main_sp && sps[k] != 0 && sps[k] < main_sp, "thread %d's stack %u below main's %u", k,
              sps[k], main_sp);
        for (int j = 0; j < k; j++)
            CHECK(sps[j] != sps[k], "threads %d and %d have stacks of their own", j, k);
    }

    /* max_thread_num: 8 spawned exec envs at once, not 9; one destroyed
       makes room again. */
    for (k = 0; k < THREADS; k++) {
        spawned[k] = wasm_runtime_spawn_exec_env(env);
        CHECK(spawned[k] != NULL, "spawn_exec_env %d", k);
        CHECK(wasm_runtime_get_module_inst(spawned[k]) != inst, "a spawned exec env has an instance of its own");
    }
    CHECK(wasm_runtime_spawn_exec_env(env) == NULL, "a ninth thread is refused");
    wasm_runtime_destroy_spawned_exec_env(spawned[0]);
    spawned[0] = wasm_runtime_spawn_exec_env(env);
    CHECK(spawned[0] != NULL, "room again after a destroy");

    /* A host thread calls through a spawned exec env once it has its
       thread env. */
    CHECK(pthread_create(&host, NULL, host_thread, spawned[1]) == 0, "pthread_create");
    pthread_join(host, &ret);
    CHECK(ret == (void *)1, "the host thread's call");
    CHECK(call0(env, "get", cells, 0), "get");
    CHECK_EQ_INT(cells[0], THREADS * increments + 1000, "the host thread's increments are in the shared memory");
    for (k = 0; k < THREADS; k++)
        wasm_runtime_destroy_spawned_exec_env(spawned[k]);

    /* Bad arguments. */
    CHECK(wasm_runtime_spawn_exec_env(NULL) == NULL, "spawn_exec_env(NULL)");
    CHECK(wasm_runtime_spawn_thread(NULL, &tids[0], worker, NULL) == -1, "spawn_thread(NULL)");
    CHECK(wasm_runtime_spawn_thread(env, &tids[0], NULL, NULL) == -1, "spawn_thread without a callback");
    CHECK(wasm_runtime_join_thread(123456, NULL) == -1, "join of an unknown thread");
    wasm_runtime_destroy_spawned_exec_env(env); /* not a spawned one: ignored */
    CHECK(call0(env, "get", cells, 0), "the exec env survives a wrong destroy");

    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
