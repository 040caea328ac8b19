"""Type objects: valtype, functype, globaltype, tabletype, memorytype,
externtype, importtype, exporttype. Each constructor read back, copied,
converted, and given NULL or invalid input."""

import ctypes as c

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import NO_MAX, VALKINDS, byte_vec, functype, in_child, vec_bytes


@pytest.mark.parametrize("name,kind", sorted(VALKINDS.items()))
def test_valtype_kinds_round_trip(engine, name, kind):
    t = ffi.wasm_valtype_new(kind)
    assert t, f"wasm_valtype_new({name})"
    assert ffi.wasm_valtype_kind(t) == kind
    copy = ffi.wasm_valtype_copy(t)
    assert copy and ffi.wasm_valtype_kind(copy) == kind
    assert ffi.dereference(copy) == ffi.dereference(t)
    ffi.wasm_valtype_delete(copy)
    ffi.wasm_valtype_delete(t)


@pytest.mark.parametrize("kind", [5, 7, 64, 127, 130, 255])
def test_valtype_invalid_kind_is_null(engine, kind):
    # ABI.md: out-of-range kinds give NULL, never a crash.
    in_child(lambda: _check(not ffi.wasm_valtype_new(kind), f"valtype {kind}"))


def test_functype_params_and_results(engine):
    ft = functype(["i32", "f64"], ["i64", "f32", "externref"])
    params = ffi.dereference(ffi.wasm_functype_params(ft))
    results = ffi.dereference(ffi.wasm_functype_results(ft))
    assert params.num_elems == 2 and results.num_elems == 3
    assert [ffi.wasm_valtype_kind(params.data[i]) for i in range(2)] == [ffi.WASM_I32, ffi.WASM_F64]
    assert [ffi.wasm_valtype_kind(results.data[i]) for i in range(3)] == [ffi.WASM_I64, ffi.WASM_F32, ffi.WASM_EXTERNREF]
    copy = ffi.wasm_functype_copy(ft)
    assert copy
    assert ffi.dereference(copy) == ffi.dereference(ft)
    ffi.wasm_functype_delete(ft)
    # The copy is deep: it outlives the original.
    assert ffi.dereference(ffi.wasm_functype_results(copy)).num_elems == 3
    ffi.wasm_functype_delete(copy)


def test_functype_shorthands(engine):
    ft = ffi.wasm_functype_new_2_1(ffi.wasm_valtype_new(ffi.WASM_I32), ffi.wasm_valtype_new(ffi.WASM_I64), ffi.wasm_valtype_new(ffi.WASM_F32))
    params = ffi.dereference(ffi.wasm_functype_params(ft))
    results = ffi.dereference(ffi.wasm_functype_results(ft))
    assert [ffi.wasm_valtype_kind(params.data[i]) for i in range(params.num_elems)] == [ffi.WASM_I32, ffi.WASM_I64]
    assert [ffi.wasm_valtype_kind(results.data[i]) for i in range(results.num_elems)] == [ffi.WASM_F32]
    ffi.wasm_functype_delete(ft)
    empty = ffi.wasm_functype_new_0_0()
    assert empty and ffi.dereference(ffi.wasm_functype_params(empty)).num_elems == 0
    ffi.wasm_functype_delete(empty)


def test_globaltype(engine):
    for mut in (ffi.WASM_CONST, ffi.WASM_VAR):
        gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(ffi.WASM_F32), mut)
        assert gt
        assert ffi.wasm_valtype_kind(ffi.wasm_globaltype_content(gt)) == ffi.WASM_F32
        assert ffi.wasm_globaltype_mutability(gt) == mut
        copy = ffi.wasm_globaltype_copy(gt)
        assert ffi.dereference(copy) == ffi.dereference(gt)
        ffi.wasm_globaltype_delete(copy)
        ffi.wasm_globaltype_delete(gt)


def test_tabletype_and_memorytype(engine):
    tt = ffi.wasm_tabletype_new(ffi.wasm_valtype_new(ffi.WASM_FUNCREF), ffi.wasm_limits_new(2, 9))
    assert tt
    assert ffi.wasm_valtype_kind(ffi.wasm_tabletype_element(tt)) == ffi.WASM_FUNCREF
    lim = ffi.dereference(ffi.wasm_tabletype_limits(tt))
    assert (lim.min, lim.max) == (2, 9)
    mt = ffi.wasm_memorytype_new(ffi.wasm_limits_new(1, NO_MAX))
    assert mt
    lim = ffi.dereference(ffi.wasm_memorytype_limits(mt))
    assert (lim.min, lim.max) == (1, NO_MAX)
    ffi.wasm_tabletype_delete(tt)
    ffi.wasm_memorytype_delete(mt)


def test_externtype_conversions(engine):
    ft = functype([], [])
    gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(ffi.WASM_I32), ffi.WASM_CONST)
    tt = ffi.wasm_tabletype_new(ffi.wasm_valtype_new(ffi.WASM_FUNCREF), ffi.wasm_limits_new(0, 1))
    mt = ffi.wasm_memorytype_new(ffi.wasm_limits_new(0, 1))
    pairs = [
        (ffi.wasm_functype_as_externtype(ft), ffi.WASM_EXTERN_FUNC, ffi.wasm_externtype_as_functype, ft),
        (ffi.wasm_globaltype_as_externtype(gt), ffi.WASM_EXTERN_GLOBAL, ffi.wasm_externtype_as_globaltype, gt),
        (ffi.wasm_tabletype_as_externtype(tt), ffi.WASM_EXTERN_TABLE, ffi.wasm_externtype_as_tabletype, tt),
        (ffi.wasm_memorytype_as_externtype(mt), ffi.WASM_EXTERN_MEMORY, ffi.wasm_externtype_as_memorytype, mt),
    ]
    for ext, kind, back, original in pairs:
        assert ext
        assert ffi.wasm_externtype_kind(ext) == kind
        assert c.cast(back(ext), c.c_void_p).value == c.cast(original, c.c_void_p).value
    ffi.wasm_functype_delete(ft)
    ffi.wasm_globaltype_delete(gt)
    ffi.wasm_tabletype_delete(tt)
    ffi.wasm_memorytype_delete(mt)


def test_externtype_cast_to_wrong_kind_is_null(engine):
    # WAMR's casts are unchecked; a cast to another kind must give NULL.
    def run():
        ft = functype([], [])
        ext = ffi.wasm_functype_as_externtype(ft)
        assert not ffi.wasm_externtype_as_globaltype(ext)
        assert not ffi.wasm_externtype_as_memorytype(ext)
        ffi.wasm_functype_delete(ft)

    in_child(run)


def test_importtype_and_exporttype(engine):
    mod, name = byte_vec(b"env"), byte_vec(b"f")
    it = ffi.wasm_importtype_new(mod, name, ffi.wasm_functype_as_externtype(functype(["i32"], [])))
    assert it
    assert vec_bytes(ffi.dereference(ffi.wasm_importtype_module(it))).rstrip(b"\0") == b"env"
    assert vec_bytes(ffi.dereference(ffi.wasm_importtype_name(it))).rstrip(b"\0") == b"f"
    assert ffi.wasm_externtype_kind(ffi.wasm_importtype_type(it)) == ffi.WASM_EXTERN_FUNC
    ffi.wasm_importtype_delete(it)
    xname = byte_vec(b"mem")
    mt = ffi.wasm_memorytype_new(ffi.wasm_limits_new(1, 2))
    et = ffi.wasm_exporttype_new(xname, ffi.wasm_memorytype_as_externtype(mt))
    assert et
    assert vec_bytes(ffi.dereference(ffi.wasm_exporttype_name(et))).rstrip(b"\0") == b"mem"
    assert ffi.wasm_externtype_kind(ffi.wasm_exporttype_type(et)) == ffi.WASM_EXTERN_MEMORY
    ffi.wasm_exporttype_delete(et)


@pytest.mark.parametrize(
    "call",
    [
        lambda: ffi.wasm_valtype_copy(None),
        lambda: ffi.wasm_functype_params(None),
        lambda: ffi.wasm_functype_results(None),
        lambda: ffi.wasm_functype_copy(None),
        lambda: ffi.wasm_globaltype_new(None, ffi.WASM_VAR),
        lambda: ffi.wasm_globaltype_content(None),
        lambda: ffi.wasm_tabletype_new(None, ffi.wasm_limits_new(0, 1)),
        lambda: ffi.wasm_tabletype_element(None),
        lambda: ffi.wasm_tabletype_limits(None),
        lambda: ffi.wasm_memorytype_new(None),
        lambda: ffi.wasm_memorytype_limits(None),
        lambda: ffi.wasm_externtype_as_functype(None),
        lambda: ffi.wasm_functype_as_externtype(None),
        lambda: ffi.wasm_importtype_new(None, None, None),
        lambda: ffi.wasm_importtype_module(None),
        lambda: ffi.wasm_importtype_type(None),
        lambda: ffi.wasm_exporttype_new(None, None),
        lambda: ffi.wasm_exporttype_name(None),
    ],
)
def test_type_functions_given_null_return_null(engine, call):
    in_child(lambda: _check(not call(), "expected NULL"))


def test_type_deletes_and_queries_tolerate_null(engine):
    def run():
        for delete in (ffi.wasm_valtype_delete, ffi.wasm_functype_delete, ffi.wasm_globaltype_delete, ffi.wasm_tabletype_delete, ffi.wasm_memorytype_delete, ffi.wasm_externtype_delete, ffi.wasm_importtype_delete, ffi.wasm_exporttype_delete):
            delete(None)
        ffi.wasm_valtype_kind(None)
        ffi.wasm_globaltype_mutability(None)
        ffi.wasm_externtype_kind(None)

    in_child(run)


def _check(cond, msg):
    assert cond, msg
