"""Fixtures for the tests of WAMR's Python binding against libiwasm.so.

Run through the shared runner, which makes the binding load a given
library:  ../shared/clients/run-wamr-python.sh LIB python3 -m pytest tests/python
"""

import pytest
import wamr.wasmcapi.ffi as ffi


@pytest.fixture(scope="session")
def engine():
    e = ffi.wasm_engine_new()
    assert e, "wasm_engine_new returned NULL"
    yield e
    ffi.wasm_engine_delete(e)


@pytest.fixture
def store(engine):
    s = ffi.wasm_store_new(engine)
    assert s, "wasm_store_new returned NULL"
    yield s
    ffi.wasm_store_delete(s)
