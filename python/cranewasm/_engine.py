"""The engine: compiles modules for the stores made from it."""

import ctypes as c
from types import TracebackType
from typing import Optional, Type

from . import _ffi as f
from ._config import Config
from ._error import WasmError


class Engine:
    """The compilation engine. ``Engine()`` is the library's process-wide
    engine (as in WAMR); ``Engine(Config(...))`` a separate engine with
    those settings. ``with Engine() as engine:`` frees it at the end (stores
    made from it keep what they need)."""

    def __init__(self, config: Optional[Config] = None) -> None:
        if config is not None and not isinstance(config, Config):
            raise TypeError(f"expected a Config, got {config!r}")
        self.config = config
        if config is None:
            ptr = f.wasm_engine_new()
        else:
            f.cranewasm_last_error_clear()
            ptr = f.cranewasm_engine_new_with_options(c.byref(config._options()))
        if not ptr:
            raise WasmError._from_library("cannot make an engine")
        self._ptr: Optional[int] = ptr
        # Which engine this is, also once closed (the process engine is
        # the same for every ``Engine()``).
        self._key: int = ptr

    def _live(self) -> int:
        if not self._ptr:
            raise ValueError("the engine is closed")
        return self._ptr

    def increment_epoch(self) -> None:
        """Advances the epoch by one, from any thread: calls in stores whose
        deadline (``Store.set_epoch_deadline``) it reaches trap with
        ``TrapCode.EPOCH_DEADLINE`` (needs ``Config(epoch_interruption=True)``)."""
        f.cranewasm_engine_increment_epoch(self._live())

    def close(self) -> None:
        """Frees the engine now (also done when it is collected)."""
        if getattr(self, "_ptr", None):
            f.cranewasm_engine_delete(self._ptr)
            self._ptr = None

    __del__ = close

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], value: Optional[BaseException],
                 tb: Optional[TracebackType]) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "" if self._ptr else ", closed"
        return f"Engine({self.config!r}{state})" if self.config else f"Engine({state.lstrip(', ')})"
