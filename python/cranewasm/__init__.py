"""cranewasm: run WebAssembly from Python on cranewasm's C library.

    import cranewasm as w
    engine = w.Engine()
    module = w.Module(engine, '(module (func (export "add") (param i32 i32) (result i32)'
                              ' local.get 0 local.get 1 i32.add))')
    instance = w.Instance(w.Store(engine), module)
    instance.exports.add(2, 3)  # 5

Everything goes through the standard C API of ``libiwasm.so`` (ctypes, no
other native code; WASI settings through WAMR's ``wasm_export.h``, as WAMR
takes them for its C API too). One module per concept, as in wasmtime's
package: ``_engine``, ``_store`` (and the base of objects in a store),
``_module``, ``_instance``, ``_func``, ``_global``, ``_table``, ``_memory``,
``_extern``, ``_trap``, ``_error``, ``_wasi``; ``_value`` converts values,
``_ffi`` declares the C API, ``types`` holds the type objects.
"""

from ._engine import Engine
from ._error import WasmError
from ._ffi import LIBRARY_PATH
from ._func import Func
from ._global import Global
from ._instance import Exports, Instance
from ._memory import Memory
from ._module import Module
from ._store import Store
from ._table import Table
from ._trap import Frame, Trap
from ._wasi import WasiConfig
from .types import ExportType, FuncType, GlobalType, ImportType, MemoryType, TableType, ValType

__all__ = [
    "Engine", "Store", "Module", "Instance", "Exports", "Func", "Global", "Table", "Memory", "Trap", "Frame",
    "WasmError", "ValType", "FuncType", "GlobalType", "TableType", "MemoryType", "ImportType", "ExportType",
    "WasiConfig", "LIBRARY_PATH",
]
