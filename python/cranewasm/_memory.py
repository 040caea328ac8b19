"""Linear memories: sizes, growth, and access to their bytes."""

import ctypes as c
import importlib
from typing import Any, Optional

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from .types import MemoryType


class Memory(_InStore):
    """A linear memory. ``memory.buffer`` is a zero-copy ``memoryview`` of
    its bytes, and ``memory.numpy(dtype, offset, count)`` a zero-copy numpy
    array (both valid until the memory grows, or for good if it is shared:
    a shared memory never moves, and a view keeps the size it was made
    with); ``read``/``write`` copy."""

    _free = staticmethod(f.wasm_extern_delete)
    PAGE = 65536

    def __init__(self, store: Store, ty: MemoryType) -> None:
        if not isinstance(store, Store) or not isinstance(ty, MemoryType):
            raise TypeError("Memory(store, MemoryType)")
        ptr = f.wasm_memory_new(store._live(), ty._ptr)
        if not ptr:
            raise WasmError("wasm_memory_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> MemoryType:
        """The memory's type (its limits in pages)."""
        return MemoryType._wrap(f.wasm_memory_type(self._live()))

    @property
    def size(self) -> int:
        """Size in 64 KiB pages."""
        return int(f.wasm_memory_size(self._live()))

    @property
    def data_size(self) -> int:
        """Size in bytes."""
        return int(f.wasm_memory_data_size(self._live()))

    def _base(self) -> int:
        base: Optional[int] = f.wasm_memory_data(self._live())
        if not base:
            raise WasmError("the memory has no data")
        return base

    @property
    def buffer(self) -> memoryview:
        """A writable view of every byte, without a copy."""
        n = self.data_size
        if n == 0:
            return memoryview(bytearray())
        return memoryview((c.c_ubyte * n).from_address(self._base())).cast("B")

    def numpy(self, dtype: Any = "uint8", offset: int = 0, count: Optional[int] = None) -> Any:
        """A numpy array of ``count`` items of ``dtype`` at byte ``offset``
        (default: as many as fit), sharing the memory's bytes: writes go to
        wasm, and wasm's writes show. Needs numpy; ``IndexError`` past the
        end."""
        # Optional: only this method needs it (typed as Any, so the
        # package type-checks with or without numpy installed).
        np: Any = importlib.import_module("numpy")
        dt = np.dtype(dtype)
        n = self.data_size
        if offset < 0 or offset > n:
            raise IndexError(f"offset {offset} is outside the memory ({n} bytes)")
        if count is None:
            count = (n - offset) // int(dt.itemsize)
        if count < 0 or offset + count * dt.itemsize > n:
            raise IndexError(f"{count} items of {dt} at {offset} do not fit in {n} bytes")
        if count == 0:
            return np.zeros(0, dtype=dt)
        raw = (c.c_ubyte * (count * dt.itemsize)).from_address(self._base() + offset)
        return np.frombuffer(raw, dtype=dt, count=count)

    def read(self, offset: int, length: int) -> bytes:
        """A copy of ``length`` bytes at ``offset``; ``IndexError`` out of bounds."""
        if offset < 0 or length < 0 or offset + length > self.data_size:
            raise IndexError("out of bounds memory access")
        return c.string_at(self._base() + offset, length)

    def write(self, offset: int, data: bytes) -> None:
        """Copies ``data`` to ``offset``; ``IndexError`` out of bounds."""
        data = bytes(data)
        if offset < 0 or offset + len(data) > self.data_size:
            raise IndexError("out of bounds memory access")
        c.memmove(self._base() + offset, data, len(data))

    def grow(self, delta: int) -> int:
        """Grows by ``delta`` pages; returns the old size. Raises
        ``WasmError`` past the maximum or a store limit."""
        old = self.size
        if delta < 0 or not f.wasm_memory_grow(self._live(), delta):
            raise WasmError(f"cannot grow the memory by {delta} pages")
        return old

    def __repr__(self) -> str:
        if not self.store._ptr:
            return "Memory(<store closed>)"
        return f"Memory({self.type!r}, size={self.size})"
