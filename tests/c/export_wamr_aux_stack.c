/* Finding the aux (shadow) stack pointer for new threads as WAMR's loader
 * does (issue 30 #2; WAMR's terminate sample declares its stack pointer
 * after __heap_base and __data_end): load_from_sections in wasm_loader.c
 * looks only at modules exporting __heap_base and __data_end as defined
 * immutable i32s with constant initialisers, __data_end (rounded up to
 * 16) not above __heap_base; the stack pointer is the first defined
 * mutable i32 whose constant initialiser is at or below __heap_base. The
 * thread manager (wasm_cluster_create) cuts the stack, from __data_end
 * up to it, into max_thread_num + 1 slices of (size / (max + 1)) & ~15
 * bytes, the first the main instance's; a spawned exec env's stack
 * pointer is the top of a free slice.
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build with the thread
 * manager and without wasi-threads, whose builds take spawned threads'
 * stacks from the app heap instead; see export_wamr.h): the spawned
 * stack pointers 53456 and 40352
 * (66560 - 13104, - 2 * 13104, with (66560 - 1024) / 5 & ~15 = 13104),
 * and NULL from wasm_runtime_spawn_exec_env
 * for a module without the two exports or with __data_end above
 * __heap_base. */
#include "export_wamr.h"

static uint32_t sp_of(wasm_exec_env_t env)
{
    uint32_t cells[1] = { 0 };
    wasm_module_inst_t i = wasm_runtime_get_module_inst(env);
    CHECK(wasm_runtime_call_wasm(env, func(i, "sp"), 0, cells), "sp(): %s", exception_of(i));
    return cells[0];
}

/* Spawns as many exec envs as the module allows (at most 8). */
static int spawn_all(const char *module, wasm_exec_env_t spawned[8], uint32_t sps[8])
{
    wasm_module_t m = load(module);
    wasm_module_inst_t i = new_instance(m, 0);
    wasm_exec_env_t env = wasm_runtime_create_exec_env(i, 65536);
    int n = 0;
    CHECK(env != NULL, "create_exec_env");
    CHECK_EQ_INT(sp_of(env), 66560, "the main instance's stack pointer");
    while (n < 8 && (spawned[n] = wasm_runtime_spawn_exec_env(env)) != NULL) {
        sps[n] = sp_of(spawned[n]);
        n++;
    }
    for (int k = 0; k < n; k++)
        wasm_runtime_destroy_spawned_exec_env(spawned[k]);
    wasm_runtime_destroy_exec_env(env);
    wasm_runtime_deinstantiate(i);
    unload(m);
    return n;
}

int main(int argc, char **argv)
{
    wasm_exec_env_t spawned[8];
    uint32_t sps[8];
    int n;

    test_init(argc, argv, "export_wamr_aux_stack");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");

    /* The stack pointer after __heap_base, __data_end and the globals the
       loader skips; WAMR's default max_thread_num, 4: four slices. */
    n = spawn_all("export_wamr_aux_late", spawned, sps);
    CHECK_EQ_INT(n, 4, "exec envs spawned: one per free slice");
    CHECK_EQ_INT(sps[0], 53456, "the first spawned exec env's stack pointer");
    CHECK_EQ_INT(sps[1], 40352, "the second's");
    CHECK_EQ_INT(sps[3], 66560 - 4 * 13104, "the fourth's");

    /* No aux stack: nothing spawns. */
    CHECK_EQ_INT(spawn_all("export_wamr_aux_none", spawned, sps), 0, "without __heap_base and __data_end");
    CHECK_EQ_INT(spawn_all("export_wamr_aux_inverted", spawned, sps), 0, "with __data_end above __heap_base");

    wasm_runtime_destroy();
    test_pass();
    return 0;
}
