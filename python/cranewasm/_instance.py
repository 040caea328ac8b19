"""Instances: a module linked to its imports, and the exports it gives."""

import ctypes as c
from typing import Dict, ItemsView, Iterator, List, Optional, Sequence

from . import _ffi as f
from ._error import WasmError
from ._extern import _AS_EXTERN, Extern, _extern_of
from ._module import Module
from ._store import Store, _InStore
from ._trap import Trap


class Exports:
    """An instance's exports: ``exports["add"]``, ``exports.add`` (for a
    name that is no method of this class), ``"add" in exports``, ``len``,
    iteration over names."""

    def __init__(self, items: Dict[str, Extern]) -> None:
        self._items = items

    def __getitem__(self, name: str) -> Extern:
        return self._items[name]

    def __getattr__(self, name: str) -> Extern:
        try:
            return self.__dict__["_items"][name]  # type: ignore[no-any-return]
        except KeyError:
            raise AttributeError(f"no export named {name!r}") from None

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self) -> ItemsView[str, Extern]:
        """(name, export) pairs, in the module's order."""
        return self._items.items()

    def __repr__(self) -> str:
        return f"Exports({list(self._items)})"


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
        self.exports = Exports(items)

    def __repr__(self) -> str:
        return f"Instance(exports={list(self.exports)})"
