/* Destroying in the orders WAMR accepts (issue 31 #3): each frees what is
 * ours, touches nothing of what went before, and prints nothing. WAMR's
 * Go binding destroys an instance's exec env after the instance
 * (Instance.Destroy: wasm_runtime_deinstantiate, then
 * wasm_runtime_destroy_exec_env); bindings whose garbage collector picks
 * the order unload a module before its instances, or destroy the runtime
 * first and the objects after.
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build with the thread
 * manager, see export_wamr.h), under valgrind as well: each order below
 * runs without an invalid access and prints nothing. Each part runs in a
 * child process, so that the one-time line cranewasm writes for a refused
 * pointer is seen by the part that expects it.
 *
 * OURS: the last wasm_runtime_destroy frees the modules, instances and
 * exec envs the client left (WAMR's system allocator leaks them), and
 * refuses them afterwards, silently; a pointer never handed out, or
 * destroyed twice, is refused with one line (WAMR reads it as an object:
 * a crash, or a use after free). */
#include <malloc.h>
#include <sys/wait.h>

#include "export_wamr.h"
#include "export_wamr_capture.h"

static wasm_module_t module;
static wasm_module_inst_t inst;
static wasm_exec_env_t env, spawned;

/* Loads, instantiates, makes an exec env and a spawned one, calls. */
static void make_all(void)
{
    uint32_t cells[1];
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    module = load("export_wamr_answer");
    inst = new_instance(module, 0);
    env = wasm_runtime_create_exec_env(inst, 65536);
    CHECK(env != NULL, "create_exec_env");
    spawned = wasm_runtime_spawn_exec_env(env);
    CHECK(spawned != NULL, "spawn_exec_env");
    CHECK(wasm_runtime_call_wasm(env, func(inst, "answer"), 0, cells) && cells[0] == 42, "a call");
}

/* The modules' buffers (WAMR keeps pointers into them until unloaded). */
static void free_buffers(void)
{
    for (size_t k = 0; k < sizeof loaded / sizeof loaded[0]; k++) {
        free(loaded[k].buf);
        loaded[k].buf = NULL;
        loaded[k].module = NULL;
    }
}

/* Ends a capture that must have caught nothing. */
static void expect_silence(void)
{
    const char *out = capture_stop();
    CHECK(*out == 0, "nothing printed: \"%s\"", out);
}

/* The Go binding's order: the instance, then its exec env. */
static void exec_env_after_instance(void)
{
    make_all();
    capture_start();
    wasm_runtime_destroy_spawned_exec_env(spawned);
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_destroy_exec_env(env);
    unload(module);
    wasm_runtime_destroy();
    expect_silence();
}

/* The module before its instance and exec envs. */
static void module_first(void)
{
    make_all();
    capture_start();
    unload(module);
    wasm_runtime_destroy_spawned_exec_env(spawned);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_destroy();
    expect_silence();
}

/* The runtime first; then the client destroys the rest, as a binding's
   finalizers would. */
static void runtime_first(void)
{
    make_all();
    capture_start();
    wasm_runtime_destroy();
    expect_silence();
    if (OURS("WAMR leaves them, to be destroyed after it (on its system allocator) or not at all (its pool "
             "allocator goes with it): a destroy then reads freed memory")) {
        capture_start();
        CHECK(wasm_runtime_get_module_inst(env) == NULL, "the exec env was freed with the runtime");
        CHECK(wasm_runtime_get_module_inst(spawned) == NULL, "the spawned one too");
        wasm_runtime_destroy_spawned_exec_env(spawned);
        wasm_runtime_destroy_exec_env(env);
        wasm_runtime_deinstantiate(inst);
        wasm_runtime_unload(module);
        expect_silence();
    }
    free_buffers();
}

/* The runtime first, and nothing after: what the client left is freed.
   Natively, 180 rounds grow the heap by less than 1 KiB each (what the
   rounds leave would be several KiB each: an instance, its store, its
   exec envs; the handle table's list of freed cells grows by a few words
   a round, to at most 128 KiB); valgrind's leak check covers the rest. */
static void runtime_leaves_nothing(void)
{
    size_t before = 0;
    for (int round = 0; round < 200; round++) {
        if (round == 20)
            before = mallinfo2().uordblks;
        make_all();
        wasm_runtime_destroy();
        free_buffers();
    }
    /* Under valgrind mallinfo2 reports nothing (its allocator replaces
       glibc's); its leak check covers this part there. */
    CHECK(mallinfo2().uordblks <= before + 180 * 1024, "180 rounds grew the heap from %zu to %zu bytes", before,
          (size_t)mallinfo2().uordblks);
}

/* A pointer never handed out, and one destroyed twice: refused, with one
   line. */
static void refusals_kept(void)
{
    char fake[64] = { 0 };
    const char *out;
    make_all();
    capture_start();
    wasm_runtime_deinstantiate((wasm_module_inst_t)fake);
    out = capture_stop();
    CHECK(strstr(out, "ignored a pointer that is not a live wasm_module_inst_t") != NULL, "a line: \"%s\"", out);
    wasm_runtime_destroy_spawned_exec_env(spawned);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(inst);
    capture_start();
    wasm_runtime_deinstantiate(inst);
    wasm_runtime_destroy_exec_env(env);
    CHECK(*capture_stop() == 0, "the line was said once; destroyed twice, refused silently now");
    unload(module);
    wasm_runtime_destroy();
}

static void destroyed_twice_says_so(void)
{
    const char *out;
    make_all();
    wasm_runtime_destroy_spawned_exec_env(spawned);
    wasm_runtime_destroy_exec_env(env);
    capture_start();
    wasm_runtime_destroy_exec_env(env);
    out = capture_stop();
    CHECK(strstr(out, "ignored a pointer that is not a live wasm_exec_env_t") != NULL, "a line: \"%s\"", out);
    wasm_runtime_deinstantiate(inst);
    unload(module);
    wasm_runtime_destroy();
}

/* Runs `part` in a child process. */
static void run_part(const char *name, void (*part)(void))
{
    int status = 0;
    pid_t pid;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK(pid >= 0, "fork");
    if (pid == 0) {
        alarm(120);
        part();
        fflush(stdout);
        _exit(test_failures ? 1 : 0);
    }
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "FAIL %s: part %s %s %d\n", test_name, name, WIFSIGNALED(status) ? "crashed with signal" : "failed",
                WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
        test_failures++;
    }
}
#define RUN_PART(fn) run_part(#fn, fn)

int main(int argc, char **argv)
{
    test_init(argc, argv, "export_wamr_destroy");
    RUN_PART(exec_env_after_instance);
    RUN_PART(module_first);
    RUN_PART(runtime_first);
    if (OURS("WAMR leaks what the client left when the runtime goes"))
        RUN_PART(runtime_leaves_nothing);
    if (OURS("WAMR reads any pointer as an object, and frees twice")) {
        RUN_PART(refusals_kept);
        RUN_PART(destroyed_twice_says_so);
    }
    test_pass();
    return 0;
}
