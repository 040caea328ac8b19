"""Exception tags: what a wasm exception is an exception of. An instance's
exported tag is ``instance.exports["e"]``; an uncaught ``WasmException``
has its ``tag``. A host function raises ``WasmException(tag, payload)`` to
throw into its wasm caller."""

import ctypes as c
from typing import Any, List, Optional

from . import _ffi as f
from ._store import Store, _InStore
from .types import FuncType, ValType


class Tag(_InStore):
    """A tag of a store. Two ``Tag`` objects are equal when they stand for
    the same tag (a tag's identity is the object, not its type)."""

    _free = staticmethod(f.cranewasm_tag_delete)

    @property
    def type(self) -> FuncType:
        """The tag's type: its parameters are what its exceptions carry."""
        return FuncType._wrap(f.cranewasm_tag_type(self._live()))

    @property
    def params(self) -> List[ValType]:
        """The types of the payload, in order."""
        return self.type.params

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tag):
            return NotImplemented
        return other.store is self.store and bool(f.cranewasm_tag_same(self._live(), other._live()))

    # Equal tags may be different wrappers: no hash that could tell them apart.
    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "Tag(<store closed>)"
        return f"Tag({self.params})"


def _tag_of_export(store: Store, instance: int, name: str) -> Optional[Tag]:
    """The tag ``instance`` (a C instance of ``store``) exports as ``name``."""
    n = f.byte_vec(name.encode())
    try:
        ptr = f.cranewasm_instance_export_tag(instance, c.byref(n))
    finally:
        f.wasm_byte_vec_delete(c.byref(n))
    return Tag._wrap(store, ptr) if ptr else None


def _tag_of_trap(store: Store, trap: int) -> Optional[Tag]:
    """The tag of the uncaught exception ``trap`` (of ``store``) stands for."""
    ptr = f.cranewasm_trap_exception_tag(trap)
    return Tag._wrap(store, ptr) if ptr else None


def _check_payload(tag: Tag, payload: List[Any]) -> List[int]:
    """The value kinds of ``tag``'s payload, after checking that
    ``payload`` has one value for each."""
    kinds = [p.kind for p in tag.params]
    if len(payload) != len(kinds):
        raise TypeError(f"the tag {tag!r} carries {len(kinds)} values, the payload has {len(payload)}")
    return kinds
