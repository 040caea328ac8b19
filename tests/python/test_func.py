"""Functions: host functions (plain and with env + finalizer) called from
wasm, wasm functions called from Python with every numeric type and several
results, traps from host functions, and bad calls."""

import ctypes as c
import struct

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import Instance, call, call_ok, compile_module, functype, in_child, take_trap

MODULE = """(module
  (import "host" "twice" (func $twice (param i32) (result i32)))
  (import "host" "counted" (func $counted (param i32) (result i32)))
  (func (export "via_host") (param i32) (result i32)
    (i32.add (call $twice (local.get 0)) (i32.const 1)))
  (func (export "via_counted") (param i32) (result i32) (call $counted (local.get 0)))
  (func (export "mix") (param i32 i64 f32 f64) (result f64 f32 i64 i32)
    (local.get 3) (local.get 2) (local.get 1) (local.get 0))
  (func (export "none")))"""


class World:
    def __init__(self, store, twice_cb=None):
        self.store = store
        self.calls = []
        self.finalized = []

        @ffi.wasm_func_cb_decl
        def twice(args, results):
            self.calls.append(args.contents.data[0].of.i32)
            results.contents.data[0] = ffi.wasm_i32_val(2 * args.contents.data[0].of.i32)

        @ffi.wasm_func_with_env_cb_decl
        def counted(env, args, results):
            counter = c.cast(env, c.POINTER(c.c_int)).contents
            counter.value += 1
            results.contents.data[0] = ffi.wasm_i32_val(counter.value * 100 + args.contents.data[0].of.i32)

        @ffi.wasm_finalizer
        def finalizer(env):
            self.finalized.append(env)

        self.cbs = (twice_cb or twice, counted, finalizer)
        self.counter = c.c_int(0)
        ft = functype(["i32"], ["i32"])
        self.twice = ffi.wasm_func_new(store, ft, self.cbs[0])
        self.counted = ffi.wasm_func_new_with_env(store, ft, counted, c.byref(self.counter), finalizer)
        ffi.wasm_functype_delete(ft)
        assert self.twice and self.counted
        self.module = compile_module(store, MODULE)
        self.inst = Instance(store, self.module, [ffi.wasm_func_as_extern(self.twice), ffi.wasm_func_as_extern(self.counted)])

    def release(self):
        self.inst.release()
        ffi.wasm_module_delete(self.module)


def test_host_function_called_from_wasm(store):
    w = World(store)
    assert call_ok(w.inst.func("via_host"), ("i32", 20)) == [41]
    assert call_ok(w.inst.func("via_host"), ("i32", -4)) == [-7]
    assert w.calls == [20, -4]
    assert ffi.wasm_func_param_arity(w.twice) == 1
    assert ffi.wasm_func_result_arity(w.twice) == 1
    w.release()
    ffi.wasm_func_delete(w.twice)
    ffi.wasm_func_delete(w.counted)


def test_env_is_passed_and_finalizer_runs_once_with_the_store(engine):
    # ABI.md: the env finalizer runs once, when the func is deleted with its
    # store (WAMR: only when the client deletes the func, so this fails).
    store = ffi.wasm_store_new(engine)
    w = World(store)
    assert call_ok(w.inst.func("via_counted"), ("i32", 5)) == [105]
    assert call_ok(w.inst.func("via_counted"), ("i32", 5)) == [205]
    assert w.counter.value == 2
    w.release()
    assert w.finalized == []
    ffi.wasm_store_delete(store)
    assert len(w.finalized) == 1, f"finalizer ran {len(w.finalized)} times"
    assert w.finalized[0] == c.addressof(w.counter)


def test_wasm_function_with_all_numeric_types(store):
    w = World(store)
    trap, results = call(w.inst.func("mix"), [("i32", -3), ("i64", 1 << 40), ("f32", 0.25), ("f64", -2.5)])
    assert not trap
    assert results == [("f64", -2.5), ("f32", 0.25), ("i64", 1 << 40), ("i32", -3)]
    w.release()
    ffi.wasm_func_delete(w.twice)
    ffi.wasm_func_delete(w.counted)


def test_host_trap_fails_the_call(store):
    message = ffi.wasm_name_new_from_string("boom\0")

    @ffi.wasm_func_cb_decl
    def failing(args, results):
        return c.cast(ffi.wasm_trap_new(store, message), c.c_void_p).value

    w = World(store, failing)
    trap, _ = call(w.inst.func("via_host"), [("i32", 1)])
    # The call traps with the host trap's message, after the "Exception: "
    # WAMR gives it (up to the message's NUL).
    assert take_trap(trap) == "Exception: boom"
    # The store is still usable.
    assert call_ok(w.inst.func("via_counted"), ("i32", 1)) == [101]
    w.release()
    ffi.wasm_func_delete(w.twice)
    ffi.wasm_func_delete(w.counted)
    ffi.wasm_byte_vec_delete(message)


@pytest.mark.parametrize(
    "args",
    [[], [("i64", 1)], [("f64", 1.0)]],
    ids=["too-few", "i64-for-i32", "f64-for-i32"],
)
def test_wrong_arguments_trap(store, args):
    # Too few arguments, or an argument of another width: a trap (where
    # WAMR reads past the arguments or shifts the later ones).
    w = World(store)

    def run():
        trap, _ = call(w.inst.func("via_host"), args, nresults=1)
        assert trap, "a bad call did not trap"
        assert take_trap(trap)
        assert call_ok(w.inst.func("via_host"), ("i32", 1)) == [3]

    in_child(run)
    w.release()
    ffi.wasm_func_delete(w.twice)
    ffi.wasm_func_delete(w.counted)


def test_extra_and_same_width_arguments_as_in_wamr(store):
    # WAMR reads one argument per parameter at the width of its kind:
    # extra arguments are ignored, and an f32 passes its bits as an i32.
    w = World(store)
    assert call_ok(w.inst.func("via_host"), ("i32", 1), ("i32", 2)) == [3]
    bits = struct.unpack("<i", struct.pack("<f", 1.0))[0]
    f = w.inst.func("via_host")
    trap, results = call(f, [("f32", 1.0)], nresults=1)
    assert not trap and results == [("i32", bits * 2 + 1)]
    w.release()
    ffi.wasm_func_delete(w.twice)
    ffi.wasm_func_delete(w.counted)


def test_func_functions_given_null(store):
    @ffi.wasm_func_cb_decl
    def nop(args, results):
        return None

    ft = functype([], [])

    def run():
        assert not ffi.wasm_func_new(store, None, nop)
        # As in WAMR, no store makes a function of no store.
        f = ffi.wasm_func_new(None, ft, nop)
        assert f and ffi.wasm_func_param_arity(f) == 0
        ffi.wasm_func_delete(f)
        assert not ffi.wasm_func_type(None)
        assert ffi.wasm_func_param_arity(None) == 0
        assert ffi.wasm_func_result_arity(None) == 0
        trap = ffi.wasm_func_call(None, None, None)
        if trap:
            ffi.wasm_trap_delete(trap)
        ffi.wasm_func_delete(None)

    in_child(run)
    ffi.wasm_functype_delete(ft)
