"""Instances: a module linked to its imports, and the exports it gives."""

import ctypes as c
from typing import Dict, Iterator, Sequence

from . import _ffi as f
from ._error import WasmError
from ._extern import _AS_EXTERN, Extern, _extern_of
from ._module import Module
from ._store import Store, _InStore
from ._trap import Trap


class Exports:
    """An instance's exports: ``exports["add"]``, ``exports.add``, ``len``,
    iteration over names."""

    def __init__(self, items: Dict[str, Extern]):
        self._items = items

    def __getitem__(self, name: str) -> Extern:
        return self._items[name]

    def __getattr__(self, name: str) -> Extern:
        try:
            return self.__dict__["_items"][name]
        except KeyError:
            raise AttributeError(f"no export named {name!r}") from None

    def __contains__(self, name) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self):
        return self._items.items()

    def __repr__(self) -> str:
        return f"Exports({list(self._items)})"


class Instance(_InStore):
    """``Instance(store, module, imports)``: imports in the module's import
    order. A trap in the start function raises ``Trap``; a bad import
    ``WasmError``."""

    _free = staticmethod(f.wasm_instance_delete)

    def __init__(self, store: Store, module: Module, imports: Sequence[Extern] = ()):
        if not isinstance(store, Store) or not isinstance(module, Module):
            raise TypeError("Instance(store, module, imports)")
        if module.engine is not store.engine and module.engine._ptr != store.engine._ptr:
            raise WasmError("the module was compiled by another engine")
        ptrs = []
        for imp in imports:
            conv = _AS_EXTERN.get(type(imp))
            if conv is None:
                raise TypeError(f"an import is a Func, Global, Table or Memory, not {imp!r}")
            if imp.store is not store:
                raise WasmError("an import belongs to another store")
            ptrs.append(conv(imp._ptr))
        arr = (c.c_void_p * max(len(ptrs), 1))(*ptrs)
        vec = f.Vec(len(ptrs), c.addressof(arr), len(ptrs), c.sizeof(c.c_void_p), None)
        trap = c.c_void_p()
        ptr = f.wasm_instance_new(store._live(), module._ptr, c.byref(vec), c.byref(trap))
        if not ptr:
            if trap.value:
                # WAMR's words: "wasm_instance_new_with_args_ex failed: "
                # and the reason, which for a trap of the start function
                # ends in the trap's own "Exception: ..." message.
                t = Trap._take(trap.value)
                at = t.message.find("Exception: ")
                if at >= 0:
                    raise Trap(t.message[at:], t.frames)
                raise WasmError(t.message)
            raise WasmError("instantiation failed")
        super().__init__(store, ptr)
        self.module = module
        names = [e.name for e in module.exports]
        vec = f.Vec()
        f.wasm_instance_exports(ptr, c.byref(vec))
        # The extern objects now belong to the wrappers, each freed once.
        items = {n: _extern_of(store, p) for n, p in zip(names, f.elems(vec))}
        if vec.data:
            c.memset(vec.data, 0, vec.size * c.sizeof(c.c_void_p))
        f.wasm_extern_vec_delete(c.byref(vec))
        self.exports = Exports(items)

    def __repr__(self) -> str:
        return f"Instance(exports={list(self.exports)})"
