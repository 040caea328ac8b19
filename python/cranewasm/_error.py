"""The package's error for what is not a trap: a module that does not load,
an instantiation that fails, a store or engine the C library refused."""


class WasmError(Exception):
    """A module that does not load, or an instantiation that fails."""
