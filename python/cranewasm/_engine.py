"""The engine: compiles modules for the stores made from it."""

from . import _ffi as f
from ._error import WasmError


class Engine:
    """The compilation engine (one per process in the C library, counted)."""

    def __init__(self):
        self._ptr = f.wasm_engine_new()
        if not self._ptr:
            raise WasmError("wasm_engine_new failed")

    def __del__(self):
        if getattr(self, "_ptr", None):
            f.wasm_engine_delete(self._ptr)
            self._ptr = None

    def __repr__(self) -> str:
        return "Engine()"
