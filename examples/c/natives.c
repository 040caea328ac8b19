/* WAMR's other API, wasm_export.h: load a module, register a native
 * function with a signature string, call an export, read an exception.
 * The same source builds against WAMR's libiwasm.
 *
 * Build and run against cranewasm (from the repository root):
 *   cargo build --release -p cranewasm-capi
 *   cc -I include examples/c/natives.c -L target/release -liwasm -o natives
 *   LD_LIBRARY_PATH=target/release ./natives
 *
 * The module, embedded below as bytes so the example needs no files, is:
 *   (module
 *     (import "env" "host_mul" (func $mul (param i32 i32) (result i32)))
 *     (func (export "compute") (param i32) (result i32)
 *       (call $mul (local.get 0) (i32.const 3)))
 *     (func (export "fail") (unreachable)))
 */
#include <stdio.h>
#include <string.h>

#include "wasm_export.h"

static uint8_t module_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x0f, 0x03, 0x60,
    0x02, 0x7f, 0x7f, 0x01, 0x7f, 0x60, 0x01, 0x7f, 0x01, 0x7f, 0x60, 0x00,
    0x00, 0x02, 0x10, 0x01, 0x03, 0x65, 0x6e, 0x76, 0x08, 0x68, 0x6f, 0x73,
    0x74, 0x5f, 0x6d, 0x75, 0x6c, 0x00, 0x00, 0x03, 0x03, 0x02, 0x01, 0x02,
    0x07, 0x12, 0x02, 0x07, 0x63, 0x6f, 0x6d, 0x70, 0x75, 0x74, 0x65, 0x00,
    0x01, 0x04, 0x66, 0x61, 0x69, 0x6c, 0x00, 0x02, 0x0a, 0x0e, 0x02, 0x08,
    0x00, 0x20, 0x00, 0x41, 0x03, 0x10, 0x00, 0x0b, 0x03, 0x00, 0x00, 0x0b,
};

/* A native: the exec env comes first, then the wasm arguments as the
 * signature string "(ii)i" says (two i32 parameters, an i32 result). */
static int32_t host_mul(wasm_exec_env_t exec_env, int32_t a, int32_t b)
{
    (void)exec_env;
    return a * b;
}

static NativeSymbol natives[] = {
    { "host_mul", (void *)host_mul, "(ii)i", NULL },
};

int main(void)
{
    char error[128];
    int status = 1;

    if (!wasm_runtime_init())
        return 1;
    /* Natives are registered before loading the modules that import them. */
    if (!wasm_runtime_register_natives("env", natives,
                                       sizeof(natives) / sizeof(natives[0])))
        goto destroy;

    wasm_module_t module = wasm_runtime_load(module_bytes, sizeof(module_bytes),
                                             error, sizeof(error));
    if (!module) {
        printf("load failed: %s\n", error);
        goto destroy;
    }
    wasm_module_inst_t inst =
        wasm_runtime_instantiate(module, 64 * 1024, 0, error, sizeof(error));
    if (!inst) {
        printf("instantiate failed: %s\n", error);
        goto unload;
    }
    wasm_exec_env_t env = wasm_runtime_create_exec_env(inst, 64 * 1024);
    if (!env)
        goto deinstantiate;

    /* compute(14) calls host_mul(14, 3). Arguments and results share argv. */
    wasm_function_inst_t compute = wasm_runtime_lookup_function(inst, "compute");
    uint32_t argv[1] = { 14 };
    if (!compute || !wasm_runtime_call_wasm(env, compute, 1, argv)) {
        printf("compute failed: %s\n", wasm_runtime_get_exception(inst));
        goto destroy_env;
    }
    printf("compute(14) = %u\n", argv[0]);

    /* A trap is a failed call with the reason as the instance's exception. */
    wasm_function_inst_t fail = wasm_runtime_lookup_function(inst, "fail");
    if (!fail || wasm_runtime_call_wasm(env, fail, 0, NULL)) {
        printf("fail did not trap\n");
        goto destroy_env;
    }
    printf("fail: %s\n", wasm_runtime_get_exception(inst));
    wasm_runtime_clear_exception(inst);
    status = 0;

destroy_env:
    wasm_runtime_destroy_exec_env(env);
deinstantiate:
    wasm_runtime_deinstantiate(inst);
unload:
    wasm_runtime_unload(module);
destroy:
    wasm_runtime_destroy();
    return status;
}
