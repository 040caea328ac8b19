/* Hello through the WebAssembly C API: wasm calls back into the host.
 *
 * Build and run against cranewasm (from the repository root):
 *   cargo build --release -p cranewasm-capi
 *   cc -I include examples/c/hello.c -L target/release -liwasm -o hello
 *   LD_LIBRARY_PATH=target/release ./hello
 *
 * The module, embedded below as bytes so the example needs no files, is:
 *   (module
 *     (import "host" "hello" (func $hello (param i32)))
 *     (func (export "run") (param i32)
 *       (call $hello (i32.mul (local.get 0) (i32.const 2)))))
 */
#include <stdio.h>

#include "wasm_c_api.h"

static const wasm_byte_t module_bytes[] = {
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60,
    0x01, 0x7f, 0x00, 0x02, 0x0e, 0x01, 0x04, 0x68, 0x6f, 0x73, 0x74, 0x05,
    0x68, 0x65, 0x6c, 0x6c, 0x6f, 0x00, 0x00, 0x03, 0x02, 0x01, 0x00, 0x07,
    0x07, 0x01, 0x03, 0x72, 0x75, 0x6e, 0x00, 0x01, 0x0a, 0x0b, 0x01, 0x09,
    0x00, 0x20, 0x00, 0x41, 0x02, 0x6c, 0x10, 0x00, 0x0b,
};

/* The host function wasm imports as host.hello: it receives an i32. */
static wasm_trap_t *hello_callback(const wasm_val_vec_t *args,
                                   wasm_val_vec_t *results)
{
    (void)results;
    printf("Hello from wasm, via the host! (wasm passed %d)\n",
           args->data[0].of.i32);
    return NULL;
}

int main(void)
{
    wasm_engine_t *engine = wasm_engine_new();
    wasm_store_t *store = wasm_store_new(engine);
    wasm_byte_vec_t bytes;
    wasm_module_t *module;
    wasm_functype_t *hello_type;
    wasm_func_t *hello;
    wasm_extern_t *imports[1];
    wasm_extern_vec_t import_vec = WASM_ARRAY_VEC(imports);
    wasm_instance_t *instance;
    wasm_extern_vec_t exports;
    wasm_func_t *run;
    wasm_val_t args[1] = { WASM_I32_VAL(21) };
    wasm_val_vec_t arg_vec = WASM_ARRAY_VEC(args);
    wasm_val_vec_t result_vec = WASM_EMPTY_VEC;
    wasm_trap_t *trap = NULL;
    int status = 1;

    /* Compile. */
    wasm_byte_vec_new(&bytes, sizeof module_bytes, module_bytes);
    module = wasm_module_new(store, &bytes);
    wasm_byte_vec_delete(&bytes);
    if (!module) {
        fprintf(stderr, "failed to compile the module\n");
        goto out_store;
    }

    /* A host function of type (i32) -> (), satisfying the import. */
    hello_type = wasm_functype_new_1_0(wasm_valtype_new_i32());
    hello = wasm_func_new(store, hello_type, hello_callback);
    wasm_functype_delete(hello_type);

    /* Instantiate with it. */
    imports[0] = wasm_func_as_extern(hello);
    instance = wasm_instance_new(store, module, &import_vec, &trap);
    if (!instance) {
        fprintf(stderr, "failed to instantiate the module\n");
        goto out_module;
    }

    /* Call the export "run" (the module's only export). */
    wasm_instance_exports(instance, &exports);
    run = exports.num_elems == 1 ? wasm_extern_as_func(exports.data[0])
                                 : NULL;
    if (!run) {
        fprintf(stderr, "export \"run\" is missing\n");
        goto out_exports;
    }
    trap = wasm_func_call(run, &arg_vec, &result_vec);
    if (trap) {
        wasm_message_t message;
        wasm_trap_message(trap, &message);
        fprintf(stderr, "run trapped: %s\n", message.data);
        wasm_byte_vec_delete(&message);
        wasm_trap_delete(trap);
        goto out_exports;
    }
    status = 0;

out_exports:
    wasm_extern_vec_delete(&exports);
    wasm_instance_delete(instance);
out_module:
    wasm_func_delete(hello);
    wasm_module_delete(module);
out_store:
    wasm_store_delete(store);
    wasm_engine_delete(engine);
    return status;
}
