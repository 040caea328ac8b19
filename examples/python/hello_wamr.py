#!/usr/bin/env python3
"""Hello through WAMR's Python binding (wamr.wasmcapi.ffi), unchanged, on
cranewasm's libiwasm.so: wasm calls back into Python.

From the repository root, with the binding from ../shared/clients:
    cargo build --release -p cranewasm-capi
    ../shared/clients/run-wamr-python.sh target/release/libiwasm.so \
        python3 examples/python/hello_wamr.py

The module, embedded as bytes so the example needs no files, is:
    (module
      (import "host" "hello" (func $hello (param i32)))
      (func (export "run") (param i32)
        (call $hello (i32.mul (local.get 0) (i32.const 2)))))
"""

import ctypes
import sys

import wamr.wasmcapi.ffi as ffi

MODULE = bytes.fromhex(
    "0061736d0100000001050160017f00020e0104686f73740568656c6c6f0000"
    "030201000707010372756e00010a0b010900200041026c10000b"
)


@ffi.wasm_func_cb_decl
def hello(args, results):
    print(f"Hello from wasm, via the host! (wasm passed {args.contents.data[0].of.i32})")


def main():
    engine = ffi.wasm_engine_new()
    store = ffi.wasm_store_new(engine)

    binary = ffi.wasm_byte_vec_t()
    ffi.wasm_byte_vec_new(binary, len(MODULE), (ctypes.c_ubyte * len(MODULE)).from_buffer_copy(MODULE))
    module = ffi.wasm_module_new(store, binary)
    ffi.wasm_byte_vec_delete(binary)
    if not module:
        sys.exit("failed to compile the module")

    hello_type = ffi.wasm_functype_new_1_0(ffi.wasm_valtype_new(ffi.WASM_I32))
    hello_func = ffi.wasm_func_new(store, hello_type, hello)
    ffi.wasm_functype_delete(hello_type)

    imports = ffi.wasm_extern_vec_t()
    ffi.wasm_extern_vec_new(imports, 1, ffi.wasm_func_as_extern(hello_func))
    instance = ffi.wasm_instance_new(store, module, imports, None)
    if not instance:
        sys.exit("failed to instantiate the module")

    exports = ffi.wasm_extern_vec_t()
    ffi.wasm_instance_exports(instance, exports)
    run = ffi.wasm_extern_as_func(exports.data[0])

    args = ffi.wasm_val_vec_t()
    ffi.wasm_val_vec_new(args, 1, ffi.wasm_i32_val(21))
    results = ffi.wasm_val_vec_t()
    ffi.wasm_val_vec_new_empty(results)
    trap = ffi.wasm_func_call(run, args, results)
    if trap:
        sys.exit(f"run trapped: {ffi.dereference(trap)}")

    ffi.wasm_val_vec_delete(args)
    ffi.wasm_extern_vec_delete(exports)
    ffi.wasm_instance_delete(instance)
    ffi.wasm_func_delete(hello_func)
    ffi.wasm_module_delete(module)
    ffi.wasm_store_delete(store)
    ffi.wasm_engine_delete(engine)


if __name__ == "__main__":
    main()
