"""Traps: the exception a wasm call raises, and the frames of its backtrace.

A C ``wasm_trap_t`` is read into plain Python objects and deleted at once,
so a ``Trap`` holds no C memory and outlives its store."""

import ctypes as c
from typing import Sequence

from . import _ffi as f


class Frame:
    """One wasm frame of a trap's backtrace, innermost first."""

    def __init__(self, func_index: int, func_offset: int, module_offset: int):
        self.func_index, self.func_offset, self.module_offset = func_index, func_offset, module_offset

    def __repr__(self) -> str:
        return f"Frame(func_index={self.func_index}, func_offset={self.func_offset:#x}, module_offset={self.module_offset:#x})"


class Trap(Exception):
    """A trap: ``message`` (e.g. ``Exception: integer divide by zero``) and
    ``frames``."""

    def __init__(self, message: str, frames: Sequence[Frame] = ()):
        super().__init__(message)
        self.message = message
        self.frames = list(frames)

    @classmethod
    def _take(cls, ptr) -> "Trap":
        """Reads a C trap and deletes it."""
        msg = f.Vec()
        f.wasm_trap_message(ptr, c.byref(msg))
        text = f.name_str(msg)
        f.wasm_byte_vec_delete(c.byref(msg))
        trace = f.Vec()
        f.wasm_trap_trace(ptr, c.byref(trace))
        frames = [Frame(f.wasm_frame_func_index(p), f.wasm_frame_func_offset(p), f.wasm_frame_module_offset(p))
                  for p in f.elems(trace)]
        f.wasm_frame_vec_delete(c.byref(trace))
        f.wasm_trap_delete(ptr)
        return cls(text, frames)

    def __repr__(self) -> str:
        return f"Trap({self.message!r}, frames={self.frames!r})"
