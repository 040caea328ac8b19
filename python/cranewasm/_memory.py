"""Linear memories: sizes, growth, and access to their bytes."""

import ctypes as c

from . import _ffi as f
from ._error import WasmError
from ._store import Store, _InStore
from .types import MemoryType


class Memory(_InStore):
    """A linear memory. ``memory.buffer`` is a zero-copy view of its bytes
    (valid until the memory grows, or for good if it is shared: a shared
    memory never moves, and a view keeps the size it was made with);
    ``read``/``write`` copy."""

    _free = staticmethod(f.wasm_extern_delete)
    PAGE = 65536

    def __init__(self, store: Store, ty: MemoryType):
        ptr = f.wasm_memory_new(store._live(), ty._ptr)
        if not ptr:
            raise WasmError("wasm_memory_new failed")
        super().__init__(store, ptr)

    @property
    def type(self) -> MemoryType:
        return MemoryType._wrap(f.wasm_memory_type(self._ptr))

    @property
    def size(self) -> int:
        """Size in 64 KiB pages."""
        return f.wasm_memory_size(self._ptr)

    @property
    def data_size(self) -> int:
        """Size in bytes."""
        return f.wasm_memory_data_size(self._ptr)

    @property
    def buffer(self) -> memoryview:
        n = self.data_size
        if n == 0:
            return memoryview(b"")
        return memoryview((c.c_ubyte * n).from_address(f.wasm_memory_data(self._ptr))).cast("B")

    def read(self, offset: int, length: int) -> bytes:
        if offset < 0 or length < 0 or offset + length > self.data_size:
            raise IndexError("out of bounds memory access")
        return c.string_at(f.wasm_memory_data(self._ptr) + offset, length)

    def write(self, offset: int, data: bytes) -> None:
        data = bytes(data)
        if offset < 0 or offset + len(data) > self.data_size:
            raise IndexError("out of bounds memory access")
        c.memmove(f.wasm_memory_data(self._ptr) + offset, data, len(data))

    def grow(self, delta: int) -> int:
        """Grows by ``delta`` pages; returns the old size. Raises
        ``WasmError`` past the maximum."""
        old = self.size
        if delta < 0 or not f.wasm_memory_grow(self._ptr, delta):
            raise WasmError(f"cannot grow the memory by {delta} pages")
        return old

    def __repr__(self) -> str:
        return f"Memory({self.type!r}, size={self.size})"
