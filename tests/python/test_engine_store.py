"""Engine and store: creation, reference-counted engines, NULL handling."""

import ctypes as c

import wamr.wasmcapi.ffi as ffi

from capi import compile_module, in_child


def test_engine_and_store_work(engine):
    store = ffi.wasm_store_new(engine)
    assert store
    compile_module(store, "(module)")
    ffi.wasm_store_delete(store)


def test_second_engine_is_usable_and_first_survives_its_delete(engine):
    # ABI.md: wasm_engine_new may be called more than once (reference
    # counted); deleting one leaves the others working.
    second = ffi.wasm_engine_new()
    assert second
    store = ffi.wasm_store_new(second)
    assert store
    ffi.wasm_store_delete(store)
    ffi.wasm_engine_delete(second)
    store = ffi.wasm_store_new(engine)
    assert store
    compile_module(store, "(module (func))")
    ffi.wasm_store_delete(store)


def test_engine_from_config(engine):
    config = ffi.wasm_config_new()
    assert config
    e = ffi.wasm_engine_new_with_config(config)
    assert e
    # The header does not mark the config as given up: the client deletes it.
    ffi.wasm_config_delete(config)
    ffi.wasm_engine_delete(e)


def test_stores_are_independent(engine):
    a = ffi.wasm_store_new(engine)
    b = ffi.wasm_store_new(engine)
    assert a and b
    assert c.cast(a, c.c_void_p).value != c.cast(b, c.c_void_p).value
    ffi.wasm_store_delete(a)
    compile_module(b, "(module)")
    ffi.wasm_store_delete(b)


def test_store_new_without_engine_is_null():
    in_child(lambda: _assert(not ffi.wasm_store_new(None)))


def test_deleting_null_is_harmless():
    def run():
        ffi.wasm_store_delete(None)
        ffi.wasm_engine_delete(None)
        ffi.wasm_config_delete(None)

    in_child(run)


def _assert(cond, msg="check failed"):
    assert cond, msg
