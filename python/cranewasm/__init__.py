"""cranewasm: run WebAssembly from Python on cranewasm's C library.

    import cranewasm as w
    engine = w.Engine()
    module = w.Module(engine, '(module (func (export "add") (param i32 i32) (result i32)'
                              ' local.get 0 local.get 1 i32.add))')
    instance = w.Instance(w.Store(engine), module)
    instance.exports.add(2, 3)  # 5

Everything goes through the C API of ``libiwasm.so`` (ctypes, no other
native code): WAMR's ``wasm_c_api.h``, its ``wasm_export.h`` for WASI
settings, and cranewasm's ``cranewasm_*`` extensions (fuel, limits,
interrupts, epochs, trap codes, error messages, exception tags, GC
references). One module per concept, as in wasmtime's package:
``_config``, ``_engine``, ``_store`` (and the base of objects in a store),
``_module``, ``_instance``, ``_linker``, ``_func`` (``_hints`` reads a
callable's type hints), ``_global``, ``_table``, ``_memory``, ``_extern``,
``_tag``, ``_trap``, ``_error``, ``_wasi``, ``_gc`` (GC references: i31s,
structs, arrays); ``_value`` converts values, ``_ffi`` declares the C API,
``types`` holds the type objects.

The library's diagnostics on stderr are off (level 0): errors reach
Python as exceptions with the library's reason. ``set_log_level(2)`` turns
its warnings back on.
"""

from . import _ffi
from ._config import Config
from ._engine import Engine
from ._error import LinkError, StoreClosed, WasiExit, WasmError
from ._ffi import LIBRARY_PATH
from ._func import Func
from ._gc import AnyRef, ArrayRef, FieldType, I31, StructRef
from ._global import Global
from ._hints import f32, f64, i32, i64
from ._instance import Exports, Instance
from ._linker import Linker
from ._memory import Memory
from ._module import Module
from ._store import InterruptHandle, Store
from ._table import Table
from ._tag import Tag
from ._trap import Frame, Trap, TrapCode, WasmException
from ._wasi import CAPTURE, WasiConfig
from .types import ExportType, FuncType, GlobalType, ImportType, MemoryType, TableType, ValType


def set_log_level(level: int) -> None:
    """The level of the library's lines on stderr (WAMR's): 0 none (the
    package's default), 1 errors, 2 warnings, 3 debug, 4 verbose."""
    if isinstance(level, bool) or not isinstance(level, int) or level < 0:
        raise ValueError(f"a log level is an int from 0, not {level!r}")
    _ffi.wasm_runtime_set_log_level(level)


set_log_level(0)

__all__ = [
    "Config", "Engine", "Store", "InterruptHandle", "Module", "Instance", "Exports", "Linker", "Func", "Global",
    "Table", "Memory", "Trap", "TrapCode", "WasmException", "Tag", "Frame", "WasmError", "LinkError", "StoreClosed", "WasiExit", "ValType",
    "FuncType", "GlobalType", "TableType", "MemoryType", "ImportType", "ExportType", "WasiConfig", "CAPTURE",
    "LIBRARY_PATH", "set_log_level", "i32", "i64", "f32", "f64", "AnyRef", "I31", "StructRef", "ArrayRef",
    "FieldType",
]
