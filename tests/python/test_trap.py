"""Traps: exact messages of wasm traps, frames, client-made traps, the store
after traps, stack exhaustion, NULL arguments."""

import ctypes as c

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import Instance, byte_vec, call, call_ok, compile_module, in_child, take_trap, trap_message

MODULE = """(module
  (type $v2i (func (result i32)))
  (table 1 funcref)
  (memory 1)
  (func (export "ok") (result i32) (i32.const 1))
  (func (export "unreachable") (unreachable))
  (func (export "div_zero") (result i32) (i32.div_u (i32.const 1) (i32.const 0)))
  (func (export "overflow") (result i32) (i32.div_s (i32.const 0x80000000) (i32.const -1)))
  (func (export "bad_conversion") (result i32) (i32.trunc_f32_u (f32.const nan)))
  (func (export "oob") (result i32) (i32.load (i32.const 65535)))
  (func (export "uninitialized") (result i32) (call_indirect (type $v2i) (i32.const 0)))
  (func (export "undefined") (result i32) (call_indirect (type $v2i) (i32.const 1)))
  (func $inner (unreachable))
  (func (export "outer") (call $inner))
  (func $loop (export "recurse") (call $loop)))"""

CASES = [
    ("unreachable", "Exception: unreachable"),
    ("div_zero", "Exception: integer divide by zero"),
    ("overflow", "Exception: integer overflow"),
    ("bad_conversion", "Exception: invalid conversion to integer"),
    ("oob", "Exception: out of bounds memory access"),
    ("uninitialized", "Exception: uninitialized element"),
    ("undefined", "Exception: undefined element"),
]


@pytest.fixture
def inst(store):
    module = compile_module(store, MODULE)
    i = Instance(store, module)
    yield i
    i.release()
    ffi.wasm_module_delete(module)


@pytest.mark.parametrize("export,message", CASES, ids=[e for e, _ in CASES])
def test_trap_message(inst, export, message):
    trap, _ = call(inst.func(export))
    assert take_trap(trap) == message
    assert call_ok(inst.func("ok")) == [1], "store unusable after a trap"


def test_trap_origin_and_trace(inst):
    trap, _ = call(inst.func("outer"))
    origin = ffi.wasm_trap_origin(trap)
    assert origin, "no origin frame"
    assert ffi.wasm_frame_func_index(origin) == 8  # $inner
    ffi.wasm_frame_delete(origin)
    trace = ffi.wasm_frame_vec_t()
    ffi.wasm_trap_trace(trap, trace)
    assert trace.num_elems >= 2
    assert [ffi.wasm_frame_func_index(trace.data[i]) for i in range(2)] == [8, 9]  # $inner, outer
    ffi.wasm_frame_vec_delete(trace)
    assert take_trap(trap) == "Exception: unreachable"


def test_stack_exhaustion(inst):
    # WAMR's text for running out of stack.
    for _ in range(2):
        trap, _ = call(inst.func("recurse"))
        assert take_trap(trap) == "Exception: wasm operand stack overflow"
        assert call_ok(inst.func("ok")) == [1]


@pytest.mark.parametrize("text", [b"made by hand", b"made by hand\0"], ids=["no-nul", "nul"])
def test_client_trap_message_is_kept_as_given(store, text):
    # As in WAMR, a client's message comes back byte for byte: with a NUL
    # if it had one, without otherwise (runtime messages end in one).
    msg = byte_vec(text)
    trap = ffi.wasm_trap_new(store, msg)
    ffi.wasm_byte_vec_delete(msg)
    assert trap
    out = ffi.wasm_message_t()
    ffi.wasm_trap_message(trap, out)
    assert (out.size, out.num_elems) == (len(text), len(text))
    assert c.string_at(out.data, out.size) == text
    ffi.wasm_byte_vec_delete(out)
    assert not ffi.wasm_trap_origin(trap)
    trace = ffi.wasm_frame_vec_t()
    ffi.wasm_trap_trace(trap, trace)
    assert trace.num_elems == 0
    ffi.wasm_frame_vec_delete(trace)
    ffi.wasm_trap_delete(trap)


def test_trap_functions_given_null(store):
    def run():
        msg = byte_vec(b"x")
        assert not ffi.wasm_trap_new(None, msg)
        ffi.wasm_byte_vec_delete(msg)
        out = ffi.wasm_message_t()
        ffi.wasm_trap_message(None, out)
        assert out.num_elems == 0
        assert not ffi.wasm_trap_origin(None)
        frames = ffi.wasm_frame_vec_t()
        ffi.wasm_trap_trace(None, frames)
        assert frames.num_elems == 0
        ffi.wasm_trap_delete(None)
        ffi.wasm_frame_delete(None)
        assert ffi.wasm_frame_func_index(None) == 0

    in_child(run)
