"""Globals: made from Python, or exported by an instance."""

import ctypes as c

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from ._value import _from_c, _to_c
from .types import GlobalType


class Global(_InStore):
    """A global: ``Global(store, GlobalType(ValType.i32(), True), 7)``;
    ``global_.value`` reads and (if mutable) writes it."""

    _free = staticmethod(f.wasm_extern_delete)

    def __init__(self, store: Store, ty: GlobalType, value):
        keep: list = []
        v = _to_c(store, ty.content.kind, value, keep)
        ptr = f.wasm_global_new(store._live(), ty._ptr, c.byref(v))
        if not ptr:
            raise WasmError("wasm_global_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> GlobalType:
        return GlobalType._wrap(f.wasm_global_type(self._ptr))

    @property
    def value(self):
        v = f.Val()
        f.wasm_global_get(self._ptr, c.byref(v))
        return _from_c(self.store, v, owned=True)

    @value.setter
    def value(self, value) -> None:
        ty = self.type
        if not ty.mutable:
            raise AttributeError("the global is immutable")
        keep: list = []
        v = _to_c(self.store, ty.content.kind, value, keep)
        f.wasm_global_set(self._ptr, c.byref(v))

    def __repr__(self) -> str:
        return f"Global({self.type!r}, value={self.value!r})"
