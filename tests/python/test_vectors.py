"""Vectors (ABI.md: Vectors): _new_empty, _new_uninitialized, _new, _copy,
_delete on byte, val, valtype and extern vectors, and NULL handling."""

import ctypes as c

import wamr.wasmcapi.ffi as ffi

from capi import byte_vec, in_child, val, val_value, vec_bytes


def fields(v):
    return (v.size, bool(v.data), v.num_elems, v.size_of_elem, v.lock)


def test_new_empty_zeroes_all_fields(engine):
    for vec_type, new_empty, delete in [
        (ffi.wasm_byte_vec_t, ffi.wasm_byte_vec_new_empty, ffi.wasm_byte_vec_delete),
        (ffi.wasm_val_vec_t, ffi.wasm_val_vec_new_empty, ffi.wasm_val_vec_delete),
        (ffi.wasm_valtype_vec_t, ffi.wasm_valtype_vec_new_empty, ffi.wasm_valtype_vec_delete),
        (ffi.wasm_extern_vec_t, ffi.wasm_extern_vec_new_empty, ffi.wasm_extern_vec_delete),
    ]:
        v = vec_type(7, None, 7, 7, None)
        new_empty(v)
        assert fields(v) == (0, False, 0, 0, None), vec_type.__name__
        delete(v)
        delete(v)  # deleting twice is harmless


def test_new_uninitialized(engine):
    v = ffi.wasm_byte_vec_t()
    ffi.wasm_byte_vec_new_uninitialized(v, 10)
    assert (v.size, v.num_elems, v.size_of_elem) == (10, 0, 1)
    assert bytes(v.data[:10]) == b"\0" * 10
    ffi.wasm_byte_vec_delete(v)
    assert fields(v) == (0, False, 0, 0, None)

    t = ffi.wasm_valtype_vec_t()
    ffi.wasm_valtype_vec_new_uninitialized(t, 3)
    assert (t.size, t.num_elems, t.size_of_elem) == (3, 0, c.sizeof(c.c_void_p))
    assert all(not t.data[i] for i in range(3)), "pointer vector not all NULL"
    ffi.wasm_valtype_vec_delete(t)


def test_new_copies_and_copy_is_deep(engine):
    v = byte_vec(b"hello")
    assert (v.size, v.num_elems) == (5, 5)
    assert vec_bytes(v) == b"hello"
    copy = ffi.wasm_byte_vec_t()
    ffi.wasm_byte_vec_copy(copy, v)
    assert vec_bytes(copy) == b"hello"
    assert c.addressof(copy.data.contents) != c.addressof(v.data.contents)
    ffi.wasm_byte_vec_delete(v)
    assert vec_bytes(copy) == b"hello"
    ffi.wasm_byte_vec_delete(copy)

    vals = (ffi.wasm_val_t * 2)(val("i64", -9), val("f64", 0.5))
    vv = ffi.wasm_val_vec_t()
    ffi.wasm_val_vec_new(vv, 2, vals)
    vals[0].of.i64 = 0
    assert [val_value(vv.data[i]) for i in range(2)] == [("i64", -9), ("f64", 0.5)]
    ffi.wasm_val_vec_delete(vv)

    types = (c.POINTER(ffi.wasm_valtype_t) * 2)(ffi.wasm_valtype_new(ffi.WASM_F32), ffi.wasm_valtype_new(ffi.WASM_FUNCREF))
    tv = ffi.wasm_valtype_vec_t()
    ffi.wasm_valtype_vec_new(tv, 2, types)
    tc = ffi.wasm_valtype_vec_t()
    ffi.wasm_valtype_vec_copy(tc, tv)
    assert tc.num_elems == 2
    for i in range(2):
        assert c.cast(tc.data[i], c.c_void_p).value != c.cast(tv.data[i], c.c_void_p).value
        assert ffi.wasm_valtype_kind(tc.data[i]) == ffi.wasm_valtype_kind(tv.data[i])
    ffi.wasm_valtype_vec_delete(tv)
    assert ffi.wasm_valtype_kind(tc.data[1]) == ffi.WASM_FUNCREF
    ffi.wasm_valtype_vec_delete(tc)


def test_name_helper(engine):
    name = ffi.wasm_name_new_from_string("abc")
    assert vec_bytes(name) == b"abc"
    ffi.wasm_byte_vec_delete(name)


def test_vector_functions_tolerate_null(engine):
    def run():
        ffi.wasm_byte_vec_new_empty(None)
        ffi.wasm_byte_vec_new_uninitialized(None, 4)
        ffi.wasm_byte_vec_new(None, 0, None)
        ffi.wasm_byte_vec_copy(None, None)
        ffi.wasm_byte_vec_delete(None)
        ffi.wasm_val_vec_delete(None)
        ffi.wasm_valtype_vec_delete(None)
        ffi.wasm_extern_vec_delete(None)
        out = ffi.wasm_byte_vec_t()
        ffi.wasm_byte_vec_copy(out, None)
        ffi.wasm_byte_vec_delete(out)

    in_child(run)
