"""cranewasm: run WebAssembly from Python on cranewasm's C library.

    import cranewasm as w
    engine = w.Engine()
    module = w.Module(engine, '(module (func (export "add") (param i32 i32) (result i32)'
                              ' local.get 0 local.get 1 i32.add))')
    instance = w.Instance(w.Store(engine), module)
    instance.exports.add(2, 3)  # 5

Everything goes through the standard C API of ``libiwasm.so`` (ctypes, no
other native code).
"""

from ._ffi import LIBRARY_PATH
from .runtime import (Engine, Exports, Frame, Func, Global, Instance, Memory, Module, Store, Table, Trap,
                      WasmError)
from .types import ExportType, FuncType, GlobalType, ImportType, MemoryType, TableType, ValType

__all__ = [
    "Engine", "Store", "Module", "Instance", "Exports", "Func", "Global", "Table", "Memory", "Trap", "Frame",
    "WasmError", "ValType", "FuncType", "GlobalType", "TableType", "MemoryType", "ImportType", "ExportType",
    "LIBRARY_PATH",
]
