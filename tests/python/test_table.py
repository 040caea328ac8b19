"""Tables: size/get/set/grow on an exported funcref table, call_indirect
through entries the host set, out-of-range access, NULL arguments."""

import wamr.wasmcapi.ffi as ffi

from capi import Instance, call, call_ok, compile_module, in_child, take_trap

MODULE = """(module
  (type $i2i (func (param i32) (result i32)))
  (table (export "tab") 2 4 funcref)
  (func $inc (export "inc") (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $neg (export "neg") (param i32) (result i32) (i32.sub (i32.const 0) (local.get 0)))
  (elem (i32.const 0) $inc)
  (func (export "call") (param i32 i32) (result i32)
    (call_indirect (type $i2i) (local.get 1) (local.get 0))))"""


def test_table_get_set_and_call_indirect(store):
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    tab = inst.table("tab")
    assert ffi.wasm_table_size(tab) == 2
    tt = ffi.wasm_table_type(tab)
    assert ffi.wasm_valtype_kind(ffi.wasm_tabletype_element(tt)) == ffi.WASM_FUNCREF
    limits = ffi.dereference(ffi.wasm_tabletype_limits(tt))
    assert (limits.min, limits.max) == (2, 4)
    ffi.wasm_tabletype_delete(tt)
    ref = ffi.wasm_table_get(tab, 0)
    assert ref, "slot 0 holds inc"
    assert call_ok(ffi.wasm_ref_as_func(ref), ("i32", 9)) == [10]
    ffi.wasm_ref_delete(ref)
    assert not ffi.wasm_table_get(tab, 1), "slot 1 is null"
    assert call_ok(inst.func("call"), ("i32", 0), ("i32", 4)) == [5]
    trap, _ = call(inst.func("call"), [("i32", 1), ("i32", 4)])
    assert take_trap(trap) == "Exception: uninitialized element"
    assert ffi.wasm_table_set(tab, 1, ffi.wasm_func_as_ref(inst.func("neg")))
    assert call_ok(inst.func("call"), ("i32", 1), ("i32", 4)) == [-4]
    assert not ffi.wasm_table_set(tab, 2, None), "set past the end"
    assert not ffi.wasm_table_get(tab, 2), "get past the end"
    trap, _ = call(inst.func("call"), [("i32", 2), ("i32", 4)])
    assert take_trap(trap) == "Exception: undefined element"
    inst.release()
    ffi.wasm_module_delete(module)


def test_table_grow_from_host(store):
    # WAMR does not let the host grow a table.
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    tab = inst.table("tab")
    assert ffi.wasm_table_grow(tab, 2, ffi.wasm_func_as_ref(inst.func("neg")))
    assert ffi.wasm_table_size(tab) == 4
    assert call_ok(inst.func("call"), ("i32", 3), ("i32", 8)) == [-8]
    assert not ffi.wasm_table_grow(tab, 1, None), "grew past the maximum"
    inst.release()
    ffi.wasm_module_delete(module)


def test_table_functions_given_null(store):
    def run():
        assert not ffi.wasm_table_new(None, None, None)
        assert not ffi.wasm_table_new(store, None, None)
        assert not ffi.wasm_table_type(None)
        assert not ffi.wasm_table_get(None, 0)
        assert not ffi.wasm_table_set(None, 0, None)
        assert ffi.wasm_table_size(None) == 0
        assert not ffi.wasm_table_grow(None, 1, None)
        ffi.wasm_table_delete(None)

    in_child(run)
