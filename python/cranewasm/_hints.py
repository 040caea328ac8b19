"""Function types from a Python callable's type hints, for host functions
made without an explicit ``FuncType``::

    def add(x: int, y: int) -> int: ...            # (i32, i32) -> i32
    def mix(x: i64, y: f32) -> Tuple[f64, int]: ...  # (i64, f32) -> (f64, i32)

``int`` is an i32 and ``float`` an f64; ``i32``, ``i64``, ``f32`` and
``f64`` (this module's ``NewType``s of int and float) choose the width;
``Func`` (or ``Optional[Func]``) is a funcref, ``object`` an externref.
A return of None (or no annotation for it) gives no results, a
``Tuple[...]`` several."""

import inspect
import sys
import typing
from typing import Any, Callable, Dict, List, NewType

from .types import FuncType, ValType

i32 = NewType("i32", int)
i64 = NewType("i64", int)
f32 = NewType("f32", float)
f64 = NewType("f64", float)
i32.__doc__ = "A hint for a wasm i32 (an int): ``def f(x: i32) -> i32``."
i64.__doc__ = "A hint for a wasm i64 (an int): ``def f(x: i64) -> i64``."
f32.__doc__ = "A hint for a wasm f32 (a float): ``def f(x: f32) -> f32``."
f64.__doc__ = "A hint for a wasm f64 (a float; plain ``float`` is one too)."

_BY_HINT: Dict[Any, Callable[[], ValType]] = {
    int: ValType.i32, i32: ValType.i32, i64: ValType.i64, float: ValType.f64, f32: ValType.f32, f64: ValType.f64,
    object: ValType.externref,
}


def _valtype(hint: Any, where: str) -> ValType:
    maker = _BY_HINT.get(hint)
    if maker is not None:
        return maker()
    from ._func import Func  # here: _func imports this module
    args = getattr(hint, "__args__", None) or ()
    if hint is Func or (typing.get_origin(hint) is typing.Union and set(args) == {Func, type(None)}):
        return ValType.funcref()
    raise TypeError(f"{where}: no wasm value type for the hint {hint!r} (use int, float, i32, i64, f32, f64, "
                    "Func or object)")


def functype_of(fn: Callable[..., Any]) -> FuncType:
    """The wasm type of ``fn`` from its hints; ``TypeError`` when a
    parameter has none or one no wasm type matches."""
    name = getattr(fn, "__qualname__", repr(fn))
    try:
        sig = inspect.signature(fn)
        module = sys.modules.get(getattr(fn, "__module__", "") or "")
        hints = typing.get_type_hints(fn, globalns=getattr(module, "__dict__", None))
    except (TypeError, ValueError, NameError) as e:
        raise TypeError(f"cannot read the type hints of {name}: {e}") from None
    params: List[ValType] = []
    for p in sig.parameters.values():
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            raise TypeError(f"{name}: a host function takes positional parameters only, not {p}")
        if p.name not in hints:
            raise TypeError(f"{name}: parameter {p.name!r} has no type hint; give one or pass a FuncType")
        params.append(_valtype(hints[p.name], f"{name}, parameter {p.name!r}"))
    ret = hints.get("return", type(None))
    if ret is type(None):
        results: List[ValType] = []
    elif typing.get_origin(ret) is tuple:
        results = [_valtype(h, f"{name}, result") for h in typing.get_args(ret)]
    else:
        results = [_valtype(ret, f"{name}, result")]
    return FuncType(params, results)
