/* wasm_runtime_begin_blocking_op / _end_blocking_op, as WAMR built with its
 * thread manager behaves (wasm_blocking_op.c): a native blocked in a system
 * call inside the bracket is woken by wasm_runtime_terminate (the call
 * returns EINTR), and the call then fails with "terminated by user"; begin
 * answers false once the instance is being stopped; end keeps errno; no
 * wake signal is left to interrupt a later system call of the thread. */
#include <errno.h>
#include <pthread.h>

#include "export_common.h"

static const char *BLOCKER =
    "(module (import \"env\" \"block_read\" (func $b (result i32)))\n"
    "  (import \"env\" \"stop_then_begin\" (func $s (result i32)))\n"
    "  (func (export \"read\") (result i32) (call $b))\n"
    "  (func (export \"stop_then_begin\") (result i32) (call $s)))";

static int pipe_fds[2];
static int read_result = 1;
static int errno_after_end;

/* Reads from a pipe nobody writes to, inside the bracket. */
static int32_t block_read(wasm_exec_env_t env)
{
    char c;
    ssize_t n;
    if (!wasm_runtime_begin_blocking_op(env))
        return -1000;
    n = read(pipe_fds[0], &c, 1);
    if (n < 0)
        read_result = -errno;
    errno = 4242; /* end must keep errno as it was */
    wasm_runtime_end_blocking_op(env);
    errno_after_end = errno;
    return (int32_t)n;
}

/* Terminates its own instance, then tries to start a bracket. */
static int begin_after_stop = -1;
static int32_t stop_then_begin(wasm_exec_env_t env)
{
    wasm_runtime_terminate(wasm_runtime_get_module_inst(env));
    begin_after_stop = wasm_runtime_begin_blocking_op(env);
    if (begin_after_stop)
        wasm_runtime_end_blocking_op(env);
    return 0;
}

static NativeSymbol natives[] = {
    { "block_read", (void *)block_read, "()i", NULL },
    { "stop_then_begin", (void *)stop_then_begin, "()i", NULL },
};

static void *terminate_later(void *inst)
{
    sleep_ms(200);
    wasm_runtime_terminate((wasm_module_inst_t)inst);
    return NULL;
}

static bool call0(wasm_module_inst_t inst, const char *name)
{
    uint32_t cells[1] = { 0 };
    return wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(inst),
                                  wasm_runtime_lookup_function(inst, name), 0, cells);
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    pthread_t t;
    double start, took;
    struct timespec pause = { 0, 150 * 1000 * 1000 };

    test_init(argc, argv, "export_blocking");
    CHECK(wasm_runtime_init(), "init");
    CHECK(wasm_runtime_register_natives("env", natives, 2), "natives");
    CHECK(pipe(pipe_fds) == 0, "a pipe");
    m = load_wat(BLOCKER);
    i = instantiate_module(m, 0);

    /* The blocked read is woken: EINTR, then the stop. */
    CHECK(pthread_create(&t, NULL, terminate_later, i) == 0, "a thread");
    start = now_ms();
    CHECK(!call0(i, "read"), "the blocked call was stopped");
    took = now_ms() - start;
    pthread_join(t, NULL);
    CHECK(took >= 150 && took < 5000, "stopped after the terminate at 200 ms: %.0f ms", took);
    CHECK(read_result == -EINTR, "the read returned %d, expected -EINTR", read_result);
    CHECK(errno_after_end == 4242, "errno kept by end: %d", errno_after_end);
    CHECK_EXCEPTION(i, "Exception: terminated by user");

    /* No wake signal is left over: a later sleep of this thread is whole. */
    CHECK(nanosleep(&pause, NULL) == 0, "a later nanosleep was interrupted (errno %d)", errno);

    /* Once the instance is being stopped, a bracket does not start. */
    wasm_runtime_clear_exception(i);
    CHECK(!call0(i, "stop_then_begin"), "the call was terminated");
    CHECK(begin_after_stop == 0, "begin after the stop answered %d, expected false", begin_after_stop);
    CHECK_EXCEPTION(i, "Exception: terminated by user");

    /* Bad exec envs are refused, not dereferenced. */
    CHECK(!wasm_runtime_begin_blocking_op(NULL), "NULL exec env");
    CHECK(!wasm_runtime_begin_blocking_op((wasm_exec_env_t)natives), "a foreign pointer");
    wasm_runtime_end_blocking_op(NULL);

    wasm_runtime_deinstantiate(i);
    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
