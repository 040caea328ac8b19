"""Modules: wasm_module_new / validate on good and bad bytes, reflection on
NULL, serialize/deserialize. (The binding does not wrap share/obtain; the C
tests cover them.)"""

import ctypes as c

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import Instance, byte_vec, call_ok, compile_module, in_child, wat2wasm

ADD = """(module (func (export "add") (param i32 i32) (result i32)
                   (i32.add (local.get 0) (local.get 1))))"""


def test_valid_module_compiles_and_validates(store):
    vec = byte_vec(wat2wasm(ADD))
    assert ffi.wasm_module_validate(store, vec)
    module = ffi.wasm_module_new(store, vec)
    ffi.wasm_byte_vec_delete(vec)
    assert module
    inst = Instance(store, module)
    assert call_ok(inst.func("add"), ("i32", 2), ("i32", 40)) == [42]
    inst.release()
    ffi.wasm_module_delete(module)


def test_bytes_from_new_uninitialized_compile(store):
    # As WAMR's sample does: _new_uninitialized (num_elems stays 0), bytes
    # written in place; the runtime reads `size` bytes.
    data = wat2wasm(ADD)
    vec = ffi.wasm_byte_vec_t()
    ffi.wasm_byte_vec_new_uninitialized(vec, len(data))
    c.memmove(vec.data, data, len(data))
    assert vec.num_elems == 0
    module = ffi.wasm_module_new(store, vec)
    assert module
    ffi.wasm_byte_vec_delete(vec)
    ffi.wasm_module_delete(module)


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"\0asm",
        b"\0asm\x02\0\0\0",
        b"not a module at all",
        b"\0asm\x01\0\0\0\x01\x10\x01\x60",  # section past the end
        b"\0asm\x01\0\0\0\x01\x05\x01\x60\x00\x01\x7f\x03\x02\x01\x00\x0a\x06\x01\x04\x00\x42\x00\x0b",  # i64 body for an i32 result
    ],
    ids=["empty", "magic-only", "bad-version", "text", "truncated-section", "type-mismatch"],
)
def test_bad_bytes_give_null(store, data):
    vec = byte_vec(data)
    assert not ffi.wasm_module_validate(store, vec)
    assert not ffi.wasm_module_new(store, vec)
    ffi.wasm_byte_vec_delete(vec)
    # The store still works.
    ffi.wasm_module_delete(compile_module(store, ADD))


def test_every_truncation_of_a_module_is_rejected(store):
    data = wat2wasm(ADD)
    # Cut inside the code section, the last one: never a whole module.
    for n in range(len(data) - 8, len(data)):
        vec = byte_vec(data[:n])
        assert not ffi.wasm_module_new(store, vec), f"accepted {n} of {len(data)} bytes"
        ffi.wasm_byte_vec_delete(vec)


def test_module_functions_given_null(store):
    def run():
        vec = byte_vec(wat2wasm(ADD))
        assert not ffi.wasm_module_new(None, vec)
        assert not ffi.wasm_module_new(store, None)
        assert not ffi.wasm_module_validate(None, vec)
        assert not ffi.wasm_module_validate(store, None)
        imports = ffi.wasm_importtype_vec_t()
        ffi.wasm_module_imports(None, imports)
        assert imports.num_elems == 0
        exports = ffi.wasm_exporttype_vec_t()
        ffi.wasm_module_exports(None, exports)
        assert exports.num_elems == 0
        ffi.wasm_module_delete(None)
        ffi.wasm_byte_vec_delete(vec)

    in_child(run)


def test_serialize_round_trip(store, engine):
    module = compile_module(store, ADD)
    out = ffi.wasm_byte_vec_t()
    ffi.wasm_byte_vec_new_empty(out)
    ffi.wasm_module_serialize(module, out)
    assert out.num_elems > 0, "wasm_module_serialize produced nothing"
    ffi.wasm_module_delete(module)
    other = ffi.wasm_store_new(engine)
    again = ffi.wasm_module_deserialize(other, out)
    assert again
    inst = Instance(other, again)
    assert call_ok(inst.func("add"), ("i32", 5), ("i32", 6)) == [11]
    inst.release()
    ffi.wasm_module_delete(again)
    ffi.wasm_store_delete(other)
    ffi.wasm_byte_vec_delete(out)


def test_deserialize_junk_gives_null(store):
    junk = byte_vec(b"junk junk junk")
    assert not ffi.wasm_module_deserialize(store, junk)
    ffi.wasm_byte_vec_delete(junk)
