/* A lib-pthread program (WAMR's builtin pthread natives) ends when any of
   its threads fails, and the embedder lives on, as WAMR spreads the
   exception over the cluster:
   - the main thread's trap stops a child that spins in wasm;
   - it also stops a child waiting in pthread_mutex_lock: the wait ends,
     the child runs no more wasm, and wasm_runtime_deinstantiate does not
     wait for it (WAMR leaves such a child blocked, and waits for it);
   - a child's trap wakes the main thread from pthread_cond_wait, whose
     call then fails with the child's exception. */
#include "export_common.h"

static const char *wat =
    "(module\n"
    "  (import \"env\" \"pthread_create\" (func $create (param i32 i32 i32 i32) (result i32)))\n"
    "  (import \"env\" \"pthread_mutex_init\" (func $minit (param i32 i32) (result i32)))\n"
    "  (import \"env\" \"pthread_mutex_lock\" (func $lock (param i32) (result i32)))\n"
    "  (import \"env\" \"pthread_cond_init\" (func $cinit (param i32 i32) (result i32)))\n"
    "  (import \"env\" \"pthread_cond_wait\" (func $cwait (param i32 i32) (result i32)))\n"
    "  (memory (export \"memory\") 1 1 shared)\n"
    "  (global $sp (mut i32) (i32.const 65536))\n"
    /* The linker's symbols, without which WAMR's loader finds no aux stack
       for threads (export_wamr_aux_stack.c). */
    "  (global (export \"__heap_base\") i32 (i32.const 65536))\n"
    "  (global (export \"__data_end\") i32 (i32.const 1024))\n"
    /* Cells: 0 the new thread's id; 4 the spinner's counter; 8 a mutex;
       12 a condition variable; 16 set before the child locks; 20 set
       after it did; 24 never changes (waited on). */
    "  (table 4 funcref)\n"
    "  (elem (i32.const 1) $spin $locker $trap)\n"
    "  (func $spin (param i32) (result i32)\n"
    "    (loop $l (drop (i32.atomic.rmw.add (i32.const 4) (i32.const 1))) (br $l))\n"
    "    unreachable)\n"
    "  (func $locker (param i32) (result i32)\n"
    "    (i32.atomic.store (i32.const 16) (i32.const 1))\n"
    "    (drop (call $lock (i32.const 8)))\n"
    "    (i32.atomic.store (i32.const 20) (i32.const 1))\n"
    "    (i32.const 0))\n"
    "  (func $trap (param i32) (result i32) unreachable)\n"
    "  (func $start (param $elem i32)\n"
    "    (if (call $create (i32.const 0) (i32.const 0) (local.get $elem) (i32.const 0))\n"
    "      (then unreachable)))\n"
    "  (func $pause (param $ns i64)\n"
    "    (drop (memory.atomic.wait32 (i32.const 24) (i32.const 0) (local.get $ns))))\n"
    /* Spawns a spinner, waits until it counts, traps. */
    "  (func (export \"spin_then_trap\")\n"
    "    (call $start (i32.const 1))\n"
    "    (loop $w (br_if $w (i32.eqz (i32.atomic.load (i32.const 4)))))\n"
    "    unreachable)\n"
    /* Takes the mutex, spawns a child that waits for it, lets it block,
       traps holding the mutex. */
    "  (func (export \"lock_then_trap\")\n"
    "    (drop (call $minit (i32.const 8) (i32.const 0)))\n"
    "    (drop (call $lock (i32.const 8)))\n"
    "    (call $start (i32.const 2))\n"
    "    (loop $w (br_if $w (i32.eqz (i32.atomic.load (i32.const 16)))))\n"
    "    (call $pause (i64.const 100000000))\n"
    "    unreachable)\n"
    /* Spawns a child that traps, waits on a condition nobody signals. */
    "  (func (export \"wait_for_trap\") (result i32)\n"
    "    (drop (call $minit (i32.const 8) (i32.const 0)))\n"
    "    (drop (call $cinit (i32.const 12) (i32.const 0)))\n"
    "    (drop (call $lock (i32.const 8)))\n"
    "    (call $start (i32.const 3))\n"
    "    (drop (call $cwait (i32.const 12) (i32.const 8)))\n"
    "    (i32.const 7)))\n";

/* The process's threads, from /proc/self/status. */
static int thread_count(void)
{
    char line[256];
    int n = -1;
    FILE *f = fopen("/proc/self/status", "r");
    CHECK(f != NULL, "/proc/self/status");
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

static uint32_t cell(wasm_module_inst_t i, uint32_t at)
{
    uint8_t *mem = wasm_runtime_addr_app_to_native(i, 0);
    CHECK(mem != NULL, "memory 0");
    return __atomic_load_n((uint32_t *)(mem + at), __ATOMIC_SEQ_CST);
}

/* Calls export `name` of a new instance of `m`, which must fail with the
   trap of an `unreachable` in one of the program's threads. */
static wasm_module_inst_t failing_call(wasm_module_t m, const char *name)
{
    uint32_t cells[1] = { 0 };
    wasm_module_inst_t i = instantiate_module(m, 0);
    wasm_exec_env_t env = wasm_runtime_get_exec_env_singleton(i);
    wasm_function_inst_t f = wasm_runtime_lookup_function(i, name);
    CHECK(f != NULL, "export %s", name);
    CHECK(!wasm_runtime_call_wasm(env, f, 0, cells), "%s must fail (got %u)", name, cells[0]);
    CHECK(strstr(exception(i), "unreachable") != NULL, "%s: the trap's exception, got \"%s\"", name, exception(i));
    return i;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t i;
    uint32_t before = 0, after = 1;
    double t;
    int tries, threads;

    test_init(argc, argv, "export_pthread_end");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load_wat(wat);

    /* The main thread's trap stops the spinning child. */
    i = failing_call(m, "spin_then_trap");
    for (tries = 0; tries < 100 && before != after; tries++) {
        before = cell(i, 4);
        sleep_ms(20);
        after = cell(i, 4);
    }
    CHECK(before == after && before > 0, "the spinning child stopped (counter %u, then %u)", before, after);
    wasm_runtime_deinstantiate(i);
    printf("main's trap stopped a spinning child\n");

    /* ... and a child blocked in pthread_mutex_lock: it runs no wasm after
       the lock, the instance goes without the wait for a stuck thread
       (1 s), and the child's thread is gone. */
    threads = thread_count();
    i = failing_call(m, "lock_then_trap");
    sleep_ms(50);
    CHECK_EQ_INT(cell(i, 20), 0, "the blocked child ran on after the program ended");
    t = now_ms();
    wasm_runtime_deinstantiate(i);
    t = now_ms() - t;
    CHECK(t < 500, "wasm_runtime_deinstantiate waited %.0f ms for the blocked child", t);
    for (tries = 0; tries < 100 && thread_count() != threads; tries++)
        sleep_ms(20);
    CHECK_EQ_INT(thread_count(), threads, "threads after the blocked child ended");
    printf("main's trap stopped a child waiting for a mutex\n");

    /* A child's trap ends the main thread's pthread_cond_wait. */
    i = failing_call(m, "wait_for_trap");
    wasm_runtime_deinstantiate(i);
    printf("a child's trap woke main from pthread_cond_wait\n");

    wasm_runtime_unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
