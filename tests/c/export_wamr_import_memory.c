/* An imported env.memory with an app heap, and contexts spread over a
 * program's instances (issue 30 #5, WAMR's inst-context-threads sample,
 * whose app imports a shared memory and which instantiates it with
 * heap_size 8092).
 *
 * WAMR makes the memory of an env.memory import itself, as it makes a
 * memory the module defines (memories_instantiate in wasm_runtime.c), app
 * heap included. Recorded from a run of WAMR 2.4.3 (product-mini build
 * with the thread manager, see export_wamr.h): with an 8092-byte heap the
 * first module_malloc of each module gives 65544 (past the one page: for
 * 1..1 WAMR enlarges the page, for 1..none it adds one) and 70008 (at
 * __heap_base 70000, in the shared memory), and wasm reads what the host
 * wrote there; with no heap it gives 0.
 *
 * wasm_runtime_set_context_spread sets the context on every instance of
 * the cluster: the main instance and those of the exec envs spawned from
 * it, whichever it is called on; wasm_runtime_set_context only on the one;
 * a new spawned exec env starts with its parent's contexts
 * (wasm_cluster_set_context, wasm_native_inherit_contexts). Recorded from
 * the same run. */
#include "export_wamr.h"

static void *key;
static int values[4];

static void set_context(wasm_exec_env_t env, int32_t n)
{
    values[n & 3] = n;
    wasm_runtime_set_context_spread(wasm_runtime_get_module_inst(env), key, &values[n & 3]);
}

static int32_t get_context(wasm_exec_env_t env)
{
    int *ctx = wasm_runtime_get_context(wasm_runtime_get_module_inst(env), key);
    return ctx ? *ctx : -1;
}

static NativeSymbol natives[] = {
    { "set_context", (void *)set_context, "(i)", NULL },
    { "get_context", (void *)get_context, "()i", NULL },
};

/* The offset of a 100-byte module_malloc, and whether wasm reads what the
   host wrote there. */
static uint64_t heap_offset(const char *name, uint32_t heap)
{
    wasm_module_t m = load(name);
    char err[128] = "";
    wasm_module_inst_t i = wasm_runtime_instantiate(m, 65536, heap, err, sizeof err);
    void *p = NULL;
    uint64_t off;
    CHECK(i != NULL, "%s with a %u-byte heap: %s", name, heap, err);
    off = wasm_runtime_module_malloc(i, 100, &p);
    if (off) {
        wasm_exec_env_t env = wasm_runtime_get_exec_env_singleton(i);
        uint32_t cells[1] = { (uint32_t)off };
        memcpy(p, "\x34\x12\x00\x00", 4);
        CHECK(wasm_runtime_call_wasm(env, func(i, "load"), 1, cells), "load: %s", exception_of(i));
        CHECK_EQ_INT(cells[0], 0x1234, "wasm reads the heap block");
        wasm_runtime_module_free(i, off);
    }
    wasm_runtime_deinstantiate(i);
    unload(m);
    return off;
}

static int32_t get_via(wasm_exec_env_t env)
{
    uint32_t cells[1];
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    CHECK(wasm_runtime_call_wasm(env, func(i, "get"), 0, cells), "get: %s", exception_of(i));
    return (int32_t)cells[0];
}

static void set_via(wasm_exec_env_t env, int32_t n)
{
    uint32_t cells[1] = { (uint32_t)n };
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    CHECK(wasm_runtime_call_wasm(env, func(i, "set"), 1, cells), "set: %s", exception_of(i));
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_module_inst_t main_inst;
    wasm_exec_env_t env, a, b, c;

    test_init(argc, argv, "export_wamr_import_memory");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    CHECK(wasm_runtime_register_natives("env", natives, 2), "register_natives");
    key = wasm_runtime_create_context_key(NULL);
    CHECK(key != NULL, "create_context_key");

    CHECK_EQ_INT(heap_offset("export_wamr_env_memory", 8092), 65544, "env.memory 1..1 with a heap");
    CHECK_EQ_INT(heap_offset("export_wamr_env_memory", 0), 0, "env.memory 1..1 without a heap");
    CHECK_EQ_INT(heap_offset("export_wamr_env_memory_nomax", 8092), 65544, "env.memory 1.. with a heap");
    CHECK_EQ_INT(heap_offset("export_wamr_env_memory_shared", 8092), 70008, "a shared env.memory with a heap");

    /* Contexts over the cluster. */
    m = load("export_wamr_env_memory_shared");
    main_inst = new_instance(m, 8092);
    env = wasm_runtime_create_exec_env(main_inst, 65536);
    a = wasm_runtime_spawn_exec_env(env);
    b = wasm_runtime_spawn_exec_env(env);
    CHECK(a && b, "two spawned exec envs");
    CHECK(get_via(env) == -1 && get_via(a) == -1 && get_via(b) == -1, "no context yet");
    set_via(a, 1); /* spread from a spawned exec env's instance */
    CHECK(get_via(env) == 1 && get_via(a) == 1 && get_via(b) == 1, "spread from a thread reaches all: %d %d %d",
          get_via(env), get_via(a), get_via(b));
    set_via(env, 2); /* and from the main instance */
    CHECK(get_via(env) == 2 && get_via(a) == 2 && get_via(b) == 2, "spread from the main instance reaches all");
    wasm_runtime_set_context(wasm_runtime_get_module_inst(b), key, &values[3]);
    values[3] = 3;
    CHECK(get_via(b) == 3 && get_via(a) == 2 && get_via(env) == 2, "set_context sets one instance's only");
    c = wasm_runtime_spawn_exec_env(env);
    CHECK(c != NULL && get_via(c) == 2, "a new spawned exec env starts with its parent's contexts");

    wasm_runtime_destroy_spawned_exec_env(a);
    wasm_runtime_destroy_spawned_exec_env(b);
    wasm_runtime_destroy_spawned_exec_env(c);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(main_inst);
    unload(m);
    wasm_runtime_destroy_context_key(key);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
