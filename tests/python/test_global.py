"""Globals: exported globals read and written from both sides, host-created
globals, WAMR's unchecked wasm_global_set, NULL arguments."""

import wamr.wasmcapi.ffi as ffi

from capi import Instance, call_ok, compile_module, in_child, val, val_value

MODULE = """(module
  (global $v (export "v") (mut i64) (i64.const 7))
  (global $c (export "c") f32 (f32.const 1.5))
  (func (export "get_v") (result i64) (global.get $v))
  (func (export "set_v") (param i64) (global.set $v (local.get 0))))"""


def get(g):
    out = ffi.wasm_val_t()
    ffi.wasm_global_get(g, out)
    return val_value(out)


def test_exported_globals(store):
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    v, cst = inst.global_("v"), inst.global_("c")
    gt = ffi.wasm_global_type(v)
    assert ffi.wasm_valtype_kind(ffi.wasm_globaltype_content(gt)) == ffi.WASM_I64
    assert ffi.wasm_globaltype_mutability(gt) == ffi.WASM_VAR
    ffi.wasm_globaltype_delete(gt)
    assert get(v) == ("i64", 7)
    assert get(cst) == ("f32", 1.5)
    ffi.wasm_global_set(v, val("i64", -(1 << 40)))
    assert call_ok(inst.func("get_v")) == [-(1 << 40)]
    call_ok(inst.func("set_v"), ("i64", 99))
    assert get(v) == ("i64", 99)
    inst.release()
    ffi.wasm_module_delete(module)


def test_global_set_checks_neither_mutability_nor_kind(store):
    # As in WAMR: a const global is set, and a value of another kind is
    # stored by its payload at the global's width.
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    ffi.wasm_global_set(inst.global_("c"), val("f32", 9.0))
    assert get(inst.global_("c")) == ("f32", 9.0), "a const global is set"
    ffi.wasm_global_set(inst.global_("v"), val("f64", 2.0))
    assert get(inst.global_("v")) == ("i64", 0x4000000000000000), "an i64 global takes an f64's bits"
    inst.release()
    ffi.wasm_module_delete(module)


def test_host_global_imported_by_wasm(store):
    module = compile_module(store, """(module
      (import "host" "g" (global $g (mut i32)))
      (func (export "get") (result i32) (global.get $g))
      (func (export "set") (param i32) (global.set $g (local.get 0))))""")
    gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(ffi.WASM_I32), ffi.WASM_VAR)
    g = ffi.wasm_global_new(store, gt, ffi.wasm_i32_val(41))
    ffi.wasm_globaltype_delete(gt)
    assert g
    # As in WAMR, a host global is not readable before an instance links it.
    out = ffi.wasm_f64_val(1.5)
    ffi.wasm_global_get(g, out)
    assert val_value(out) == ("f64", 1.5)
    inst = Instance(store, module, [ffi.wasm_global_as_extern(g)])
    assert call_ok(inst.func("get")) == [41]
    # Linked, it stands for the instance's global: writes on either side show.
    call_ok(inst.func("set"), ("i32", 5))
    assert get(g) == ("i32", 5)
    ffi.wasm_global_set(g, val("i32", 6))
    assert call_ok(inst.func("get")) == [6]
    inst.release()
    ffi.wasm_global_delete(g)
    ffi.wasm_module_delete(module)


def test_global_functions_given_null(store):
    gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(ffi.WASM_I32), ffi.WASM_VAR)

    def run():
        # As in WAMR, no store makes a global of no store.
        g = ffi.wasm_global_new(None, gt, ffi.wasm_i32_val(0))
        assert g
        ffi.wasm_global_delete(g)
        assert not ffi.wasm_global_new(store, None, ffi.wasm_i32_val(0))
        assert not ffi.wasm_global_new(store, gt, None)
        assert not ffi.wasm_global_type(None)
        ffi.wasm_global_get(None, ffi.wasm_val_t())
        ffi.wasm_global_set(None, ffi.wasm_i32_val(1))
        ffi.wasm_global_delete(None)

    in_child(run)
    ffi.wasm_globaltype_delete(gt)
