"""GC references (the GC proposal's anyref and its subtypes): i31s,
structs and arrays, as wasm hands them out and as the host makes them.

The C library hands each one out as a new reference object that pins its
referent (the collector keeps it alive, and follows it when it moves) until
the object is deleted: the wrapper here owns that object and deletes it
when collected, so a reference Python holds survives any number of
collections, and passing it back in gives wasm the same object. Equality
is ``ref.eq`` (``wasm_ref_same``): two wrappers of one object are equal,
two structs with equal fields are not; wrappers are not hashable, as the
objects they stand for may change.

Field and element values go through ``_value``'s conversions, with the
kind the library reports for the field: a packed i8 or i16 is an int,
zero-extended by ``s[i]`` (``get(i, signed=True)`` sign-extends), and a
write keeps its low bits, as ``struct.set`` does.

Indices are Python's: ``s[-1]`` is the last field, ``a[-1]`` the last
element; past either end is an ``IndexError``. Everything else the library
refuses (an immutable field, a value of the wrong type, a full heap)
raises ``WasmError`` with its reason."""

import ctypes as c
import weakref
from typing import Any, Callable, Dict, Iterator, List, NamedTuple, Optional, Sequence, Type, TypeVar

from . import _ffi as f
from . import _value  # a cycle: _value imports this module, and only uses it at run time
from ._error import WasmError
from ._module import Module
from ._store import Store, _InStore
from .types import ValType


class FieldType(NamedTuple):
    """The type of a struct field or of an array's elements: ``valtype``
    (``ValType.i32()`` for a packed field), ``packed`` (its width in bits:
    8, 16, or 0 for a field that is not packed) and ``mutable``."""

    valtype: ValType
    packed: int
    mutable: bool


def _index(i: Any, n: int, what: str) -> int:
    """``i`` as an index into ``n`` fields or elements, counted from the
    end when negative (as Python sequences do)."""
    if isinstance(i, bool) or not isinstance(i, int):
        raise TypeError(f"{what} indices are ints, not {type(i).__name__}")
    j = i + n if i < 0 else i
    if not 0 <= j < n:
        raise IndexError(f"{what} index {i} out of range ({n} {what}s)")
    return j


def _field_type(getter: Callable[..., bool], *args: Any) -> FieldType:
    kind, bits, mutable = c.c_uint8(), c.c_uint8(), c.c_bool()
    f.cranewasm_last_error_clear()
    if not getter(*args, c.byref(kind), c.byref(bits), c.byref(mutable)):
        raise WasmError._from_library("cannot read the field type")  # pragma: no cover (indices are checked)
    return FieldType(ValType(kind.value), int(bits.value), bool(mutable.value))


class AnyRef(_InStore):
    """A GC reference of a store: what an ``anyref`` (or ``eqref``, or a
    struct or array type) result, global or table element holds. Its
    subclasses say what it is: ``I31``, ``StructRef``, ``ArrayRef``; a
    plain ``AnyRef`` is host data that wasm made internal
    (``any.convert_extern``), which the host can only pass back (and
    ``extern.convert_any`` in wasm turns into the Python object again).

    ``a == b`` is ``ref.eq``. Passing it to another store raises
    ``TypeError``; using it after its store is closed, ``StoreClosed``."""

    _free = staticmethod(f.wasm_ref_delete)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AnyRef):
            return NotImplemented
        return bool(f.wasm_ref_same(self._live(), other._live()))

    # Equal objects may stop being equal to anything hashed with them (a
    # struct's fields change): no hashing, as for lists.
    __hash__ = None  # type: ignore[assignment]

    def type_index(self, module: Module) -> int:
        """The index of this struct's or array's type in ``module``'s type
        section; ``WasmError`` for an i31, or a type the module lacks."""
        out = c.c_uint32()
        f.cranewasm_last_error_clear()
        if not f.cranewasm_ref_type_index(self._live(), module._live(), c.byref(out)):
            raise WasmError._from_library("the reference has no type of that module")
        return int(out.value)

    def __repr__(self) -> str:
        if not self.store._ptr:
            return f"{type(self).__name__}(<store closed>)"
        return f"{type(self).__name__}()"


class I31(AnyRef):
    """An ``i31ref``: a 31-bit integer that is a reference. ``I31.new(store,
    -5)``; ``.value`` reads it signed, ``.unsigned`` zero-extended. Two
    i31s of one value are equal (``ref.eq``)."""

    @classmethod
    def new(cls, store: Store, value: int) -> "I31":
        """An i31 of ``value``, signed (from -2**30) or unsigned (below
        2**31); ``ValueError`` outside that range."""
        if not isinstance(store, Store):
            raise TypeError(f"I31.new(store, value): {store!r} is not a Store")
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"an i31 is an int, not {type(value).__name__}")
        if not -(1 << 30) <= value < 1 << 31:
            raise ValueError(f"{value} does not fit in 31 bits")
        ptr = f.cranewasm_ref_i31_new(store._live(), value - (1 << 32) if value >= 1 << 31 else value)
        if not ptr:
            raise WasmError._from_library("cannot make an i31")  # pragma: no cover (the store is live)
        return _adopt(cls, store, ptr)

    def _get(self, signed: bool) -> int:
        out = c.c_int32()
        f.cranewasm_last_error_clear()
        if not f.cranewasm_ref_i31_get(self._live(), signed, c.byref(out)):
            raise WasmError._from_library("not an i31")  # pragma: no cover (an I31 is one)
        return int(out.value)

    @property
    def value(self) -> int:
        """The value, sign-extended from 31 bits (``i31.get_s``)."""
        return self._get(True)

    @property
    def unsigned(self) -> int:
        """The value, zero-extended from 31 bits (``i31.get_u``)."""
        return self._get(False)

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "I31(<store closed>)"
        return f"I31({self.value})"


class StructRef(AnyRef):
    """A struct: ``len(s)`` fields, read with ``s[i]`` (a packed field
    zero-extended; ``s.get(i, signed=True)`` sign-extends), written with
    ``s[i] = v`` (``WasmError`` for an immutable field). ``field_type(i)``
    tells a field's type. ``StructRef.new(store, module, type_index,
    fields)`` makes one from the host."""

    @classmethod
    def new(cls, store: Store, module: Module, type_index: int,
            fields: Optional[Sequence[Any]] = None) -> "StructRef":
        """A struct of type ``type_index`` of ``module`` (its index in the
        module's type section), made in ``store`` (of the module's engine),
        with ``fields`` in order, or every field at its default (zero,
        null) when None."""
        _check_new(store, module, type_index)
        if fields is None:
            return _adopt(cls, store, _struct_new(store, module, type_index, None))
        values = list(fields)
        kinds = _layout(store, module, type_index, values)
        if len(kinds) != len(values):
            raise TypeError(f"the struct type has {len(kinds)} fields; {len(values)} values were given")
        keep: List[Any] = []
        try:
            vals = [_value._to_c(store, k, v, keep) for k, v in zip(kinds, values)]
            return _adopt(cls, store, _struct_new(store, module, type_index, vals))
        finally:
            _value._release(keep)

    def __len__(self) -> int:
        return int(f.cranewasm_struct_field_count(self._live()))

    def field_type(self, index: int) -> FieldType:
        """The type of field ``index``."""
        return _field_type(f.cranewasm_struct_field_type, self._live(), _index(index, len(self), "field"))

    def get(self, index: int, signed: bool = False) -> Any:
        """Field ``index``; a packed one sign-extended if ``signed``, else
        zero-extended."""
        return _read(self, f.cranewasm_struct_get, _index(index, len(self), "field"), signed)

    def __getitem__(self, index: int) -> Any:
        return self.get(index)

    def __setitem__(self, index: int, value: Any) -> None:
        i = _index(index, len(self), "field")
        _write(self, f.cranewasm_struct_set, i, self.field_type(i).valtype.kind, value)

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "StructRef(<store closed>)"
        return f"StructRef({len(self)} fields)"


class ArrayRef(AnyRef):
    """An array: ``len(a)`` elements, read with ``a[i]`` (packed ones
    zero-extended; ``a.get(i, signed=True)`` sign-extends) or by iterating,
    written with ``a[i] = v``. ``ArrayRef.new(store, module, type_index,
    length, init)`` makes one from the host. No slices: an element at a
    time, as wasm reads them."""

    @classmethod
    def new(cls, store: Store, module: Module, type_index: int, length: int, init: Any = None) -> "ArrayRef":
        """An array of type ``type_index`` of ``module`` with ``length``
        elements, each ``init``, or each at its default (zero, null) when
        None; made in ``store`` (of the module's engine)."""
        _check_new(store, module, type_index)
        if isinstance(length, bool) or not isinstance(length, int) or not 0 <= length < 1 << 32:
            raise ValueError(f"an array length is an int in [0, 2**32), not {length!r}")
        keep: List[Any] = []
        try:
            v = None
            if init is not None:
                v = c.byref(_value._to_c(store, _elem_kind(store, module, type_index, init), init, keep))
            f.cranewasm_last_error_clear()
            ptr = f.cranewasm_array_new(store._live(), module._live(), type_index, v, length)
        finally:
            _value._release(keep)
        if not ptr:
            raise WasmError._from_library("cannot make the array")
        return _adopt(cls, store, ptr)

    def __len__(self) -> int:
        out = c.c_uint32()
        f.cranewasm_array_len(self._live(), c.byref(out))
        return int(out.value)

    def elem_type(self) -> FieldType:
        """The type of the elements."""
        return _field_type(f.cranewasm_array_elem_type, self._live())

    def get(self, index: int, signed: bool = False) -> Any:
        """Element ``index``; a packed one sign-extended if ``signed``, else
        zero-extended."""
        return _read(self, f.cranewasm_array_get, _index(index, len(self), "element"), signed)

    def __getitem__(self, index: int) -> Any:
        return self.get(index)

    def __setitem__(self, index: int, value: Any) -> None:
        i = _index(index, len(self), "element")
        _write(self, f.cranewasm_array_set, i, self.elem_type().valtype.kind, value)

    def __iter__(self) -> Iterator[Any]:
        for i in range(len(self)):
            yield self.get(i)

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "ArrayRef(<store closed>)"
        return f"ArrayRef({len(self)} elements)"


_A = TypeVar("_A", bound=AnyRef)
_CLASSES: Dict[int, Type[AnyRef]] = {f.REF_I31: I31, f.REF_STRUCT: StructRef, f.REF_ARRAY: ArrayRef}

# The reference objects of live wrappers, by pointer: one passed where an
# externref goes comes back as the same pointer, and is that wrapper
# (adopting it again would delete it twice).
_LIVE: "weakref.WeakValueDictionary[int, AnyRef]" = weakref.WeakValueDictionary()


def _adopt(cls: Type[_A], store: Store, ptr: int) -> _A:
    """A ``cls`` wrapper owning the reference object ``ptr``."""
    obj = cls._wrap(store, ptr)
    _LIVE[ptr] = obj
    return obj


def _gc_value(store: Store, ptr: int, owned: bool) -> Optional[AnyRef]:
    """The wrapper for reference ``ptr`` of ``store`` if it is a GC
    reference, else None. ``owned``: the object is ours (a result), adopted;
    otherwise (a host function's argument, which the runtime deletes after
    the call) the wrapper gets a copy."""
    known = _LIVE.get(ptr)
    if known is not None and known.store is store and known._ptr == ptr:
        return known
    kind = f.cranewasm_ref_gc_kind(ptr)
    if kind == f.REF_NOT_GC:
        return None
    if not owned:
        ptr = f.wasm_ref_copy(ptr)
    return _adopt(_CLASSES.get(kind, AnyRef), store, ptr)


def _gc_ptr(store: Store, value: AnyRef) -> int:
    """The reference object to pass for ``value`` in a call of ``store``
    (the wrapper keeps it: nothing deletes it after the call)."""
    if value.store is not store:
        raise TypeError("the reference belongs to another store")
    return value._live()


def _read(ref: AnyRef, getter: Callable[..., bool], index: int, signed: bool) -> Any:
    out = f.Val()
    f.cranewasm_last_error_clear()
    if not getter(ref._live(), index, signed, c.byref(out)):
        raise WasmError._from_library("cannot read the field")  # pragma: no cover (indices are checked)
    return _value._from_c(ref.store, out, owned=True)


def _write(ref: AnyRef, setter: Callable[..., bool], index: int, kind: int, value: Any) -> None:
    keep: List[Any] = []
    try:
        v = _value._to_c(ref.store, kind, value, keep)
        f.cranewasm_last_error_clear()
        done = setter(ref._live(), index, c.byref(v))
    finally:
        _value._release(keep)
    if not done:
        raise WasmError._from_library("cannot set the field")


def _check_new(store: Store, module: Module, type_index: int) -> None:
    if not isinstance(store, Store) or not isinstance(module, Module):
        raise TypeError("expected (store, module, type_index, ...)")
    if isinstance(type_index, bool) or not isinstance(type_index, int) or not 0 <= type_index < 1 << 32:
        raise TypeError(f"a type index is a non-negative int, not {type_index!r}")


# The value kinds of struct fields and array elements, by module and type
# index: the C API says them only of an existing struct or array.
_KINDS: "weakref.WeakKeyDictionary[Module, Dict[int, List[int]]]" = weakref.WeakKeyDictionary()


def _kinds_of(ptr: int) -> List[int]:
    """The field kinds of struct ``ptr``, or the element kind of array ``ptr``."""
    if f.cranewasm_ref_gc_kind(ptr) == f.REF_ARRAY:
        return [_field_type(f.cranewasm_array_elem_type, ptr).valtype.kind]
    n = f.cranewasm_struct_field_count(ptr)
    return [_field_type(f.cranewasm_struct_field_type, ptr, i).valtype.kind for i in range(n)]


def _probe(store: Store, module: Module, type_index: int, array: bool) -> Optional[List[int]]:
    """The kinds of type ``type_index``, learned from a default struct or an
    empty array; None for a type without defaults (a non-null reference),
    or one the module lacks."""
    known = _KINDS.setdefault(module, {})
    if type_index not in known:
        f.cranewasm_last_error_clear()
        if array:
            ptr = f.cranewasm_array_new(store._live(), module._live(), type_index, None, 0)
        else:
            ptr = f.cranewasm_struct_new(store._live(), module._live(), type_index, None)
        if not ptr:
            return None
        known[type_index] = _kinds_of(ptr)
        f.wasm_ref_delete(ptr)
    return known[type_index]


def _guess(value: Any) -> int:
    """A kind for ``value`` when its field's type is unknown: a reference's
    own, else v128 (see ``_layout``)."""
    from ._func import Func  # here, not above: _func imports _value, which imports this module
    if value is None or isinstance(value, AnyRef):
        return f.EXTERNREF
    return f.FUNCREF if isinstance(value, Func) else f.V128


def _layout(store: Store, module: Module, type_index: int, values: List[Any]) -> List[int]:
    """The field kinds of struct type ``type_index``, for making one of
    ``values``.

    A type with a non-null reference field has no default to learn them
    from, so a first struct is made with references as they are and every
    other value as a v128 (whose 16 bytes any numeric field may read
    safely; what it reads is thrown away), and its fields say the kinds."""
    kinds = _probe(store, module, type_index, array=False)
    if kinds is not None:
        return kinds
    guessed = [_guess(v) for v in values]
    keep: List[Any] = []
    try:
        vals = [_value._to_c(store, k, v if k != f.V128 else 0, keep) for k, v in zip(guessed, values)]
        ptr = _struct_new(store, module, type_index, vals)
    finally:
        _value._release(keep)
    kinds = _kinds_of(ptr)
    f.wasm_ref_delete(ptr)
    _KINDS.setdefault(module, {})[type_index] = kinds
    return kinds


def _elem_kind(store: Store, module: Module, type_index: int, init: Any) -> int:
    """The element kind of array type ``type_index``: an array without
    defaults holds non-null references, so ``init`` says which kind."""
    kinds = _probe(store, module, type_index, array=True)
    if kinds is not None:
        return kinds[0]
    guessed = _guess(init)
    return f.EXTERNREF if guessed == f.V128 else guessed


def _struct_new(store: Store, module: Module, type_index: int, vals: Optional[List[f.Val]]) -> int:
    """A new struct of these field values (None: the defaults)."""
    vec_ref = None
    if vals is not None:
        vec, _arr = _value._val_vec(vals, len(vals))  # _arr holds the values during the call
        vec_ref = c.byref(vec)
    f.cranewasm_last_error_clear()
    ptr: Optional[int] = f.cranewasm_struct_new(store._live(), module._live(), type_index, vec_ref)
    if not ptr:
        raise WasmError._from_library("cannot make the struct")
    return ptr
