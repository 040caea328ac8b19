"""Type objects: value, function, global, table, memory, import and export
types. Each owns its C object and frees it once; types belong to no store."""

import ctypes as c
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Type, TypeVar, Union

from . import _ffi as f


class ValType:
    """A value type: ``ValType.i32()``, ..., ``ValType.funcref()``."""

    _NAMES: Dict[int, str] = {f.I32: "i32", f.I64: "i64", f.F32: "f32", f.F64: "f64", f.V128: "v128",
              f.EXTERNREF: "externref", f.FUNCREF: "funcref"}

    def __init__(self, kind: int) -> None:
        if kind not in self._NAMES:
            raise ValueError(f"not a value kind: {kind!r}")
        self.kind = kind

    @classmethod
    def i32(cls) -> "ValType":
        """A 32-bit integer (a Python int)."""
        return cls(f.I32)

    @classmethod
    def i64(cls) -> "ValType":
        """A 64-bit integer (a Python int)."""
        return cls(f.I64)

    @classmethod
    def f32(cls) -> "ValType":
        """A 32-bit float (a Python float)."""
        return cls(f.F32)

    @classmethod
    def f64(cls) -> "ValType":
        """A 64-bit float (a Python float)."""
        return cls(f.F64)

    @classmethod
    def v128(cls) -> "ValType":
        """A 128-bit vector (16 bytes, or an int in [0, 2**128))."""
        return cls(f.V128)

    @classmethod
    def externref(cls) -> "ValType":
        """A host reference (any Python object, or None)."""
        return cls(f.EXTERNREF)

    @classmethod
    def funcref(cls) -> "ValType":
        """A function reference (a Func, or None)."""
        return cls(f.FUNCREF)

    def _new_c(self) -> int:
        return int(f.wasm_valtype_new(self.kind))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValType) and other.kind == self.kind

    def __hash__(self) -> int:
        return hash(self.kind)

    def __str__(self) -> str:
        return self._NAMES[self.kind]

    def __repr__(self) -> str:
        return f"ValType.{self}()"


def _valtypes_of(vec: Any) -> List[ValType]:
    return [ValType(f.wasm_valtype_kind(p)) for p in f.elems(vec.contents)]


def _valtype_vec(types: Sequence[ValType]) -> f.Vec:
    for t in types:
        if not isinstance(t, ValType):
            raise TypeError(f"expected a ValType, got {t!r}")
    v = f.Vec()
    arr = (c.c_void_p * max(len(types), 1))(*[t._new_c() for t in types])
    f.wasm_valtype_vec_new(c.byref(v), len(types), arr)
    return v


_O = TypeVar("_O", bound="_Owned")


class _Owned:
    """A C type object this wrapper owns (``_delete`` frees it)."""

    _delete: Callable[[int], None]

    def __init__(self, ptr: int, owner: Any = None) -> None:
        if not ptr:
            raise ValueError(f"cannot make a {type(self).__name__}")
        self._ptr = ptr
        # A type borrowed from another object keeps that object alive.
        self._owner = owner

    @classmethod
    def _wrap(cls: Type[_O], ptr: int, owner: Any = None) -> _O:
        """A wrapper of ``ptr`` (borrowed from ``owner`` when given, else owned)."""
        t = cls.__new__(cls)
        _Owned.__init__(t, ptr, owner)
        return t

    def __del__(self) -> None:
        if getattr(self, "_owner", 1) is None and getattr(self, "_ptr", None):
            type(self)._delete(self._ptr)
            self._ptr = 0


class FuncType(_Owned):
    """A function type: ``FuncType([ValType.i32()], [ValType.i32()])``."""

    _delete = staticmethod(f.wasm_functype_delete)

    def __init__(self, params: Sequence[ValType], results: Sequence[ValType]) -> None:
        p, r = _valtype_vec(list(params)), _valtype_vec(list(results))
        super().__init__(f.wasm_functype_new(c.byref(p), c.byref(r)))

    @property
    def params(self) -> List[ValType]:
        """The parameter types."""
        return _valtypes_of(f.wasm_functype_params(self._ptr))

    @property
    def results(self) -> List[ValType]:
        """The result types."""
        return _valtypes_of(f.wasm_functype_results(self._ptr))

    def __repr__(self) -> str:
        return f"FuncType({self.params}, {self.results})"


class GlobalType(_Owned):
    """A global's content type and mutability."""

    _delete = staticmethod(f.wasm_globaltype_delete)

    def __init__(self, content: ValType, mutable: bool) -> None:
        if not isinstance(content, ValType):
            raise TypeError(f"expected a ValType, got {content!r}")
        super().__init__(f.wasm_globaltype_new(content._new_c(), f.VAR if mutable else f.CONST))

    @property
    def content(self) -> ValType:
        """The type of the value."""
        return ValType(f.wasm_valtype_kind(f.wasm_globaltype_content(self._ptr)))

    @property
    def mutable(self) -> bool:
        """Whether the global may be set."""
        return bool(f.wasm_globaltype_mutability(self._ptr) == f.VAR)

    def __repr__(self) -> str:
        return f"GlobalType({self.content!r}, mutable={self.mutable})"


def _limits(minimum: int, maximum: Optional[int]) -> f.Limits:
    if minimum < 0 or (maximum is not None and maximum < minimum):
        raise ValueError(f"bad limits: min {minimum}, max {maximum}")
    return f.Limits(minimum, f.NO_MAX if maximum is None else maximum)


def _limits64(minimum: int, maximum: Optional[int]) -> f.Limits64:
    if minimum < 0 or (maximum is not None and maximum < minimum):
        raise ValueError(f"bad limits: min {minimum}, max {maximum}")
    return f.Limits64(minimum, f.NO_MAX64 if maximum is None else maximum)


def _limits_of(p: Any) -> Tuple[int, Optional[int]]:
    """Whole limits (``cranewasm_*_limits64``), for 32- and 64-bit types."""
    lim = p.contents
    return lim.min, None if lim.max == f.NO_MAX64 else lim.max


class TableType(_Owned):
    """A table's element type and limits (``maximum=None``: no maximum);
    ``is64=True`` (table64) indexes it with i64."""

    _delete = staticmethod(f.wasm_tabletype_delete)

    def __init__(self, element: ValType, minimum: int, maximum: Optional[int] = None, is64: bool = False) -> None:
        if not isinstance(element, ValType) or element.kind not in (f.FUNCREF, f.EXTERNREF):
            raise TypeError(f"a table holds funcref or externref, not {element!r}")
        if is64:
            lim64 = _limits64(minimum, maximum)
            super().__init__(f.cranewasm_tabletype_new64(element._new_c(), c.byref(lim64)))
        else:
            lim = _limits(minimum, maximum)
            super().__init__(f.wasm_tabletype_new(element._new_c(), c.byref(lim)))

    @property
    def element(self) -> ValType:
        """The element type (funcref or externref)."""
        return ValType(f.wasm_valtype_kind(f.wasm_tabletype_element(self._ptr)))

    @property
    def limits(self) -> Tuple[int, Optional[int]]:
        """``(minimum, maximum or None)``."""
        return _limits_of(f.cranewasm_tabletype_limits64(self._ptr))

    @property
    def is64(self) -> bool:
        """Whether the table is indexed with i64 (table64)."""
        return bool(f.cranewasm_tabletype_is64(self._ptr))

    def __repr__(self) -> str:
        is64 = ", is64=True" if self.is64 else ""
        return f"TableType({self.element!r}, {self.limits[0]}, {self.limits[1]}{is64})"


class MemoryType(_Owned):
    """A memory's limits in 64 KiB pages (``maximum=None``: no maximum).
    ``shared=True`` (the threads proposal; a maximum is required) makes a
    memory that several instances may import and that never moves: views
    of its bytes stay valid when it grows. ``is64=True`` (memory64) makes
    a memory addressed with i64."""

    _delete = staticmethod(f.wasm_memorytype_delete)

    def __init__(self, minimum: int, maximum: Optional[int] = None, shared: bool = False,
                 is64: bool = False) -> None:
        if shared and maximum is None:
            raise ValueError("a shared memory needs a maximum")
        if shared and is64:
            raise ValueError("a shared 64-bit memory cannot be made through the C API")
        if is64:
            lim64 = _limits64(minimum, maximum)
            super().__init__(f.cranewasm_memorytype_new64(c.byref(lim64)))
            return
        lim = _limits(minimum, maximum)
        new = f.cranewasm_memorytype_new_shared if shared else f.wasm_memorytype_new
        super().__init__(new(c.byref(lim)))

    @property
    def limits(self) -> Tuple[int, Optional[int]]:
        """``(minimum, maximum or None)``."""
        return _limits_of(f.cranewasm_memorytype_limits64(self._ptr))

    @property
    def is64(self) -> bool:
        """Whether the memory is addressed with i64 (memory64)."""
        return bool(f.cranewasm_memorytype_is64(self._ptr))

    @property
    def shared(self) -> bool:
        """Whether the memory is shared (the threads proposal)."""
        return bool(f.cranewasm_memorytype_is_shared(self._ptr))

    def __repr__(self) -> str:
        shared = ", shared=True" if self.shared else ""
        is64 = ", is64=True" if self.is64 else ""
        return f"MemoryType({self.limits[0]}, {self.limits[1]}{shared}{is64})"


ExternType = Union["FuncType", "GlobalType", "TableType", "MemoryType"]


def extern_type(ptr: int, owner: Any = None) -> ExternType:
    """The Python type object for a ``wasm_externtype_t`` (borrowed from
    ``owner`` when given, else owned)."""
    kind = f.wasm_externtype_kind(ptr)
    cls: Type[Any] = {f.EXTERN_FUNC: FuncType, f.EXTERN_GLOBAL: GlobalType, f.EXTERN_TABLE: TableType,
           f.EXTERN_MEMORY: MemoryType}[kind]
    out: ExternType = cls._wrap(ptr, owner)
    return out


class ImportType:
    """An import of a module: ``module``, ``name`` and ``type``."""

    def __init__(self, module: str, name: str, type: ExternType) -> None:
        self.module, self.name, self.type = module, name, type

    def __repr__(self) -> str:
        return f"ImportType({self.module!r}, {self.name!r}, {self.type!r})"


class ExportType:
    """An export of a module: ``name`` and ``type``."""

    def __init__(self, name: str, type: ExternType) -> None:
        self.name, self.type = name, type

    def __repr__(self) -> str:
        return f"ExportType({self.name!r}, {self.type!r})"
