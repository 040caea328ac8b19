"""Externals: any of a function, global, table or memory, as imports are
given and exports come back."""

from typing import Callable, Dict, Type, Union

from . import _ffi as f
from ._func import Func
from ._global import Global
from ._memory import Memory
from ._store import Store
from ._table import Table

Extern = Union[Func, Global, Table, Memory]
_AS_EXTERN: Dict[Type[Extern], Callable[[int], int]] = {Func: f.wasm_func_as_extern, Global: f.wasm_global_as_extern, Table: f.wasm_table_as_extern,
              Memory: f.wasm_memory_as_extern}


def _extern_of(store: Store, ptr: int) -> Extern:
    """The wrapper owning ``ptr``, a ``wasm_extern_t`` of ``store``."""
    kind = f.wasm_extern_kind(ptr)
    if kind == f.EXTERN_FUNC:
        return Func._wrap(store, f.wasm_extern_as_func(ptr))
    if kind == f.EXTERN_GLOBAL:
        return Global._wrap(store, f.wasm_extern_as_global(ptr))
    if kind == f.EXTERN_TABLE:
        return Table._wrap(store, f.wasm_extern_as_table(ptr))
    return Memory._wrap(store, f.wasm_extern_as_memory(ptr))
