"""Functions: calling wasm exports, and Python callables as host functions.

A host function is one C trampoline (``_host_call``) shared by all of them;
the env pointer the C library passes back is a key into ``_HOST``, where
the callable, its store and its value kinds wait."""

import builtins
import ctypes as c
import weakref
from typing import Callable, Dict

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from ._trap import Trap
from ._value import _from_c, _release, _to_c, _val_vec
from .types import FuncType

# The constructor's parameter is named ``callable``, as the public API has it.
builtins_callable = builtins.callable


class Func(_InStore):
    """A function: exported by an instance, or made from a Python callable::

        Func(store, FuncType([ValType.i32()], [ValType.i32()]), lambda x: x + 1)

    Calling it (``func(1)``) returns None, one value, or a tuple of values;
    a trap raises ``Trap``. An exception in a Python host function becomes
    a trap whose message names it."""

    _free = staticmethod(f.wasm_func_delete)

    def __init__(self, store: Store, ty: FuncType, callable: Callable):
        if not isinstance(store, Store) or not isinstance(ty, FuncType):
            raise TypeError("Func(store, FuncType, callable)")
        if not builtins_callable(callable):
            raise TypeError(f"{callable!r} is not callable")
        key = _HOST.add(store, ty, callable)
        ptr = f.wasm_func_new_with_env(store._live(), ty._ptr, _TRAMPOLINE, key, _FINALIZER)
        if not ptr:
            _HOST.funcs.pop(key, None)
            raise WasmError("wasm_func_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> FuncType:
        return FuncType._wrap(f.wasm_func_type(self._ptr))

    def _kinds(self):
        # A function's type never changes: read it once.
        kinds = self.__dict__.get("_kinds_cache")
        if kinds is None:
            ty = self.type
            kinds = self._kinds_cache = ([p.kind for p in ty.params], [r.kind for r in ty.results])
        return kinds

    def __call__(self, *args):
        store = self.store
        store._live()
        params, results = self._kinds()
        if len(args) != len(params):
            raise TypeError(f"expected {len(params)} arguments, got {len(args)}")
        keep: list = []
        try:
            pvec, parr = _val_vec([_to_c(store, k, a, keep) for k, a in zip(params, args)], len(params))
            rvec, rarr = _val_vec((), len(results))
            trap = f.wasm_func_call(self._ptr, c.byref(pvec), c.byref(rvec))
        finally:
            _release(keep)
        if trap:
            raise Trap._take(trap)
        if len(results) == 1:
            return _from_c(store, rarr[0], owned=True)
        out = tuple(_from_c(store, rarr[i], owned=True) for i in range(len(results)))
        return out or None

    def __repr__(self) -> str:
        return f"Func({self.type!r})"


class _HostFuncs:
    """Python callables behind host functions, by env key."""

    def __init__(self):
        self.funcs: Dict[int, tuple] = {}
        self.next = 1

    def add(self, store: Store, ty: FuncType, fn: Callable) -> int:
        key = self.next
        self.next += 1
        # The store by weak reference: this table is global, and the entry
        # goes only when the C store is deleted, which happens when the
        # Python store is collected; a strong reference here would keep
        # both (and the callable) alive until the interpreter exits. The C
        # store calls the function only while the Python store is alive.
        self.funcs[key] = (weakref.ref(store), [p.kind for p in ty.params], [r.kind for r in ty.results], fn)
        return key


_HOST = _HostFuncs()


def _host_call(env, args, results):
    entry = _HOST.funcs.get(env)
    if entry is None:
        return None
    store_ref, pkinds, rkinds, fn = entry
    store = store_ref()
    if store is None:
        return None
    try:
        a = args.contents
        vals = c.cast(a.data, c.POINTER(f.Val)) if a.data else None
        py_args = [_from_c(store, vals[i], owned=False) for i in range(len(pkinds))]
        out = fn(*py_args)
        if len(rkinds) == 0:
            out = ()
        elif len(rkinds) == 1:
            out = (out,)
        elif not isinstance(out, (tuple, list)) or len(out) != len(rkinds):
            raise TypeError(f"a host function of {len(rkinds)} results must return a tuple of them")
        r = results.contents
        slots = c.cast(r.data, c.POINTER(f.Val))
        keep = _HOST_KEEP
        _release(keep)
        for i, (k, v) in enumerate(zip(rkinds, out)):
            slots[i] = _to_c(store, k, v, keep)
        return None
    except BaseException as e:  # everything becomes a trap: never unwind through C
        msg = f.byte_vec(f"{type(e).__name__}: {e}".encode() + b"\0")
        t = f.wasm_trap_new(store._ptr, c.byref(msg))
        f.wasm_byte_vec_delete(c.byref(msg))
        return t


# v128 results of a host function, and the reference objects made for
# funcref results, must outlive the callback's return until the runtime
# reads them: they live here until the next call.
_HOST_KEEP: list = []


def _finalize(env):
    _HOST.funcs.pop(env, None)


_TRAMPOLINE = f.Callback(_host_call)
_FINALIZER = f.Finalizer(_finalize)
# The C library holds these two pointers for as long as any store has a
# host function: never let Python free them, even at shutdown.
c.pythonapi.Py_IncRef(c.py_object(_TRAMPOLINE))
c.pythonapi.Py_IncRef(c.py_object(_FINALIZER))
