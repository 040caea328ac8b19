"""Globals: made from Python, or exported by an instance."""

import ctypes as c
from typing import Any, List, Optional

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from ._value import _from_c, _release, _to_c
from .types import GlobalType


# A kind byte no value has: what wasm_global_get leaves in place for a
# global no instance has linked.
_UNREAD = 0xFF


class Global(_InStore):
    """A global: ``Global(store, GlobalType(ValType.i32(), True), 7)``;
    ``global_.value`` reads and (if mutable) writes it.

    A global made here is, in the C API (as in WAMR), a type and an initial
    value until an instance imports it: that instance gets a global of its
    own holding the value, and from then on this object reads and writes
    that global (which instances importing the object later share). Until
    then ``value`` is the value it was made with or last given."""

    _free = staticmethod(f.wasm_extern_delete)

    def __init__(self, store: Store, ty: GlobalType, value: Any) -> None:
        if not isinstance(store, Store) or not isinstance(ty, GlobalType):
            raise TypeError("Global(store, GlobalType, value)")
        super().__init__(store, self._new(store, ty, value))
        self._unlinked = value

    @staticmethod
    def _new(store: Store, ty: GlobalType, value: Any) -> int:
        keep: List[Any] = []
        v = _to_c(store, ty.content.kind, value, keep)
        ptr: int = f.wasm_global_new(store._live(), ty._ptr, c.byref(v))
        _release(keep)
        if not ptr:
            raise WasmError("wasm_global_new failed")
        return ptr

    def _read(self) -> Optional[f.Val]:
        """The C value, or None for a global no instance has linked."""
        v = f.Val()
        v.kind = _UNREAD
        f.wasm_global_get(self._live(), c.byref(v))
        return None if v.kind == _UNREAD else v

    @property
    def type(self) -> GlobalType:
        """The global's type."""
        return GlobalType._wrap(f.wasm_global_type(self._live()))

    @property
    def value(self) -> Any:
        """The value (settable when the global is mutable)."""
        v = self._read()
        if v is None:
            return getattr(self, "_unlinked", None)
        return _from_c(self.store, v, owned=True)

    @value.setter
    def value(self, value: Any) -> None:
        ty = self.type
        if not ty.mutable:
            raise AttributeError("the global is immutable")
        if self._read() is None:
            # Not linked yet: a new initial value is a new C global.
            ptr = self._new(self.store, ty, value)
            f.wasm_extern_delete(self._live())
            self._ptr, self._unlinked = ptr, value
            return
        keep: List[Any] = []
        v = _to_c(self.store, ty.content.kind, value, keep)
        f.wasm_global_set(self._live(), c.byref(v))
        _release(keep)

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "Global(<store closed>)"
        return f"Global({self.type!r}, value={self.value!r})"
