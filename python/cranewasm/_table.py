"""Tables of funcref or externref values."""

from typing import Any, List

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from ._value import _forget, _from_c, _release, _to_c
from .types import TableType


class Table(_InStore):
    """A table of funcref or externref values, indexed like a list."""

    _free = staticmethod(f.wasm_extern_delete)

    def __init__(self, store: Store, ty: TableType, init: Any = None) -> None:
        if not isinstance(store, Store) or not isinstance(ty, TableType):
            raise TypeError("Table(store, TableType, init)")
        keep: List[Any] = []
        ref = _to_c(store, ty.element.kind, init, keep).of.ref
        ptr = f.wasm_table_new(store._live(), ty._ptr, ref)
        _release(keep)
        if not ptr:
            raise WasmError("wasm_table_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> TableType:
        """The table's type."""
        return TableType._wrap(f.wasm_table_type(self._live()))

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(f.wasm_table_size(self._live()))

    def __len__(self) -> int:
        return self.size

    def _element(self) -> int:
        return self.type.element.kind

    def __getitem__(self, index: int) -> Any:
        if not 0 <= index < self.size:
            raise IndexError(f"table index {index} out of range")
        ref = f.wasm_table_get(self._ptr, index)
        v = f.Val()
        v.kind = self._element()
        v.of.ref = ref
        # A funcref comes back as a new function object we own; an
        # externref as the key we passed in.
        return _from_c(self.store, v, owned=True)

    def __setitem__(self, index: int, value: Any) -> None:
        keep: List[Any] = []
        ref = _to_c(self.store, self._element(), value, keep).of.ref
        done = f.wasm_table_set(self._ptr, index, ref)
        if done:
            # As in WAMR, a funcref table took (deleted) the reference.
            _forget(keep)
        _release(keep)
        if not done:
            raise IndexError(f"table index {index} out of range")

    def grow(self, delta: int, init: Any = None) -> int:
        """Grows by ``delta`` elements set to ``init``; returns the old size.
        Raises ``WasmError`` past the maximum."""
        old = self.size
        keep: List[Any] = []
        ref = _to_c(self.store, self._element(), init, keep).of.ref
        done = delta >= 0 and f.wasm_table_grow(self._ptr, delta, ref)
        _release(keep)
        if not done:
            raise WasmError(f"cannot grow the table by {delta}")
        return old

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "Table(<store closed>)"
        return f"Table({self.type!r}, size={self.size})"
