"""Python values to and from ``wasm_val_t``: the conversions every call,
global, table and host function goes through.

A GC reference handed out is a new reference object, adopted by the
``_gc`` wrapper made for it (a host function's argument, which the runtime
deletes after the callback, is copied first); one passed in is the
wrapper's own object, which stays the wrapper's.

As in WAMR, ``wasm_func_as_ref`` and ``wasm_ref_as_func`` make new objects
(which the store would free only when it goes): the ones made for a value
passed in are deleted by ``_release`` once the C call is done, and a
funcref handed out becomes the ``Func`` wrapper's own object. The 16 bytes
of a v128 handed out come from ``malloc`` and go back with ``free``
(``wasm_val_delete`` frees a ``wasm_val_t`` from ``malloc``, not one of
ctypes')."""

import ctypes as c
from typing import Any, List, Optional, Sequence, Tuple

from . import _ffi as f
from ._error import StoreClosed
from ._gc import AnyRef, _gc_ptr, _gc_value
from ._store import Store
from .types import ValType


class _Ref:
    """A reference object made to pass a value in: deleted by ``_release``."""

    __slots__ = ("ptr",)

    def __init__(self, ptr: Optional[int]) -> None:
        self.ptr = ptr


def _forget(keep: List[Any]) -> None:
    """Drops the reference objects in ``keep`` without deleting them: a C
    call took them (``wasm_table_set`` of a funcref)."""
    for k in keep:
        if isinstance(k, _Ref):
            k.ptr = None


def _release(keep: List[Any]) -> None:
    """Deletes the reference objects ``_to_c`` made into ``keep``, whose
    C call is done, and empties it."""
    for k in keep:
        if isinstance(k, _Ref) and k.ptr:
            f.wasm_ref_delete(k.ptr)
            k.ptr = None
    keep.clear()


def _to_c(store: Store, kind: int, value: Any, keep: List[Any]) -> f.Val:
    """A ``wasm_val_t`` of ``kind`` for a Python value; buffers and
    reference objects it needs go to ``keep`` (``_release`` it after the
    C call)."""
    v = f.Val()
    v.kind = kind
    try:
        if kind == f.I32:
            v.of.i32 = _int(value, 32)
        elif kind == f.I64:
            v.of.i64 = _int(value, 64)
        elif kind == f.F32:
            v.of.f32 = float(value)
        elif kind == f.F64:
            v.of.f64 = float(value)
        elif kind == f.V128:
            buf = (c.c_ubyte * 16).from_buffer_copy(_v128_bytes(value))
            keep.append(buf)
            v.of.ref = c.addressof(buf)
        elif isinstance(value, AnyRef) and kind in (f.EXTERNREF, f.FUNCREF):
            # The wrapper's own object: it stays the wrapper's (not in keep).
            v.of.ref = _gc_ptr(store, value)
        elif kind == f.EXTERNREF:
            v.of.ref = None if value is None else store._extern_key(value)
        elif kind == f.FUNCREF:
            from ._func import Func  # here, not above: _func imports this module
            if value is not None and not isinstance(value, Func):
                raise TypeError(f"a funcref is a Func or None, not {type(value).__name__}")
            if value is not None:
                ref = _Ref(f.wasm_func_as_ref(value._ptr))
                keep.append(ref)
                v.of.ref = ref.ptr
    except StoreClosed:
        raise
    except (TypeError, ValueError, OverflowError) as e:
        what = "a GC reference" if isinstance(value, AnyRef) else ValType(kind)
        raise TypeError(f"cannot pass {value!r} as {what}: {e}") from None
    return v


def _int(value: Any, bits: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("expected an int")
    if not -(1 << (bits - 1)) <= value < (1 << bits):
        raise OverflowError(f"out of range for i{bits}")
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _v128_bytes(value: Any) -> bytes:
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return bytes(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 1 << 128:
        return value.to_bytes(16, "little")
    raise TypeError("a v128 is 16 bytes or an int in [0, 2**128)")


def _from_c(store: Store, v: f.Val, owned: bool) -> Any:
    """The Python value of a ``wasm_val_t``. ``owned``: the value was handed
    out to us (its v128 bytes or reference object are ours to free)."""
    k = v.kind
    if k == f.I32:
        return v.of.i32
    if k == f.I64:
        return v.of.i64
    if k == f.F32:
        return v.of.f32
    if k == f.F64:
        return v.of.f64
    if k == f.V128:
        value = int.from_bytes(c.string_at(v.of.ref, 16), "little") if v.of.ref else 0
        if owned and v.of.ref:
            f.free(v.of.ref)
            v.of.ref = None
        return value
    if k == f.EXTERNREF:
        if not v.of.ref:
            return None
        if v.of.ref in store._externs:
            return store._externs[v.of.ref]
        return _gc_value(store, v.of.ref, owned)  # an anyref's, or None
    if k == f.FUNCREF:
        if not v.of.ref:
            return None
        if f.cranewasm_ref_gc_kind(v.of.ref) != f.REF_NOT_GC:
            # A concrete struct or array type has the funcref kind code.
            return _gc_value(store, v.of.ref, owned)
        from ._func import Func  # here, not above: _func imports this module
        ptr = f.wasm_ref_as_func(v.of.ref)  # a new object, the wrapper's own
        if owned:
            f.wasm_ref_delete(v.of.ref)
            v.of.ref = None
        return Func._wrap(store, ptr)
    raise TypeError(f"unknown value kind {k}")


def _val_vec(vals: Sequence[f.Val], capacity: int) -> Tuple[f.Vec, Any]:
    n = max(capacity, len(vals))
    arr = (f.Val * max(n, 1))(*vals)
    return f.Vec(n, c.addressof(arr), len(vals), c.sizeof(f.Val), None), arr
