"""Functions: calling wasm exports, and Python callables as host functions.

A host function is one C trampoline (``_host_call``) shared by all of them;
the env pointer the C library passes back is a key into ``_HOST``, where
the callable, its store and its value kinds wait. A Python exception in
one becomes a trap (never unwinding through C); the call that the trap
ends raises ``Trap`` with that exception as its ``__cause__``. A
``WasmException`` is thrown into the wasm caller instead, which may catch
it."""

import builtins
import ctypes as c
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _ffi as f
from ._error import WasiExit, WasmError
from ._hints import functype_of
from ._store import Store, _InStore
from ._tag import _check_payload, _tag_of_trap
from ._trap import Trap, WasmException
from ._value import _from_c, _release, _to_c, _val_vec
from .types import FuncType

# The constructor's parameter is named ``callable``, as the public API has it.
builtins_callable = builtins.callable


class Func(_InStore):
    """A function: exported by an instance, or made from a Python callable::

        Func(store, FuncType([ValType.i32()], [ValType.i32()]), lambda x: x + 1)
        Func(store, None, add)      # the type from add's hints: def add(x: int, y: int) -> int

    Calling it (``func(1)``) returns None, one value, or a tuple of values;
    a trap raises ``Trap``, a WASI ``proc_exit`` ``WasiExit``, a wrong
    number of arguments or a value of the wrong type ``TypeError``."""

    _free = staticmethod(f.wasm_func_delete)

    def __init__(self, store: Store, ty: Optional[FuncType], callable: Callable[..., Any]) -> None:
        if not isinstance(store, Store):
            raise TypeError(f"Func(store, FuncType or None, callable): {store!r} is not a Store")
        if not builtins_callable(callable):
            raise TypeError(f"{callable!r} is not callable")
        if ty is None:
            ty = functype_of(callable)
        elif not isinstance(ty, FuncType):
            raise TypeError(f"Func(store, FuncType or None, callable): {ty!r} is not a FuncType")
        key = _HOST.add(store, ty, callable)
        ptr = f.wasm_func_new_with_env(store._live(), ty._ptr, _TRAMPOLINE, key, _FINALIZER)
        if not ptr:
            _HOST.funcs.pop(key, None)
            raise WasmError("wasm_func_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> FuncType:
        """The function's type."""
        return FuncType._wrap(f.wasm_func_type(self._live()))

    def _kinds(self) -> Tuple[List[int], List[int]]:
        # A function's type never changes: read it once.
        kinds: Optional[Tuple[List[int], List[int]]] = self.__dict__.get("_kinds_cache")
        if kinds is None:
            ty = self.type
            kinds = self._kinds_cache = ([p.kind for p in ty.params], [r.kind for r in ty.results])
        return kinds

    def __call__(self, *args: Any) -> Any:
        store = self.store
        store._live()
        params, results = self._kinds()
        if len(args) != len(params):
            raise TypeError(f"expected {len(params)} arguments, got {len(args)}")
        keep: List[Any] = []
        try:
            pvec, parr = _val_vec([_to_c(store, k, a, keep) for k, a in zip(params, args)], len(params))
            rvec, rarr = _val_vec((), len(results))
            trap = f.wasm_func_call(self._ptr, c.byref(pvec), c.byref(rvec))
        finally:
            _release(keep)
        if trap:
            raise _call_error(trap, store)
        if len(results) == 1:
            return _from_c(store, rarr[0], owned=True)
        out = tuple(_from_c(store, rarr[i], owned=True) for i in range(len(results)))
        return out or None

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "Func(<store closed>)"
        return f"Func({self.type!r})"


def _call_error(trap: int, store: Store) -> BaseException:
    """The exception for the trap a call returned (deleted here): a
    ``WasiExit`` for a WASI exit, a ``WasmException`` for an uncaught wasm
    exception, else a ``Trap``, caused by the Python exception of a host
    function when that is what trapped."""
    status = c.c_int32()
    if f.cranewasm_trap_exit_status(trap, c.byref(status)):
        f.wasm_trap_delete(trap)
        _PENDING.error = None
        return WasiExit(status.value)
    vec = f.Vec()
    if f.cranewasm_trap_exception_payload(trap, c.byref(vec)):
        vals = c.cast(vec.data, c.POINTER(f.Val))
        # Owned: each reference or v128 is freed as it is read.
        payload = [_from_c(store, vals[i], owned=True) for i in range(vec.num_elems)]
        f.wasm_val_vec_delete(c.byref(vec))
        tag = _tag_of_trap(store, trap)
        read = Trap._take(trap)
        _PENDING.error = None
        if tag is None:  # the library gives every exception's tag
            return WasmError("an uncaught wasm exception without a tag")
        return WasmException(tag, payload, read.message, read.frames)
    t = Trap._take(trap)
    cause: Optional[BaseException] = getattr(_PENDING, "error", None)
    _PENDING.error = None
    if cause is not None and t.code is None:
        if isinstance(cause, WasiExit):
            return cause
        t.__cause__ = cause
    return t


# The exception of the last host function that failed on this thread,
# until the call it ends raises.
_PENDING = threading.local()


class _HostFuncs:
    """Python callables behind host functions, by env key."""

    def __init__(self) -> None:
        self.funcs: Dict[int, Tuple["weakref.ref[Store]", List[int], List[int], Callable[..., Any]]] = {}
        self.next = 1

    def add(self, store: Store, ty: FuncType, fn: Callable[..., Any]) -> int:
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


def _host_call(env: int, args: Any, results: Any) -> Optional[int]:
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
        py_args = [_from_c(store, vals[i], owned=False) for i in range(len(pkinds))]  # type: ignore[index]
        out: Union[Any, Tuple[Any, ...]] = fn(*py_args)
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
    except WasmException as e:
        try:
            return _throw(store, e)
        except BaseException as bad:  # a bad tag or payload: as any error
            return _error_trap(store, bad)
    except BaseException as e:  # everything becomes a trap: never unwind through C
        return _error_trap(store, e)


def _error_trap(store: Store, e: BaseException) -> int:
    """The trap a host function returns for its Python exception ``e``,
    which the call it ends raises as the trap's cause."""
    _PENDING.error = e
    msg = f.byte_vec(f"{type(e).__name__}: {e}".encode() + b"\0")
    t: int = f.wasm_trap_new(store._ptr, c.byref(msg))
    f.wasm_byte_vec_delete(c.byref(msg))
    return t


def _throw(store: Store, e: WasmException) -> int:
    """The trap that throws ``e`` (a tag of ``store`` and its payload) into
    the wasm caller of a host function."""
    if e.tag.store is not store:
        raise WasmError("the exception's tag belongs to another store")
    kinds = _check_payload(e.tag, e.payload)
    keep: List[Any] = []
    try:
        vec, _arr = _val_vec([_to_c(store, k, v, keep) for k, v in zip(kinds, e.payload)], len(kinds))
        f.cranewasm_last_error_clear()
        t: Optional[int] = f.cranewasm_trap_new_exception(store._ptr, e.tag._live(), c.byref(vec))
    finally:
        _release(keep)
    if not t:
        raise WasmError._from_library("cannot throw the exception")
    return t


# v128 results of a host function, and the reference objects made for
# funcref results, must outlive the callback's return until the runtime
# reads them: they live here until the next call.
_HOST_KEEP: List[Any] = []


def _finalize(env: int) -> None:
    _HOST.funcs.pop(env, None)


_TRAMPOLINE = f.Callback(_host_call)
_FINALIZER = f.Finalizer(_finalize)
# The C library holds these two pointers for as long as any store has a
# host function: never let Python free them, even at shutdown.
c.pythonapi.Py_IncRef(c.py_object(_TRAMPOLINE))
c.pythonapi.Py_IncRef(c.py_object(_FINALIZER))
