"""The store, and the base class of every object that lives in one.

Ownership: every object created in a store belongs to it in the C library
(``wasm_store_delete`` frees whatever is left). A Python wrapper keeps its
``Store`` alive and frees its own C object when collected, unless the store
is already gone (then the store freed it). So no drop order, collection
order or interpreter exit can free anything twice or use it after free.
"""

import atexit
import weakref
from typing import Any, Dict

from . import _ffi as f
from ._engine import Engine


class Store:
    """Owns everything created in it: instances, functions, memories, ..."""

    def __init__(self, engine: Engine):
        if not isinstance(engine, Engine):
            raise TypeError(f"expected an Engine, got {engine!r}")
        self.engine = engine
        self._ptr = f.wasm_store_new(engine._ptr)
        _STORES.add(self)
        # externref values: the C side carries an opaque pointer; here it
        # is a key into this table, so the same object comes back.
        self._externs: Dict[int, Any] = {}
        self._extern_keys: Dict[int, int] = {}

    def _live(self):
        if not self._ptr:
            raise ValueError("the store is closed")
        return self._ptr

    def _extern_key(self, obj) -> int:
        key = self._extern_keys.get(id(obj))
        if key is None:
            key = len(self._externs) + 1
            self._externs[key] = obj
            self._extern_keys[id(obj)] = key
        return key

    def close(self) -> None:
        """Frees the store and everything in it now (also done when it is
        collected)."""
        if getattr(self, "_ptr", None):
            f.wasm_store_delete(self._ptr)
            self._ptr = None

    __del__ = close

    def __repr__(self) -> str:
        return f"Store({'open' if self._ptr else 'closed'})"


# Live stores, closed at interpreter exit while Python is still whole:
# deleting a store runs host functions' finalizers, which call back into
# Python, and later, during module teardown, that could find half the
# interpreter gone.
_STORES: "weakref.WeakSet[Store]" = weakref.WeakSet()


@atexit.register
def _close_stores() -> None:
    for store in list(_STORES):
        store.close()


class _InStore:
    """A C object of a store, freed by ``_free`` unless the store went first."""

    _free = None

    def __init__(self, store: Store, ptr):
        self.store = store
        self._ptr = ptr

    @classmethod
    def _wrap(cls, store: Store, ptr):
        """A wrapper owning ``ptr``, an object the C library handed out."""
        obj = cls.__new__(cls)
        _InStore.__init__(obj, store, ptr)
        return obj

    def __del__(self):
        store = getattr(self, "store", None)
        if getattr(self, "_ptr", None) and store is not None and store._ptr:
            type(self)._free(self._ptr)
        self._ptr = None
