"""Traps: the exception a wasm call raises, its code, and the frames of
its backtrace.

A C ``wasm_trap_t`` is read into plain Python objects and deleted at once,
so a ``Trap`` holds no C memory and outlives its store."""

import ctypes as c
import enum
from typing import Any, Optional, Sequence

from . import _ffi as f
from ._tag import Tag


class TrapCode(enum.IntEnum):
    """Why wasm trapped (the library's ``CRANEWASM_TRAP_*``; the names are
    wasmtime's)."""

    STACK_OVERFLOW = 0
    MEMORY_OUT_OF_BOUNDS = 1
    HEAP_MISALIGNED = 2
    TABLE_OUT_OF_BOUNDS = 3
    INDIRECT_CALL_TO_NULL = 4
    BAD_SIGNATURE = 5
    INTEGER_OVERFLOW = 6
    INTEGER_DIVISION_BY_ZERO = 7
    BAD_CONVERSION_TO_INTEGER = 8
    UNREACHABLE = 9
    INTERRUPTED = 10
    OUT_OF_FUEL = 11
    ATOMIC_WAIT_NON_SHARED_MEMORY = 12
    EPOCH_DEADLINE = 13
    UNLINKED_FUNCTION = 14
    NULL_REFERENCE = 15
    CAST_FAILURE = 16


class Frame:
    """One wasm frame of a trap's backtrace, innermost first: the function's
    index and name (from the module's name section; None if it has none),
    and byte offsets in the function and in the module."""

    def __init__(self, func_index: int, func_offset: int, module_offset: int,
                 func_name: Optional[str] = None) -> None:
        self.func_index, self.func_offset, self.module_offset = func_index, func_offset, module_offset
        self.func_name = func_name

    def __repr__(self) -> str:
        return (f"Frame(func_index={self.func_index}, func_name={self.func_name!r}, "
                f"func_offset={self.func_offset:#x}, module_offset={self.module_offset:#x})")


class Trap(Exception):
    """A trap: ``message`` (e.g. ``Exception: integer divide by zero``),
    ``code`` (a ``TrapCode``, or None for a trap a host function raised)
    and ``frames``. A Python exception in a host function is the trap's
    ``__cause__``."""

    def __init__(self, message: str, frames: Sequence[Frame] = (), code: Optional[TrapCode] = None) -> None:
        super().__init__(message)
        self.message = message
        self.frames = list(frames)
        self.code = code

    @staticmethod
    def _read(ptr: int) -> "Trap":
        """Reads a C trap (without deleting it)."""
        msg = f.Vec()
        f.wasm_trap_message(ptr, c.byref(msg))
        text = f.name_str(msg)
        f.wasm_byte_vec_delete(c.byref(msg))
        trace = f.Vec()
        f.wasm_trap_trace(ptr, c.byref(trace))
        frames = []
        for i, p in enumerate(f.elems(trace)):
            name = f.Vec()
            known = f.cranewasm_trap_frame_func_name(ptr, i, c.byref(name))
            func_name = f.vec_bytes(name).decode("utf-8", "replace") if known else None
            f.wasm_byte_vec_delete(c.byref(name))
            frames.append(Frame(f.wasm_frame_func_index(p), f.wasm_frame_func_offset(p), f.wasm_frame_module_offset(p),
                                func_name))
        f.wasm_frame_vec_delete(c.byref(trace))
        code = c.c_uint8()
        known_code = f.cranewasm_trap_code(ptr, c.byref(code))
        return Trap(text, frames, TrapCode(code.value) if known_code else None)

    @classmethod
    def _take(cls, ptr: int) -> "Trap":
        """Reads a C trap and deletes it."""
        t = cls._read(ptr)
        f.wasm_trap_delete(ptr)
        return t

    def __str__(self) -> str:
        if not self.frames:
            return self.message
        where = "\n".join(f"  {i}: {fr.func_name or f'<func {fr.func_index}>'} at {fr.module_offset:#x}"
                          for i, fr in enumerate(self.frames))
        return f"{self.message}\nwasm backtrace:\n{where}"

    def __repr__(self) -> str:
        return f"Trap({self.message!r}, code={self.code!r}, frames={self.frames!r})"


UNCAUGHT = "Exception: uncaught wasm exception"


class WasmException(Trap):
    """A wasm exception: ``tag`` (a ``Tag``) and ``payload``, the list of
    values it carries (one per parameter of the tag's type).

    A call raises it for an exception no wasm handler caught; ``message``
    is then WAMR's ``Exception: uncaught wasm exception``, ``frames`` where
    it was thrown, and ``code`` None. A host function raises it to throw
    into its wasm caller, where a ``try_table`` (or a legacy ``try``) may
    catch it: ``raise WasmException(instance.exports["e"], [1, 2.5])``. A
    tag of another store, or a payload of the wrong length or types, is
    refused as any error of a host function is: the call raises ``Trap``
    with that ``TypeError`` or ``WasmError`` as its ``__cause__``."""

    def __init__(self, tag: Tag, payload: Sequence[Any] = (), message: str = UNCAUGHT,
                 frames: Sequence[Frame] = ()) -> None:
        if not isinstance(tag, Tag):
            raise TypeError(f"WasmException(tag, payload): {tag!r} is not a Tag")
        if not isinstance(payload, (list, tuple)):
            raise TypeError(f"a WasmException's payload is a list or tuple of values, not {type(payload).__name__}")
        super().__init__(message, frames, None)
        self.tag = tag
        self.payload = list(payload)

    def __repr__(self) -> str:
        return f"WasmException({self.payload!r})"
