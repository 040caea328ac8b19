/* wasm_runtime_get_wasi_exit_code after proc_exit (issue 30, "Also
 * check"), as WAMR's samples and product-mini's iwasm read it.
 *
 * Recorded from a run of WAMR 2.4.3 (product-mini build, see
 * export_wamr.h): wasm_application_execute_main of a _start calling
 * proc_exit(n) succeeds, leaves no exception and the exit code n (0 and 7
 * alike; each in an instance of its own: WAMR does not run _start again
 * in an instance whose _start called proc_exit); calling _start, or any function calling proc_exit, through
 * wasm_runtime_call_wasm fails with "Exception: wasi proc exit" and the
 * exit code n; before any proc_exit the code is 0; a later call that
 * returns normally leaves the last code. */
#include "export_wamr.h"

static wasm_module_inst_t inst;

static void set_status(uint32_t n)
{
    uint32_t *mem = wasm_runtime_addr_app_to_native(inst, 0);
    CHECK(mem != NULL, "the memory");
    *mem = n;
}

int main(int argc, char **argv)
{
    wasm_module_t m;
    wasm_exec_env_t env;
    uint32_t cells[1];

    test_init(argc, argv, "export_wamr_wasi_exit");
    CHECK(wasm_runtime_init(), "wasm_runtime_init");
    m = load("export_wamr_exit");
    inst = new_instance(m, 0);
    env = wasm_runtime_get_exec_env_singleton(inst);
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 0, "no proc_exit yet");

    set_status(7);
    CHECK(wasm_application_execute_main(inst, 0, NULL), "execute_main: %s", exception_of(inst));
    CHECK(wasm_runtime_get_exception(inst) == NULL, "proc_exit is no failure of execute_main");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 7, "the exit code");

    wasm_runtime_deinstantiate(inst);

    /* _start through call_wasm, in an instance of its own (WAMR does not
       run _start again in an instance whose _start called proc_exit). */
    inst = new_instance(m, 0);
    env = wasm_runtime_get_exec_env_singleton(inst);
    set_status(3);
    CHECK(!wasm_runtime_call_wasm(env, func(inst, "_start"), 0, cells), "_start through call_wasm fails");
    CHECK_EXC(inst, "Exception: wasi proc exit");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 3, "and sets the exit code");
    wasm_runtime_clear_exception(inst);

    cells[0] = 42;
    CHECK(!wasm_runtime_call_wasm(env, func(inst, "exit_with"), 1, cells), "a function calling proc_exit");
    CHECK_EXC(inst, "Exception: wasi proc exit");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 42, "its exit code");
    wasm_runtime_clear_exception(inst);

    CHECK(wasm_runtime_call_wasm(env, func(inst, "fine"), 0, cells), "a call returning normally");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 42, "leaves the last exit code");

    wasm_runtime_deinstantiate(inst);

    /* proc_exit(0), in an instance of its own. */
    inst = new_instance(m, 0);
    set_status(0);
    CHECK(wasm_application_execute_main(inst, 0, NULL), "execute_main, proc_exit(0)");
    CHECK_EQ_INT(wasm_runtime_get_wasi_exit_code(inst), 0, "exit code 0");
    wasm_runtime_deinstantiate(inst);

    unload(m);
    wasm_runtime_destroy();
    test_pass();
    return 0;
}
