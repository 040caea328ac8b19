/* A wasi-threads program ends in one thread, and the embedder lives on:
   a spawned thread's proc_exit(3), or its trap, while the main thread is
   parked in memory.atomic.wait forever (or, for the exit, sleeps a minute
   in poll_oneoff), makes the embedder's call return with the program's
   exception ("wasi proc exit" and exit code 3, or the trap's message).
   The main thread's own proc_exit stops a spawned thread that spins in
   wasm, and so does a return from _start, which WAMR takes for exit(0)
   (wasm_application_execute_main succeeds, status 0). The process carries
   on after each (WAMR's wasm_cluster_set_exception, not an exit of the
   process). */
#include "export_common.h"

static const char *wat =
    "(module\n"
    "  (import \"wasi_snapshot_preview1\" \"proc_exit\" (func $exit (param i32)))\n"
    "  (import \"wasi\" \"thread-spawn\" (func $spawn (param i32) (result i32)))\n"
    "  (import \"wasi_snapshot_preview1\" \"poll_oneoff\"\n"
    "    (func $poll (param i32 i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"memory\" (memory 1 1 shared))\n"
    /* Cell 0: never changes (the main thread waits on it). Cell 4: the
       spinning thread's counter. */
    "  (func (export \"wasi_thread_start\") (param $tid i32) (param $mode i32)\n"
    "    (if (i32.eqz (local.get $mode)) (then (call $exit (i32.const 3))))\n"
    "    (if (i32.eq (local.get $mode) (i32.const 1)) (then unreachable))\n"
    "    (loop $spin\n"
    "      (drop (i32.atomic.rmw.add (i32.const 4) (i32.const 1)))\n"
    "      (br $spin)))\n"
    /* Spawns a thread in `mode`, then waits forever. */
    "  (func (export \"spawn_and_wait\") (param $mode i32) (result i32)\n"
    "    (if (i32.le_s (call $spawn (local.get $mode)) (i32.const 0)) (then (return (i32.const -1))))\n"
    "    (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1)))\n"
    "    (i32.const -2))\n"
    /* Spawns a thread in `mode`, then sleeps a minute in poll_oneoff (a
       monotonic clock subscription at 64, its event at 128). */
    "  (func (export \"spawn_and_sleep\") (param $mode i32) (result i32)\n"
    "    (if (i32.le_s (call $spawn (local.get $mode)) (i32.const 0)) (then (return (i32.const -1))))\n"
    "    (i32.store8 (i32.const 72) (i32.const 0))\n"
    "    (i32.store (i32.const 80) (i32.const 1))\n"
    "    (i64.store (i32.const 88) (i64.const 60000000000))\n"
    "    (drop (call $poll (i32.const 64) (i32.const 128) (i32.const 1) (i32.const 192)))\n"
    "    (i32.const -2))\n"
    /* Spawns a spinning thread and lets it start. */
    "  (func $spin_up\n"
    "    (if (i32.le_s (call $spawn (i32.const 2)) (i32.const 0)) (then unreachable))\n"
    "    (loop $started (br_if $started (i32.eqz (i32.atomic.load (i32.const 4))))))\n"
    /* ... then exits with 5, or returns from _start. */
    "  (func (export \"spawn_and_exit\") (call $spin_up) (call $exit (i32.const 5)))\n"
    "  (func (export \"_start\") (call $spin_up))\n"
    "  (func (export \"answer\") (result i32) (i32.const 42)))\n";

/* Waits until the counter at 4 of `i`'s memory stops moving; fails if it
   never does or never moved. */
static void check_spinner_stopped(wasm_module_inst_t i)
{
    uint32_t before = 0, after = 1;
    uint8_t *mem = wasm_runtime_addr_app_to_native(i, 0);
    int tries;
    CHECK(mem != NULL, "memory 0");
    for (tries = 0; tries < 100 && before != after; tries++) {
        before = __atomic_load_n((uint32_t *)(mem + 4), __ATOMIC_SEQ_CST);
        sleep_ms(20);
        after = __atomic_load_n((uint32_t *)(mem + 4), __ATOMIC_SEQ_CST);
    }
    CHECK(before == after && before > 0, "the spinning thread stopped (counter %u, then %u)", before, after);
}

/* Calls export `name` of a new instance of `m` with `argc` i32 cells;
   returns the instance, whose call must have failed. */
static wasm_module_inst_t failing_call(wasm_module_t m, const char *name, uint32_t argc, uint32_t *cells)
{
    wasm_module_inst_t i = instantiate_module(m, 0);
    wasm_exec_env_t env = wasm_runtime_get_exec_env_singleton(i);
    wasm_function_inst_t f = wasm_runtime_lookup_function(i, name);
    CHECK(f != NULL, "export %s", name);
    CHECK(!wasm_runtime_call_wasm(env, f, argc, cells), "%s must end with the program's exception (got %d)", name,
          (int)cells[0]);
    return i;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    uint32_t cells[1];
    double start;

    test_init(argc, argv, "export_thread_exit");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load_wat(wat);

    /* A spawned thread's proc_exit(3) wakes the waiting main thread. */
    cells[0] = 0;
    i = failing_call(m, "spawn_and_wait", 1, cells);
    CHECK_EXCEPTION(i, "Exception: wasi proc exit");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(i), 3, "the spawned thread's exit code");
    wasm_runtime_deinstantiate(i);
    printf("after a spawned thread's proc_exit\n");

    /* ... and the main thread sleeping a minute in poll_oneoff. */
    cells[0] = 0;
    start = now_ms();
    i = failing_call(m, "spawn_and_sleep", 1, cells);
    CHECK_EXCEPTION(i, "Exception: wasi proc exit");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(i), 3, "the spawned thread's exit code");
    CHECK(now_ms() - start < 20000, "the sleeping main thread was woken (%.0f ms)", now_ms() - start);
    wasm_runtime_deinstantiate(i);
    printf("after a spawned thread's proc_exit, main sleeping\n");

    /* A spawned thread's trap: the main call returns with its message. */
    cells[0] = 1;
    i = failing_call(m, "spawn_and_wait", 1, cells);
    CHECK(strstr(exception(i), "unreachable") != NULL, "the trap's exception, got \"%s\"", exception(i));
    wasm_runtime_deinstantiate(i);
    printf("after a spawned thread's trap\n");

    /* The main thread's proc_exit(5) stops the spinning thread: its
       counter stops moving. */
    i = failing_call(m, "spawn_and_exit", 0, cells);
    CHECK_EXCEPTION(i, "Exception: wasi proc exit");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(i), 5, "the main thread's exit code");
    check_spinner_stopped(i);
    wasm_runtime_deinstantiate(i);
    printf("after the main thread's proc_exit\n");

    /* A return from _start is exit(0) (WAMR): it stops the spinning thread
       too, and the program succeeded. */
    i = instantiate_module(m, 0);
    CHECK(wasm_application_execute_main(i, 0, NULL), "_start: %s", exception(i));
    CHECK(wasm_runtime_get_exception(i) == NULL, "no exception after _start, got \"%s\"", exception(i));
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(i), 0, "the exit code of a return from _start");
    check_spinner_stopped(i);
    cells[0] = 0;
    CHECK(wasm_runtime_call_wasm(wasm_runtime_get_exec_env_singleton(i), wasm_runtime_lookup_function(i, "answer"), 0,
                                 cells) && cells[0] == 42,
          "the main instance still runs calls: %s", exception(i));
    wasm_runtime_deinstantiate(i);
    printf("after a return from _start\n");

    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
