"""Linking by name: a ``Linker`` holds definitions by (module, name) and
instantiates modules from them, as wasmtime's does.

The C library links an import vector by kind and position (WAMR's rule),
so the linker resolves each import of the module by name, checks its type
here (a clear ``LinkError`` naming the import), and passes the vector in
the module's order. WASI imports it leaves to the library (a placeholder
in their place), after giving the module the linker's ``WasiConfig``."""

import ctypes as c
import weakref
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from . import _ffi as f
from ._engine import Engine
from ._error import LinkError
from ._extern import _AS_EXTERN, Extern
from ._func import Func
from ._global import Global
from ._instance import Instance
from ._memory import Memory
from ._module import Module
from ._store import Store
from ._table import Table
from ._wasi import WasiConfig
from .types import ExternType, FuncType, GlobalType, ImportType, MemoryType, TableType

WASI_MODULES = ("wasi_snapshot_preview1", "wasi_unstable")

_HostDef = Tuple[Optional[FuncType], Callable[..., Any], "weakref.WeakKeyDictionary[Store, Func]"]
Definition = Union[Extern, _HostDef]


def _describe(ty: ExternType) -> str:
    if isinstance(ty, FuncType):
        ps = ", ".join(str(p) for p in ty.params)
        rs = ", ".join(str(r) for r in ty.results)
        return f"func ({ps}) -> ({rs})"
    if isinstance(ty, GlobalType):
        return f"global {'mut ' if ty.mutable else ''}{ty.content}"
    if isinstance(ty, MemoryType):
        return f"memory {ty.limits}{' shared' if ty.shared else ''}"
    return f"table {ty.element} {ty.limits}"


def _limits_fit(given: Tuple[int, Optional[int]], wanted: Tuple[int, Optional[int]]) -> bool:
    (gmin, gmax), (wmin, wmax) = given, wanted
    return gmin >= wmin and (wmax is None or (gmax is not None and gmax <= wmax))


def _fits(given: ExternType, wanted: ExternType) -> bool:
    """Whether an extern of type ``given`` satisfies an import of ``wanted``."""
    if isinstance(wanted, FuncType) and isinstance(given, FuncType):
        return given.params == wanted.params and given.results == wanted.results
    if isinstance(wanted, GlobalType) and isinstance(given, GlobalType):
        return given.content == wanted.content and given.mutable == wanted.mutable
    if isinstance(wanted, MemoryType) and isinstance(given, MemoryType):
        return given.shared == wanted.shared and _limits_fit(given.limits, wanted.limits)
    if isinstance(wanted, TableType) and isinstance(given, TableType):
        return given.element == wanted.element and _limits_fit(given.limits, wanted.limits)
    return False


class Linker:
    """Definitions by (module, name), and instantiation from them::

        linker = Linker(engine)
        linker.define_func("env", "log", print_i32)     # type from its hints
        linker.define("env", "memory", memory)
        linker.define_instance("lib", other_instance)
        linker.define_wasi(WasiConfig(argv=["prog"]))
        instance = linker.instantiate(store, module)

    A name defined twice raises ``LinkError`` unless ``allow_shadowing``.
    ``instantiate`` raises ``LinkError`` naming the first import that is
    missing or has another type."""

    def __init__(self, engine: Engine) -> None:
        if not isinstance(engine, Engine):
            raise TypeError(f"expected an Engine, got {engine!r}")
        self.engine = engine
        self.allow_shadowing = False
        self._defs: Dict[Tuple[str, str], Definition] = {}
        self._wasi: Optional[WasiConfig] = None

    def _put(self, module: str, name: str, item: Definition) -> None:
        if not isinstance(module, str) or not isinstance(name, str):
            raise TypeError("a definition's module and name are strings")
        if (module, name) in self._defs and not self.allow_shadowing:
            raise LinkError(f"`{module}`.`{name}` is already defined", module, name)
        self._defs[(module, name)] = item

    def define(self, module: str, name: str, item: Extern) -> None:
        """Defines ``module``.``name`` as a function, global, table or memory
        (of any store: an instantiation takes those of its own store)."""
        if type(item) not in _AS_EXTERN:
            raise TypeError(f"a definition is a Func, Global, Table or Memory, not {item!r}")
        self._put(module, name, item)

    def define_func(self, module: str, name: str, fn: Callable[..., Any], ty: Optional[FuncType] = None) -> None:
        """Defines ``module``.``name`` as the Python callable ``fn``, of type
        ``ty`` or, without it, the type its hints give (``def f(x: int) ->
        float`` is ``(i32) -> f64``; see ``cranewasm.i64`` and co.)."""
        if not callable(fn):
            raise TypeError(f"{fn!r} is not callable")
        if ty is not None and not isinstance(ty, FuncType):
            raise TypeError(f"{ty!r} is not a FuncType")
        from ._hints import functype_of
        checked = ty if ty is not None else functype_of(fn)  # refuse bad hints now, not at instantiation
        self._put(module, name, (checked, fn, weakref.WeakKeyDictionary()))

    def define_instance(self, module: str, instance: Instance) -> None:
        """Defines every export of ``instance`` under ``module``."""
        if not isinstance(instance, Instance):
            raise TypeError(f"expected an Instance, got {instance!r}")
        for name, item in instance.exports.items():
            self._put(module, name, item)

    def define_wasi(self, config: Optional[WasiConfig] = None) -> None:
        """Satisfies WASI imports (``wasi_snapshot_preview1`` and
        ``wasi_unstable``) with the library's WASI, seeing what ``config``
        (default: ``WasiConfig()``, nothing) allows."""
        if config is not None and not isinstance(config, WasiConfig):
            raise TypeError(f"expected a WasiConfig, got {config!r}")
        self._wasi = config if config is not None else WasiConfig()

    def _resolve(self, store: Store, imp: ImportType) -> Optional[Extern]:
        """The extern for ``imp`` in ``store``; None for one WASI provides."""
        d = self._defs.get((imp.module, imp.name))
        if d is None:
            if imp.module in WASI_MODULES and self._wasi is not None and isinstance(imp.type, FuncType):
                return None
            raise LinkError(f"missing import `{imp.module}`.`{imp.name}` ({_describe(imp.type)})", imp.module, imp.name)
        if isinstance(d, tuple):
            ty, fn, made = d
            item: Extern
            if store in made:
                item = made[store]
            else:
                item = made[store] = Func(store, ty, fn)
        else:
            item = d
        if item.store is not store:
            raise LinkError(f"import `{imp.module}`.`{imp.name}` is defined in another store", imp.module, imp.name)
        given = item.type
        if not _fits(given, imp.type):
            raise LinkError(f"import `{imp.module}`.`{imp.name}`: expected {_describe(imp.type)}, "
                            f"defined as {_describe(given)}", imp.module, imp.name)
        return item

    def instantiate(self, store: Store, module: Module) -> Instance:
        """An instance of ``module`` in ``store``, its imports found by name."""
        if not isinstance(store, Store) or not isinstance(module, Module):
            raise TypeError("Linker.instantiate(store, module)")
        if store.engine._key != self.engine._key:
            raise LinkError("the store belongs to another engine than the linker")
        items = [self._resolve(store, imp) for imp in module.imports]
        placeholders: List[int] = []
        ptrs: List[Optional[int]] = []
        for item in items:
            if item is None:
                placeholders.append(f.wasm_extern_new_empty(store._live(), f.EXTERN_FUNC))
                ptrs.append(placeholders[-1])
            else:
                ptrs.append(_AS_EXTERN[type(item)](item._live()))
        if self._wasi is not None:
            self._wasi._apply(c.cast(module._live(), c.POINTER(c.c_void_p))[0])
        inst = Instance.__new__(Instance)
        try:
            inst._link(store, module, ptrs)
        finally:
            for p in placeholders:
                f.wasm_extern_delete(p)
        return inst

    def __repr__(self) -> str:
        names = [f"{m}.{n}" for m, n in self._defs]
        return f"Linker(definitions={names}, wasi={self._wasi is not None})"
