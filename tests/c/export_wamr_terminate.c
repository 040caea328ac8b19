/* wasm_runtime_terminate of an instance whose spawned exec env has not
 * made its first call yet, or is blocked in fd_read on stdin (issue 30 #3),
 * as WAMR's terminate sample does it, on its own app
 * (wat/export_wamr_terminate.wat): four instances, stdin a pipe nothing
 * writes to; instances 0 and 1 run on an exec env spawned from their
 * singleton, 2 and 3 on the singleton (wasm_application_execute_main);
 * 0 and 2 are terminated before their thread starts, 1 and 3 once it
 * blocks. Every thread must return (no hang on the join) and every
 * instance report "Exception: terminated by user".
 *
 * Recorded from a run of WAMR's terminate sample on WAMR 2.4.3 (built with
 * the sample's CMakeLists.txt): all four threads joined, each instance
 * "Exception: terminated by user". WAMR spreads the termination over the
 * instance's cluster (wasm_set_exception -> wasm_cluster_set_exception),
 * which reaches the spawned exec env's instance, and wakes its blocking
 * read (wasm_runtime_interrupt_blocking_op). Then, from WAMR's source: a
 * cleared exception lets calls run again, on the spawned exec envs too
 * (the clear spreads alike). */
#include <pthread.h>
#include <time.h>

#include "export_wamr.h"

#define N 4

static void *with_spawned(void *arg)
{
    wasm_exec_env_t env = arg;
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    CHECK(!wasm_runtime_call_wasm(env, func(i, "block_forever"), 0, NULL), "block_forever returns only by failing");
    wasm_runtime_destroy_thread_env();
    return NULL;
}

static void *with_singleton(void *arg)
{
    wasm_module_inst_t i = arg;
    CHECK(wasm_runtime_init_thread_env(), "init_thread_env");
    CHECK(!wasm_application_execute_main(i, 0, NULL), "_start returns only by failing");
    wasm_runtime_destroy_thread_env();
    return NULL;
}

int main(int argc, char **argv)
{
    static char heap[512 * 1024];
    RuntimeInitArgs init;
    wasm_module_t m;
    wasm_module_inst_t inst[N];
    wasm_exec_env_t spawned[2];
    pthread_t th[N];
    int fds[2];
    struct timespec settle = { 0, 300 * 1000 * 1000 };

    test_init(argc, argv, "export_wamr_terminate");
    alarm(120); /* a hang fails the test */
    memset(&init, 0, sizeof init);
    init.mem_alloc_type = Alloc_With_Pool;
    init.mem_alloc_option.pool.heap_buf = heap;
    init.mem_alloc_option.pool.heap_size = sizeof heap;
    CHECK(wasm_runtime_full_init(&init), "full_init");
    m = load("export_wamr_terminate");
    CHECK(pipe(fds) == 0, "pipe");
    wasm_runtime_set_wasi_args_ex(m, NULL, 0, NULL, 0, NULL, 0, NULL, 0, fds[0], -1, -1);

    for (int k = 0; k < N; k++) {
        char err[128];
        wasm_exec_env_t env;
        inst[k] = wasm_runtime_instantiate(m, 8092, 8092, err, sizeof err);
        CHECK(inst[k] != NULL, "instantiate %d: %s", k, err);
        env = wasm_runtime_get_exec_env_singleton(inst[k]);
        CHECK(env != NULL, "singleton %d", k);
        if (k < 2) {
            spawned[k] = wasm_runtime_spawn_exec_env(env);
            CHECK(spawned[k] != NULL, "spawn_exec_env %d", k);
        }
        if (k % 2 == 0)
            wasm_runtime_terminate(inst[k]);
        CHECK(pthread_create(&th[k], NULL, k < 2 ? with_spawned : with_singleton,
                             k < 2 ? (void *)spawned[k] : (void *)inst[k])
                  == 0,
              "pthread_create %d", k);
    }
    /* Let threads 1 and 3 reach their read (if one has not, it is
       terminated before its call instead: the outcome is the same). */
    nanosleep(&settle, NULL);
    wasm_runtime_terminate(inst[1]);
    wasm_runtime_terminate(inst[3]);
    for (int k = 0; k < N; k++)
        CHECK(pthread_join(th[k], NULL) == 0, "join %d", k);
    for (int k = 0; k < N; k++)
        CHECK_EXC(inst[k], "Exception: terminated by user");

    /* Cleared, the exception no longer stops calls, on the spawned exec
       env's instance either: malloc(1) runs. */
    wasm_runtime_clear_exception(inst[0]);
    CHECK(wasm_runtime_get_exception(wasm_runtime_get_module_inst(spawned[0])) == NULL,
          "the clear reaches the spawned exec env's instance");
    {
        uint32_t cells[1] = { 1 };
        wasm_module_inst_t sub = wasm_runtime_get_module_inst(spawned[0]);
        CHECK(wasm_runtime_call_wasm(spawned[0], func(sub, "malloc"), 1, cells), "a call after the clear: %s",
              exception_of(sub));
    }

    for (int k = 0; k < 2; k++)
        wasm_runtime_destroy_spawned_exec_env(spawned[k]);
    for (int k = 0; k < N; k++)
        wasm_runtime_deinstantiate(inst[k]);
    close(fds[0]);
    close(fds[1]);
    unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
