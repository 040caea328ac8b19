"""Instances: a module linked to its imports, and the exports it gives."""

import ctypes as c
from typing import Callable, Dict, ItemsView, Iterator, List, Optional, Sequence, Union

from . import _ffi as f
from ._error import WasmError
from ._extern import _AS_EXTERN, Extern, _extern_of
from ._module import Module
from ._store import Store, _InStore
from ._tag import Tag, _tag_of_export
from ._trap import Trap


Export = Union[Extern, Tag]


class Exports:
    """An instance's exports: ``exports["add"]``, ``exports.add`` (for a
    name that is no method of this class), ``"add" in exports``, ``len``,
    iteration over names.

    An exported tag (``Tag``) is found by its name too, but iteration and
    ``len`` count functions, globals, tables and memories only: the C
    library lists no tags."""

    def __init__(self, items: Dict[str, Extern], tag: Optional[Callable[[str], Optional[Tag]]] = None) -> None:
        self._items = items
        self._tag = tag

    def _get(self, name: str) -> Optional[Export]:
        item: Optional[Export] = self._items.get(name)
        if item is None and self._tag is not None and isinstance(name, str):
            item = self._tag(name)
        return item

    def __getitem__(self, name: str) -> Export:
        item = self._get(name)
        if item is None:
            raise KeyError(name)
        return item

    def __getattr__(self, name: str) -> Export:
        if "_items" not in self.__dict__:  # not initialised (copy, pickle)
            raise AttributeError(name)
        item = self._get(name)
        if item is None:
            raise AttributeError(f"no export named {name!r}")
        return item

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> ItemsView[str, Extern]:
        """(name, export) pairs, in the module's order (tags left out)."""
        return self._items.items()

    def __repr__(self) -> str:
        return f"Exports({list(self._items)})"


class _InstanceHandle(_InStore):
    """Another C handle on an instance."""

    _free = staticmethod(f.wasm_instance_delete)


def _extern_ptrs(store: Store, imports: Sequence[Extern]) -> List[int]:
    ptrs = []
    for imp in imports:
        conv = _AS_EXTERN.get(type(imp))
        if conv is None:
            raise TypeError(f"an import is a Func, Global, Table or Memory, not {imp!r}")
        if imp.store is not store:
            raise WasmError("an import belongs to another store")
        ptrs.append(conv(imp._live()))
    return ptrs


class Instance(_InStore):
    """``Instance(store, module, imports)``: imports in the module's import
    order (a ``Linker`` finds them by name). A trap in the start function
    raises ``Trap``; a bad import ``WasmError`` with the library's reason."""

    _free = staticmethod(f.wasm_instance_delete)

    def __init__(self, store: Store, module: Module, imports: Sequence[Extern] = ()) -> None:
        if not isinstance(store, Store) or not isinstance(module, Module):
            raise TypeError("Instance(store, module, imports)")
        self._link(store, module, _extern_ptrs(store, imports))

    def _link(self, store: Store, module: Module, ptrs: Sequence[Optional[int]]) -> None:
        if module.engine._key != store.engine._key:
            raise WasmError("the module was compiled by another engine")
        arr = (c.c_void_p * max(len(ptrs), 1))(*ptrs)
        vec = f.Vec(len(ptrs), c.addressof(arr), len(ptrs), c.sizeof(c.c_void_p), None)
        trap = c.c_void_p()
        f.cranewasm_last_error_clear()
        ptr = f.wasm_instance_new(store._live(), module._live(), c.byref(vec), c.byref(trap))
        if not ptr:
            if trap.value:
                # WAMR's words: "wasm_instance_new_with_args_ex failed: "
                # and the reason, which for a trap of the start function
                # ends in the trap's own "Exception: ..." message.
                t = Trap._take(trap.value)
                at = t.message.find("Exception: ")
                if at >= 0:
                    raise Trap(t.message[at:], t.frames, t.code)
                raise WasmError(t.message)
            raise WasmError._from_library("instantiation failed")
        super().__init__(store, ptr)
        self.module = module
        names = [e.name for e in module.exports]
        out = f.Vec()
        f.wasm_instance_exports(ptr, c.byref(out))
        # The extern objects now belong to the wrappers, each freed once.
        items = {n: _extern_of(store, p) for n, p in zip(names, f.elems(out))}
        if out.data:
            c.memset(out.data, 0, out.size * c.sizeof(c.c_void_p))
        f.wasm_extern_vec_delete(c.byref(out))
        # Tags are looked up through a handle of their own: the exports may
        # outlive this wrapper, and must not keep it alive in a cycle.
        handle = _InstanceHandle(store, f.wasm_instance_copy(ptr))
        self.exports = Exports(items, lambda name: _tag_of_export(store, handle._live(), name))

    def __repr__(self) -> str:
        return f"Instance(exports={list(self.exports)})"
