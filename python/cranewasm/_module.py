"""Compiled modules: from bytes or text, validated, reflected, serialized."""

import ctypes as c
import os
from typing import List, Optional, Union

from . import _ffi as f
from ._engine import Engine
from ._error import WasmError
from ._store import Store
from ._wasi import WasiConfig
from .types import ExportType, ImportType, extern_type

WasmSource = Union[bytes, bytearray, memoryview, str]


def _wasm_bytes(wasm: WasmSource) -> bytes:
    if isinstance(wasm, str):
        text = wasm.encode()
        out = f.Vec()
        f.cranewasm_last_error_clear()
        if not f.cranewasm_wat2wasm(text, len(text), c.byref(out)):
            raise WasmError._from_library("invalid WebAssembly text")
        data = f.vec_bytes(out)
        f.wasm_byte_vec_delete(c.byref(out))
        return data
    if isinstance(wasm, (bytes, bytearray, memoryview)):
        return bytes(wasm)
    raise TypeError(f"expected WebAssembly bytes or text, got {type(wasm).__name__}")


class Module:
    """A compiled module: ``Module(engine, wasm_bytes_or_wat_text)``.

    A malformed or invalid module raises ``WasmError`` with the validator's
    message and its byte ``offset``. The C API compiles modules in a store;
    the module keeps a private one, and can be instantiated in any store of
    the same engine."""

    def __init__(self, engine: Engine, wasm: WasmSource) -> None:
        if not isinstance(engine, Engine):
            raise TypeError(f"expected an Engine, got {engine!r}")
        data = _wasm_bytes(wasm)
        self._store = Store(engine)
        vec = f.byte_vec(data)
        f.cranewasm_last_error_clear()
        self._ptr: Optional[int] = f.wasm_module_new(self._store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        if not self._ptr:
            raise WasmError._from_library("invalid module")

    @property
    def engine(self) -> Engine:
        """The engine that compiled the module."""
        return self._store.engine

    def _live(self) -> int:
        if not self._ptr:
            raise ValueError("the module is deleted")
        return self._ptr

    @classmethod
    def from_file(cls, engine: Engine, path: Union[str, "os.PathLike[str]"]) -> "Module":
        """Loads a ``.wasm`` (or ``.wat``) file."""
        with open(path, "rb") as fh:
            data = fh.read()
        return cls(engine, data if data.startswith(b"\0asm") else data.decode())

    @staticmethod
    def validate(engine: Engine, wasm: Union[bytes, bytearray, memoryview]) -> bool:
        """Whether ``wasm`` is a valid module."""
        store = Store(engine)
        vec = f.byte_vec(bytes(wasm))
        ok = f.wasm_module_validate(store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        store.close()
        return bool(ok)

    @property
    def imports(self) -> List[ImportType]:
        """The module's imports, in its order."""
        vec = f.Vec()
        f.wasm_module_imports(self._live(), c.byref(vec))
        out = [ImportType(f.name_str(f.wasm_importtype_module(p)), f.name_str(f.wasm_importtype_name(p)),
                          extern_type(f.wasm_externtype_copy(f.wasm_importtype_type(p)))) for p in f.elems(vec)]
        f.wasm_importtype_vec_delete(c.byref(vec))
        return out

    @property
    def exports(self) -> List[ExportType]:
        """The module's exports, in its order."""
        vec = f.Vec()
        f.wasm_module_exports(self._live(), c.byref(vec))
        out = [ExportType(f.name_str(f.wasm_exporttype_name(p)),
                          extern_type(f.wasm_externtype_copy(f.wasm_exporttype_type(p)))) for p in f.elems(vec)]
        f.wasm_exporttype_vec_delete(c.byref(vec))
        return out

    @property
    def wasi(self) -> Optional[WasiConfig]:
        """The WASI settings of this module's instances (``WasiConfig``),
        for WASI imports an ``Instance`` is made without; None until set.
        Set it before making instances: they take it when made. (A
        ``Linker`` with ``define_wasi(config)`` sets it at each
        instantiation.)"""
        wasi: Optional[WasiConfig] = getattr(self, "_wasi", None)
        return wasi

    @wasi.setter
    def wasi(self, config: WasiConfig) -> None:
        if not isinstance(config, WasiConfig):
            raise TypeError("Module.wasi is a WasiConfig")
        # The wasm_module_t of the C API points at the module of
        # wasm_export.h, which holds the settings (as in WAMR).
        config._apply(c.cast(self._live(), c.POINTER(c.c_void_p))[0])
        self._wasi = config

    def serialize(self) -> bytes:
        """The compiled module as bytes, for ``Module.deserialize`` (a cache
        of compiled code: no compilation when loaded again)."""
        vec = f.Vec()
        f.wasm_module_serialize(self._live(), c.byref(vec))
        data = f.vec_bytes(vec)
        f.wasm_byte_vec_delete(c.byref(vec))
        return data

    @classmethod
    def deserialize(cls, engine: Engine, data: Union[bytes, bytearray, memoryview]) -> "Module":
        """A module from ``serialize``'s bytes; ``WasmError`` for bytes that
        are not a compiled module of this runtime and engine settings."""
        m = cls.__new__(cls)
        m._store = Store(engine)
        vec = f.byte_vec(bytes(data))
        f.cranewasm_last_error_clear()
        m._ptr = f.wasm_module_deserialize(m._store._ptr, c.byref(vec))
        f.wasm_byte_vec_delete(c.byref(vec))
        if not m._ptr:
            raise WasmError._from_library("not a serialized module of this runtime")
        return m

    @classmethod
    def deserialize_file(cls, engine: Engine, path: Union[str, "os.PathLike[str]"]) -> "Module":
        """``deserialize`` of a file's bytes (a cache file ``serialize`` wrote)."""
        with open(path, "rb") as fh:
            return cls.deserialize(engine, fh.read())

    def __del__(self) -> None:
        store = getattr(self, "_store", None)
        if getattr(self, "_ptr", None) and store is not None and store._ptr:
            f.wasm_module_delete(self._ptr)
        self._ptr = None

    def __repr__(self) -> str:
        return f"Module(imports={len(self.imports)}, exports={len(self.exports)})"
