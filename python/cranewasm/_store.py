"""The store, and the base class of every object that lives in one.

Ownership: every object created in a store belongs to it in the C library
(``wasm_store_delete`` frees whatever is left). A Python wrapper keeps its
``Store`` alive and frees its own C object when collected, unless the store
is already gone (then the store freed it). So no drop order, collection
order or interpreter exit can free anything twice or use it after free; a
wrapper used after its store was closed raises ``StoreClosed``.
"""

import atexit
import ctypes as c
import weakref
from types import TracebackType
from typing import Any, Callable, Dict, Optional, Type, TypeVar

from . import _ffi as f
from ._engine import Engine
from ._error import StoreClosed, WasmError

_NO_CAP = -1


class InterruptHandle:
    """Stops a store's running call from any thread (``Store.interrupt_handle``):
    ``handle.interrupt()`` makes it raise ``Trap`` with
    ``TrapCode.INTERRUPTED`` within microseconds (a host function it is in
    finishes first). With no call running, the store's next call stops at
    its start. Usable after the store is gone (it then does nothing)."""

    def __init__(self, ptr: int) -> None:
        self._ptr: Optional[int] = ptr

    def interrupt(self) -> None:
        """Stops the store's running (or next) call; returns at once."""
        if not self._ptr:
            raise ValueError("the interrupt handle is closed")
        f.cranewasm_interrupt_handle_interrupt(self._ptr)

    def close(self) -> None:
        """Frees the handle now (also done when it is collected)."""
        if getattr(self, "_ptr", None):
            f.cranewasm_interrupt_handle_delete(self._ptr)
            self._ptr = None

    __del__ = close

    def __repr__(self) -> str:
        return f"InterruptHandle({'open' if self._ptr else 'closed'})"


class Store:
    """Owns everything created in it: instances, functions, memories, ...

    ``with Store(engine) as store:`` closes it at the end; ``close()`` does
    it at once. Fuel (``set_fuel``), limits (``set_limits``), epoch deadlines
    and interrupt handles control its calls."""

    def __init__(self, engine: Engine) -> None:
        if not isinstance(engine, Engine):
            raise TypeError(f"expected an Engine, got {engine!r}")
        self.engine = engine
        self._ptr: Optional[int] = f.wasm_store_new(engine._live())
        if not self._ptr:
            raise WasmError("cannot make a store")
        _STORES.add(self)
        # externref values: the C side carries an opaque pointer; here it
        # is a key into this table, so the same object comes back.
        self._externs: Dict[int, Any] = {}
        self._extern_keys: Dict[int, int] = {}

    def _live(self) -> int:
        if not self._ptr:
            raise StoreClosed()
        return self._ptr

    def _extern_key(self, obj: Any) -> int:
        key = self._extern_keys.get(id(obj))
        if key is None:
            key = len(self._externs) + 1
            self._externs[key] = obj
            self._extern_keys[id(obj)] = key
        return key

    def set_fuel(self, fuel: int) -> None:
        """Gives the store ``fuel`` units (one per operator), replacing what
        was left. Needs ``Config(consume_fuel=True)``, else ``WasmError``."""
        if isinstance(fuel, bool) or not isinstance(fuel, int) or fuel < 0:
            raise TypeError(f"fuel is a non-negative int, not {fuel!r}")
        f.cranewasm_last_error_clear()
        if not f.cranewasm_store_set_fuel(self._live(), min(fuel, 2**64 - 1)):
            raise WasmError._from_library("cannot set the fuel")

    def get_fuel(self) -> int:
        """The fuel left. Needs ``Config(consume_fuel=True)``, else ``WasmError``."""
        out = c.c_uint64()
        f.cranewasm_last_error_clear()
        if not f.cranewasm_store_get_fuel(self._live(), c.byref(out)):
            raise WasmError._from_library("cannot read the fuel")
        return int(out.value)

    def set_epoch_deadline(self, ticks: int) -> None:
        """Calls trap with ``TrapCode.EPOCH_DEADLINE`` once the engine's epoch
        is ``ticks`` beyond the current one (``Engine.increment_epoch``);
        ignored without ``Config(epoch_interruption=True)``."""
        if isinstance(ticks, bool) or not isinstance(ticks, int) or ticks < 0:
            raise TypeError(f"ticks is a non-negative int, not {ticks!r}")
        f.cranewasm_store_set_epoch_deadline(self._live(), ticks)

    def set_limits(self, memory_size: Optional[int] = None, table_elements: Optional[int] = None,
                   instances: Optional[int] = None, memories: Optional[int] = None,
                   tables: Optional[int] = None) -> None:
        """Caps what the store may use (None: no cap): ``memory_size`` bytes
        per memory, ``table_elements`` per table, and how many
        ``instances``, ``memories`` and ``tables`` it may hold. A growth past
        a cap fails (``memory.grow`` gives -1, ``Memory.grow`` raises); an
        instantiation past one raises ``WasmError``."""
        caps = [memory_size, table_elements, instances, memories, tables]
        for cap in caps:
            if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap < 0):
                raise TypeError(f"a limit is a non-negative int or None, not {cap!r}")
        limits = f.StoreLimits(*[_NO_CAP if cap is None else min(cap, 2**63 - 1) for cap in caps])
        f.cranewasm_store_set_limits(self._live(), c.byref(limits))

    def interrupt_handle(self) -> InterruptHandle:
        """A handle that stops this store's calls from another thread (make
        it before the call it is to stop)."""
        ptr = f.cranewasm_store_interrupt_handle(self._live())
        if not ptr:
            raise WasmError("cannot make an interrupt handle")
        return InterruptHandle(ptr)

    def close(self) -> None:
        """Frees the store and everything in it now (also done when it is
        collected). Objects of the store then raise ``StoreClosed``."""
        if getattr(self, "_ptr", None):
            f.wasm_store_delete(self._ptr)
            self._ptr = None

    __del__ = close

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

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


_T = TypeVar("_T", bound="_InStore")


class _InStore:
    """A C object of a store, freed by ``_free`` unless the store went first."""

    _free: Callable[[int], None]

    def __init__(self, store: Store, ptr: int) -> None:
        self.store = store
        self._ptr: Optional[int] = ptr

    @classmethod
    def _wrap(cls: Type[_T], store: Store, ptr: int) -> _T:
        """A wrapper owning ``ptr``, an object the C library handed out."""
        obj = cls.__new__(cls)
        _InStore.__init__(obj, store, ptr)
        return obj

    def _live(self) -> int:
        """The C object, after checking that its store is open."""
        if not self.store._ptr or not self._ptr:
            raise StoreClosed()
        return self._ptr

    def __del__(self) -> None:
        store = getattr(self, "store", None)
        ptr = getattr(self, "_ptr", None)
        if ptr and store is not None and store._ptr:
            type(self)._free(ptr)
        self._ptr = None
