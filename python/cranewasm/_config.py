"""Engine settings: fuel, epoch interruption, lazy compilation, bounds
checks and the wasm stack size (the library's ``cranewasm_engine_options_t``)."""

from typing import Optional

from . import _ffi as f

_BOUNDS = {None: -1, "guard-pages": 0, "explicit": 1}


class Config:
    """What an ``Engine`` compiles for::

        Engine(Config(consume_fuel=True, epoch_interruption=True))

    ``consume_fuel``: calls count operators against their store's fuel
    (``Store.set_fuel``); running out raises ``Trap`` with
    ``TrapCode.OUT_OF_FUEL``. ``epoch_interruption``: ``Engine.increment_epoch``
    stops calls past their store's ``set_epoch_deadline``. ``lazy``: compile
    each function on its first call (None: the default, which
    ``CRANEWASM_LAZY`` sets). ``bounds_checks``: ``"guard-pages"`` or
    ``"explicit"`` (None: the default, ``CRANEWASM_BOUNDS_CHECKS``).
    ``max_wasm_stack``: bytes of native stack wasm may use (None: default).
    """

    def __init__(self, consume_fuel: bool = False, epoch_interruption: bool = False, lazy: Optional[bool] = None,
                 bounds_checks: Optional[str] = None, max_wasm_stack: Optional[int] = None) -> None:
        if bounds_checks not in _BOUNDS:
            raise ValueError(f"bounds_checks is 'guard-pages', 'explicit' or None, not {bounds_checks!r}")
        if max_wasm_stack is not None and max_wasm_stack <= 0:
            raise ValueError(f"max_wasm_stack is a positive number of bytes, not {max_wasm_stack!r}")
        self.consume_fuel = bool(consume_fuel)
        self.epoch_interruption = bool(epoch_interruption)
        self.lazy = lazy
        self.bounds_checks = bounds_checks
        self.max_wasm_stack = max_wasm_stack

    def _options(self) -> f.EngineOptions:
        return f.EngineOptions(self.consume_fuel, self.epoch_interruption, -1 if self.lazy is None else int(self.lazy),
                               _BOUNDS[self.bounds_checks], self.max_wasm_stack or 0)

    def __repr__(self) -> str:
        return (f"Config(consume_fuel={self.consume_fuel}, epoch_interruption={self.epoch_interruption}, "
                f"lazy={self.lazy}, bounds_checks={self.bounds_checks!r}, max_wasm_stack={self.max_wasm_stack})")
