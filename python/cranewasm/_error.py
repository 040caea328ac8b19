"""The package's errors that are not traps: a module that does not load
(with the validator's reason and offset), an import that does not link, a
store used after it was closed, and a WASI program's exit."""

import re
from typing import Optional

from . import _ffi as f

_OFFSET = re.compile(r"\(at offset (0x[0-9a-fA-F]+|\d+)\)")
# The C function a library message starts with, which says nothing to Python.
_C_FUNCTION = re.compile(r"^(?:wasm|cranewasm)_\w+: ")


class WasmError(Exception):
    """A module that does not load, or an instantiation that fails.

    ``message`` is the library's reason (for a malformed or invalid module,
    the validator's words); ``offset`` the byte offset in the binary it
    points at, when it names one, else None."""

    def __init__(self, message: str, offset: Optional[int] = None) -> None:
        super().__init__(message)
        self.message = message
        if offset is None:
            m = _OFFSET.search(message)
            offset = int(m.group(1), 0) if m else None
        self.offset = offset

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.message!r}, offset={self.offset!r})"

    @classmethod
    def _from_library(cls, what: str) -> "WasmError":
        """The error for a failed C call: the library's last error message
        when it left one, else ``what``."""
        return cls(_C_FUNCTION.sub("", f.last_error()) or what)


class LinkError(WasmError):
    """An import a ``Linker`` cannot satisfy: ``module`` and ``name`` say
    which (missing, or defined with another type)."""

    def __init__(self, message: str, module: str = "", name: str = "") -> None:
        super().__init__(message)
        self.module, self.name = module, name

    def __repr__(self) -> str:
        return f"LinkError({self.message!r}, module={self.module!r}, name={self.name!r})"


class StoreClosed(ValueError):
    """An object was used after its store was closed."""

    def __init__(self) -> None:
        super().__init__("the store is closed")


class WasiExit(Exception):
    """A WASI program called ``proc_exit``: ``code`` is its exit status.
    ``WasiConfig.start`` returns the status instead of raising."""

    def __init__(self, code: int) -> None:
        super().__init__(f"WASI exit with status {code}")
        self.code = code

    def __repr__(self) -> str:
        return f"WasiExit({self.code})"
