"""Instances: instantiation with imports, exports by kind, and bad or NULL
arguments."""

import ctypes as c

import wamr.wasmcapi.ffi as ffi

from capi import Instance, call_ok, compile_module, functype, in_child

MODULE = """(module
  (import "host" "f" (func $f (param i32) (result i32)))
  (func (export "run") (param i32) (result i32) (call $f (local.get 0)))
  (global (export "g") (mut i64) (i64.const 7))
  (table (export "t") 2 funcref)
  (memory (export "m") 1))"""


def host_double():
    @ffi.wasm_func_cb_decl
    def double(args, results):
        results.contents.data[0] = ffi.wasm_i32_val(2 * args.contents.data[0].of.i32)

    return double


def test_instantiate_and_export_kinds(store):
    module = compile_module(store, MODULE)
    cb = host_double()
    ft = functype(["i32"], ["i32"])
    f = ffi.wasm_func_new(store, ft, cb)
    ffi.wasm_functype_delete(ft)
    inst = Instance(store, module, [ffi.wasm_func_as_extern(f)])
    assert list(inst.exports) == ["run", "g", "t", "m"]
    kinds = [ffi.wasm_extern_kind(inst.exports[n]) for n in ("run", "g", "t", "m")]
    assert kinds == [ffi.WASM_EXTERN_FUNC, ffi.WASM_EXTERN_GLOBAL, ffi.WASM_EXTERN_TABLE, ffi.WASM_EXTERN_MEMORY]
    assert call_ok(inst.func("run"), ("i32", 21)) == [42]
    inst.release()
    ffi.wasm_func_delete(f)
    ffi.wasm_module_delete(module)


def test_two_instances_have_their_own_state(store):
    module = compile_module(store, """(module (global $n (mut i32) (i32.const 0))
        (func (export "next") (result i32)
          (global.set $n (i32.add (global.get $n) (i32.const 1))) (global.get $n)))""")
    a, b = Instance(store, module), Instance(store, module)
    assert call_ok(a.func("next")) == [1]
    assert call_ok(a.func("next")) == [2]
    assert call_ok(b.func("next")) == [1]
    a.release()
    b.release()
    ffi.wasm_module_delete(module)


def test_import_of_wrong_signature_fails(store):
    module = compile_module(store, MODULE)

    @ffi.wasm_func_cb_decl
    def nop(args, results):
        return None

    ft = functype([], [])
    f = ffi.wasm_func_new(store, ft, nop)
    ffi.wasm_functype_delete(ft)
    arr = (c.POINTER(ffi.wasm_extern_t) * 1)(ffi.wasm_func_as_extern(f))
    vec = ffi.wasm_extern_vec_t(1, arr, 1, c.sizeof(c.c_void_p), None)
    assert not ffi.wasm_instance_new(store, module, vec, None)
    ffi.wasm_func_delete(f)
    ffi.wasm_module_delete(module)


def test_import_of_wrong_kind_fails(store):
    module = compile_module(store, MODULE)

    def run():
        gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(ffi.WASM_I32), ffi.WASM_CONST)
        g = ffi.wasm_global_new(store, gt, ffi.wasm_i32_val(0))
        ffi.wasm_globaltype_delete(gt)
        arr = (c.POINTER(ffi.wasm_extern_t) * 1)(ffi.wasm_global_as_extern(g))
        vec = ffi.wasm_extern_vec_t(1, arr, 1, c.sizeof(c.c_void_p), None)
        assert not ffi.wasm_instance_new(store, module, vec, None), "a global satisfied a function import"

    in_child(run)
    ffi.wasm_module_delete(module)


def test_instance_functions_given_null(store):
    module = compile_module(store, "(module)")

    def run():
        empty = ffi.wasm_extern_vec_t()
        assert not ffi.wasm_instance_new(None, module, empty, None)
        assert not ffi.wasm_instance_new(store, None, empty, None)
        out = ffi.wasm_extern_vec_t()
        ffi.wasm_instance_exports(None, out)
        assert out.num_elems == 0
        ffi.wasm_instance_delete(None)

    in_child(run)
    ffi.wasm_module_delete(module)
