"""Linking by name: definitions of every kind, Python callables typed by
their hints or explicitly, whole instances, and a LinkError that names the
missing or mismatched import."""

from typing import Optional, Tuple

import pytest

import cranewasm as w

I32, I64, F32, F64 = w.ValType.i32(), w.ValType.i64(), w.ValType.f32(), w.ValType.f64()

APP = """(module
  (import "env" "scale" (func $scale (param i32) (result f64)))
  (import "env" "wide" (func $wide (param i64 f32) (result f64 i32)))
  (import "env" "g" (global $g (mut i32)))
  (import "env" "mem" (memory 1))
  (import "env" "tab" (table 1 funcref))
  (import "lib" "twice" (func $twice (param i32) (result i32)))
  (func (export "run") (param i32) (result f64)
    (call $scale (call $twice (i32.add (local.get 0) (global.get $g)))))
  (func (export "wide") (param i64 f32) (result f64 i32) (call $wide (local.get 0) (local.get 1)))
  (func (export "peek") (result i32) (i32.load8_u (i32.const 0))))"""

LIB = '(module (func (export "twice") (param i32) (result i32) (i32.mul (local.get 0) (i32.const 2))))'


def scale(x: int) -> float:
    return x / 4


def wide(a: w.i64, b: w.f32) -> Tuple[w.f64, int]:
    return float(a) + b, 1


def full_linker(engine, store):
    linker = w.Linker(engine)
    linker.define_func("env", "scale", scale)
    linker.define_func("env", "wide", wide)
    linker.define("env", "g", w.Global(store, w.GlobalType(I32, True), 3))
    mem = w.Memory(store, w.MemoryType(1))
    mem.write(0, b"\x2a")
    linker.define("env", "mem", mem)
    linker.define("env", "tab", w.Table(store, w.TableType(w.ValType.funcref(), 2)))
    linker.define_instance("lib", w.Instance(store, w.Module(engine, LIB)))
    return linker


def test_instantiate_by_name(engine, store):
    linker = full_linker(engine, store)
    inst = linker.instantiate(store, w.Module(engine, APP))
    assert inst.exports.run(5) == (5 + 3) * 2 / 4
    assert inst.exports.wide(2**40, 0.5) == (2**40 + 0.5, 1)
    assert inst.exports.peek() == 42  # the host memory was linked
    assert "env.scale" in repr(linker) and "wasi=False" in repr(linker)
    # A second store gets host functions of its own.
    other = w.Store(engine)
    with pytest.raises(w.LinkError, match="another store"):
        linker.instantiate(other, w.Module(engine, APP))


def test_explicit_type_and_hint_forms(engine, store):
    linker = w.Linker(engine)
    linker.define_func("m", "f", lambda x: x + 1, w.FuncType([I32], [I32]))

    def none(x: w.i32) -> None:
        pass

    def ref(f: Optional[w.Func], o: object) -> w.Func:
        assert f is not None
        return f

    assert w.Func(store, None, none).type.results == []
    assert w.Func(store, None, ref).type.params == [w.ValType.funcref(), w.ValType.externref()]
    m = w.Module(engine, '(module (import "m" "f" (func (param i32) (result i32))) (export "f" (func 0)))')
    assert linker.instantiate(store, m).exports.f(1) == 2


def test_bad_hints_are_refused_when_defined(engine):
    linker = w.Linker(engine)

    def untyped(x):  # type: ignore[no-untyped-def]
        return x

    def text(x: str) -> int:
        return 0

    def star(*xs: int) -> int:
        return 0

    for fn in (untyped, text, star, len):
        with pytest.raises(TypeError):
            linker.define_func("m", "f", fn)
    with pytest.raises(TypeError):
        linker.define_func("m", "f", 3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        linker.define_func("m", "f", scale, ty="i32")  # type: ignore[arg-type]


def test_missing_import_is_named(engine, store):
    linker = full_linker(engine, store)
    m = w.Module(engine, '(module (import "env" "nope" (func (param i32))))')
    with pytest.raises(w.LinkError, match=r"missing import `env`.`nope` \(func \(i32\) -> \(\)\)") as e:
        linker.instantiate(store, m)
    assert (e.value.module, e.value.name) == ("env", "nope")
    assert "LinkError(" in repr(e.value)


@pytest.mark.parametrize("wat, what", [
    ('(import "env" "scale" (func (param i64) (result f64)))', "expected func (i64) -> (f64), defined as func (i32)"),
    ('(import "env" "g" (global i32))', "expected global i32, defined as global mut i32"),
    ('(import "env" "g" (global (mut i64)))', "expected global mut i64"),
    ('(import "env" "mem" (memory 2))', "expected memory (2, None)"),
    ('(import "env" "mem" (memory 1 1))', "expected memory (1, 1), defined as memory (1, None)"),
    ('(import "env" "tab" (table 1 externref))', "expected table externref"),
    ('(import "env" "scale" (memory 1))', "expected memory (1, None), defined as func"),
])
def test_mismatched_import_is_named(engine, store, wat, what):
    linker = full_linker(engine, store)
    with pytest.raises(w.LinkError, match=r"import `env`.`\w+`: ") as e:
        linker.instantiate(store, w.Module(engine, f"(module {wat})"))
    assert what in str(e.value)


def test_shadowing_and_bad_definitions(engine, store):
    linker = w.Linker(engine)
    g = w.Global(store, w.GlobalType(I32, False), 1)
    linker.define("a", "b", g)
    with pytest.raises(w.LinkError, match="already defined"):
        linker.define("a", "b", g)
    linker.allow_shadowing = True
    linker.define("a", "b", g)
    with pytest.raises(TypeError):
        linker.define("a", "c", 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        linker.define(1, "c", g)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        linker.define_instance("x", g)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        linker.instantiate(engine, None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Linker(store)  # type: ignore[arg-type]
