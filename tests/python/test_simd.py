"""v128 values through WAMR's binding, unchanged: the binding's wasm_val_t
has no v128 member (neither has the reference header), so a WASM_V128
value's ``of.ref`` points at its 16 bytes, as our header's WASM_V128_VAL
does: the caller's bytes going in, malloc'd bytes coming out that the
caller frees with free(val.of.ref) (wasm_val_delete is WAMR's: it frees a
wasm_val_t from malloc, so not one ctypes owns)."""

import ctypes as c
import struct

import wamr.wasmcapi.ffi as ffi

from capi import VALKINDS, Instance, compile_module, functype, take_trap, val_vec

V128 = VALKINDS["v128"]

_libc = c.CDLL(None)
_libc.free.argtypes = [c.c_void_p]


def free_bytes(v):
    """Releases the malloc'd 16 bytes of a v128 value handed out."""
    _libc.free(c.cast(v.of.ref, c.c_void_p))

MODULE = """(module
  (import "host" "swap_halves" (func $swap (param v128) (result v128)))
  (global $g (export "g") (mut v128) (v128.const i32x4 1 2 3 4))
  (func (export "add") (param v128 v128) (result v128)
    (i32x4.add (local.get 0) (local.get 1)))
  (func (export "via_host") (param v128) (result v128)
    (i32x4.add (call $swap (local.get 0)) (v128.const i32x4 1 1 1 1)))
  (func (export "sum_g") (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (global.get $g))
               (i32x4.extract_lane 1 (global.get $g)))
      (i32.add (i32x4.extract_lane 2 (global.get $g))
               (i32x4.extract_lane 3 (global.get $g))))))"""


def v128(*lanes):
    """A WASM_V128 wasm_val_t pointing at a fresh buffer of four i32 lanes
    (kept alive by the value's ``_keep``)."""
    buf = (c.c_ubyte * 16).from_buffer_copy(struct.pack("<4I", *lanes))
    v = ffi.wasm_val_t()
    v.kind = V128
    v.of.ref = c.cast(buf, type(v.of.ref))
    v._keep = buf
    return v


def lanes_of(v):
    assert v.kind == V128
    assert v.of.ref, "a v128 value without its bytes"
    return struct.unpack("<4I", c.string_at(c.cast(v.of.ref, c.c_void_p), 16))


class World:
    def __init__(self, store):
        self.seen = []
        self.out = (c.c_ubyte * 16)()

        @ffi.wasm_func_cb_decl
        def swap(args, results):
            arg = args.contents.data[0]
            data = c.string_at(c.cast(arg.of.ref, c.c_void_p), 16)
            self.seen.append(struct.unpack("<4I", data))
            c.memmove(self.out, data[8:] + data[:8], 16)
            results.contents.data[0].kind = V128
            results.contents.data[0].of.ref = c.cast(self.out, type(arg.of.ref))

        self.cb = swap
        ft = functype(["v128"], ["v128"])
        self.swap = ffi.wasm_func_new(store, ft, swap)
        ffi.wasm_functype_delete(ft)
        module = compile_module(store, MODULE)
        self.inst = Instance(store, module, [ffi.wasm_func_as_extern(self.swap)])
        ffi.wasm_module_delete(module)

    def call(self, name, *args):
        f = self.inst.func(name)
        params = val_vec(list(args))
        results = val_vec([], capacity=ffi.wasm_func_result_arity(f))
        trap = ffi.wasm_func_call(f, params, results)
        assert not trap, f"unexpected trap: {take_trap(trap)}"
        return results


def test_v128_arguments_and_result(store):
    w = World(store)
    r = w.call("add", v128(1, 2, 3, 0xFFFFFFFF), v128(10, 20, 30, 2))
    assert lanes_of(r.data[0]) == (11, 22, 33, 1)
    free_bytes(r.data[0])
    w.inst.release()


def test_v128_through_a_python_host_function(store):
    w = World(store)
    r = w.call("via_host", v128(1, 2, 3, 4))
    assert w.seen == [(1, 2, 3, 4)]
    assert lanes_of(r.data[0]) == (4, 5, 2, 3)
    free_bytes(r.data[0])
    w.inst.release()


def test_v128_global_from_the_host(store):
    w = World(store)
    g = w.inst.global_("g")
    out = ffi.wasm_val_t()
    ffi.wasm_global_get(g, out)
    assert lanes_of(out) == (1, 2, 3, 4)
    free_bytes(out)
    ffi.wasm_global_set(g, v128(100, 200, 300, 400))
    r = w.call("sum_g")
    assert r.data[0].of.i32 == 1000
    w.inst.release()


def test_v128_argument_without_bytes_traps(store):
    w = World(store)
    f = w.inst.func("add")
    bad = ffi.wasm_val_t()
    bad.kind = V128  # of.ref stays NULL
    results = val_vec([], capacity=1)
    trap = ffi.wasm_func_call(f, val_vec([bad, v128(1, 1, 1, 1)]), results)
    assert trap, "a v128 argument without bytes must trap"
    assert "v128" in take_trap(trap)
    w.inst.release()
