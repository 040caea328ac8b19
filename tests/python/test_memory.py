"""Memory: data/data_size/size/grow on an exported memory, views from both
sides, out-of-bounds traps, host-created memory, NULL arguments."""

import ctypes as c

import wamr.wasmcapi.ffi as ffi

from capi import Instance, call, call_ok, compile_module, in_child, take_trap

PAGE = 65536
MODULE = """(module
  (memory (export "mem") 1 3)
  (data (i32.const 16) "wasm")
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "size") (result i32) (memory.size)))"""


def test_exported_memory(store):
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    mem = inst.memory("mem")
    assert ffi.wasm_memory_size(mem) == 1
    assert ffi.wasm_memory_data_size(mem) == PAGE
    data = ffi.wasm_memory_data(mem)
    assert bytes(data[16:20]) == b"wasm"
    data[100] = 0xAB
    assert call_ok(inst.func("load"), ("i32", 100)) == [0xAB]
    call_ok(inst.func("store"), ("i32", 200), ("i32", 7))
    assert data[200] == 7
    mt = ffi.wasm_memory_type(mem)
    limits = ffi.dereference(ffi.wasm_memorytype_limits(mt))
    assert (limits.min, limits.max) == (1, 3)
    ffi.wasm_memorytype_delete(mt)
    inst.release()
    ffi.wasm_module_delete(module)


def test_out_of_bounds_access_traps(store):
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    trap, _ = call(inst.func("load"), [("i32", PAGE)])
    assert take_trap(trap) == "Exception: out of bounds memory access"
    trap, _ = call(inst.func("store"), [("i32", -1), ("i32", 0)])
    assert take_trap(trap) == "Exception: out of bounds memory access"
    assert call_ok(inst.func("load"), ("i32", 16)) == [ord("w")]
    inst.release()
    ffi.wasm_module_delete(module)


def test_grow_from_host(store):
    # WAMR does not let the host grow a memory.
    module = compile_module(store, MODULE)
    inst = Instance(store, module)
    mem = inst.memory("mem")
    base = c.cast(ffi.wasm_memory_data(mem), c.c_void_p).value
    assert ffi.wasm_memory_grow(mem, 2)
    assert ffi.wasm_memory_size(mem) == 3
    assert ffi.wasm_memory_data_size(mem) == 3 * PAGE
    assert call_ok(inst.func("size")) == [3]
    # ABI.md: the data pointer is stable across growth on 64-bit hosts.
    assert c.cast(ffi.wasm_memory_data(mem), c.c_void_p).value == base
    assert not ffi.wasm_memory_grow(mem, 1), "grew past the maximum"
    assert ffi.wasm_memory_size(mem) == 3
    inst.release()
    ffi.wasm_module_delete(module)


def test_host_memory(store):
    mt = ffi.wasm_memorytype_new(ffi.wasm_limits_new(2, 4))
    mem = ffi.wasm_memory_new(store, mt)
    ffi.wasm_memorytype_delete(mt)
    assert mem
    assert ffi.wasm_memory_size(mem) == 2
    assert ffi.wasm_memory_data_size(mem) == 2 * PAGE
    data = ffi.wasm_memory_data(mem)
    assert data and data[0] == 0 and data[2 * PAGE - 1] == 0
    ffi.wasm_memory_delete(mem)


def test_memory_functions_given_null(store):
    def run():
        assert not ffi.wasm_memory_new(None, None)
        assert not ffi.wasm_memory_new(store, None)
        assert not ffi.wasm_memory_type(None)
        assert not ffi.wasm_memory_data(None)
        assert ffi.wasm_memory_data_size(None) == 0
        assert ffi.wasm_memory_size(None) == 0
        assert not ffi.wasm_memory_grow(None, 1)
        ffi.wasm_memory_delete(None)

    in_child(run)
