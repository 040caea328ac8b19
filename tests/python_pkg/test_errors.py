"""Errors with reasons: a malformed or invalid module's validator message
and offset in the exception with nothing on stderr, traps with codes and
named frames, a host function's exception as the trap's cause, wrong
arity and types, and every object used after its store is closed."""

import subprocess
import sys

import pytest

import cranewasm as w

I32 = w.ValType.i32()


def test_malformed_module_reason_and_offset_without_stderr(engine, capfd):
    with pytest.raises(w.WasmError) as e:
        w.Module(engine, b"\0asm\x01\0\0\0\x01\x05\x01\x60\x00")  # truncated type section
    assert "unexpected end" in e.value.message and e.value.offset is not None
    with pytest.raises(w.WasmError) as e:
        w.Module(engine, "(module (func (result i32)))")  # invalid: nothing on the stack
    assert e.value.message == "invalid module: type mismatch: expected i32 but nothing on stack (at offset 0x18)"
    assert e.value.offset == 0x18 and "offset=24" in repr(e.value)
    with pytest.raises(w.WasmError, match="magic header"):
        w.Module(engine, b"nope")
    with pytest.raises(w.WasmError, match="expected") as e:
        w.Module(engine, "(module (oops")
    with pytest.raises(w.WasmError, match="serialized|cache|compiled"):
        w.Module.deserialize(engine, b"garbage")
    out, err = capfd.readouterr()
    assert (out, err) == ("", ""), "the library wrote to stdout/stderr"


def test_log_level_turns_stderr_back_on():
    code = ("import cranewasm as w\ncranewasm = w\nw.set_log_level(2)\n"
            "try:\n    w.Module(w.Engine(), b'nope')\nexcept w.WasmError as e:\n    print(e.message)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "magic header" in out.stdout and "magic header" in out.stderr
    for bad in (-1, True, "2"):
        with pytest.raises(ValueError):
            w.set_log_level(bad)  # type: ignore[arg-type]


TRAPS = """(module
  (table 1 funcref)
  (memory 1)
  (func $inner (export "div") (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func $outer (export "outer") (param i32) (result i32) (call $inner (local.get 0)))
  (func (export "unreachable") unreachable)
  (func (export "oob") (result i32) (i32.load (i32.const 65536)))
  (func (export "null") (call_indirect (i32.const 0)))
  (func (export "conv") (result i32) (i32.trunc_f32_s (f32.const nan)))
  (func (export "ovf") (result i32) (i32.div_s (i32.const 0x80000000) (i32.const -1)))
  (func $deep (export "deep") (call $deep)))"""


@pytest.mark.parametrize("name, args, code", [
    ("div", (0,), w.TrapCode.INTEGER_DIVISION_BY_ZERO), ("unreachable", (), w.TrapCode.UNREACHABLE),
    ("oob", (), w.TrapCode.MEMORY_OUT_OF_BOUNDS), ("null", (), w.TrapCode.INDIRECT_CALL_TO_NULL),
    ("conv", (), w.TrapCode.BAD_CONVERSION_TO_INTEGER), ("ovf", (), w.TrapCode.INTEGER_OVERFLOW),
    ("deep", (), w.TrapCode.STACK_OVERFLOW),
])
def test_trap_codes(store, name, args, code):
    inst = w.Instance(store, w.Module(store.engine, TRAPS))
    with pytest.raises(w.Trap) as e:
        inst.exports[name](*args)
    assert e.value.code == code


def test_trap_frames_name_functions(store):
    inst = w.Instance(store, w.Module(store.engine, TRAPS))
    with pytest.raises(w.Trap) as e:
        inst.exports.outer(0)
    names = [fr.func_name for fr in e.value.frames]
    assert names[:2] == ["inner", "outer"]
    assert "inner at" in str(e.value) and "func_name='inner'" in repr(e.value.frames[0])
    assert "code=<TrapCode.INTEGER_DIVISION_BY_ZERO" in repr(e.value)
    nameless = w.Instance(store, w.Module(store.engine, b"\0asm\x01\0\0\0\x01\x04\x01\x60\0\0\x03\x02\x01\0"
                                          b"\x07\x05\x01\x01f\0\0\x0a\x05\x01\x03\0\0\x0b"))
    with pytest.raises(w.Trap) as e:
        nameless.exports.f()
    assert e.value.frames[0].func_name is None and "<func 0>" in str(e.value)


def test_host_exception_is_the_cause(store):
    m = w.Module(store.engine, '(module (import "h" "f" (func $f (param i32))) '
                               '(func (export "go") (param i32) (call $f (local.get 0))))')

    def boom(x: int) -> None:
        raise KeyError(f"no key {x}")

    inst = w.Instance(store, m, [w.Func(store, None, boom)])
    with pytest.raises(w.Trap) as e:
        inst.exports.go(7)
    assert isinstance(e.value.__cause__, KeyError) and e.value.__cause__.args == ("no key 7",)
    assert e.value.code is None and "KeyError" in e.value.message
    # A later trap of wasm's own has no stale cause.
    bad_result = w.Instance(store, m, [w.Func(store, w.FuncType([I32], []), lambda x: 1 // x)])
    with pytest.raises(w.Trap) as e:
        bad_result.exports.go(0)
    assert isinstance(e.value.__cause__, ZeroDivisionError)
    inst2 = w.Instance(store, w.Module(store.engine, TRAPS))
    with pytest.raises(w.Trap) as e:
        inst2.exports.div(0)
    assert e.value.__cause__ is None


def test_host_results_of_the_wrong_shape(store):
    m = w.Module(store.engine, '(module (import "h" "f" (func $f (result i32 i32))) '
                               '(func (export "go") (result i32 i32) (call $f)))')
    inst = w.Instance(store, m, [w.Func(store, w.FuncType([], [I32, I32]), lambda: 1)])
    with pytest.raises(w.Trap) as e:
        inst.exports.go()
    assert isinstance(e.value.__cause__, TypeError)
    inst = w.Instance(store, m, [w.Func(store, w.FuncType([], [I32, I32]), lambda: ("a", 1))])
    with pytest.raises(w.Trap) as e:
        inst.exports.go()
    assert isinstance(e.value.__cause__, TypeError)


def test_wrong_arity_and_types(store):
    inst = w.Instance(store, w.Module(store.engine, TRAPS))
    with pytest.raises(TypeError, match="expected 1 arguments, got 2"):
        inst.exports.div(1, 2)
    with pytest.raises(TypeError, match="expected 1 arguments, got 0"):
        inst.exports.div()
    for bad in ("1", 1.0, None, 2**32, True):
        with pytest.raises(TypeError):
            inst.exports.div(bad)
    with pytest.raises(TypeError):
        w.Func(store, w.FuncType([], []), 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Func(store, "()", print)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Func(None, None, print)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Memory(store, 1)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Table(store, w.MemoryType(1))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        w.Global(store, w.MemoryType(1), 0)  # type: ignore[arg-type]


def test_everything_after_the_store_is_closed(engine):
    store = w.Store(engine)
    m = w.Module(engine, '(module (memory (export "m") 1) (global (export "g") (mut i32) (i32.const 1)) '
                         '(table (export "t") 1 funcref) (func (export "f")))')
    inst = w.Instance(store, m)
    f, mem, g, t = inst.exports.f, inst.exports.m, inst.exports.g, inst.exports.t
    h = store.interrupt_handle()
    store.close()
    store.close()  # twice is fine
    checks = [lambda: f(), lambda: f.type, lambda: mem.buffer, lambda: mem.read(0, 1), lambda: mem.write(0, b"x"),
              lambda: mem.grow(1), lambda: mem.size, lambda: g.value, lambda: t[0], lambda: t.size,
              lambda: store.set_fuel(1), lambda: store.get_fuel(), lambda: store.set_limits(instances=1),
              lambda: store.set_epoch_deadline(1), lambda: store.interrupt_handle(), lambda: w.Instance(store, m),
              lambda: w.Func(store, w.FuncType([], []), print), lambda: w.Memory(store, w.MemoryType(1)),
              lambda: w.Linker(engine).instantiate(store, m)]
    for check in checks:
        with pytest.raises(w.StoreClosed, match="the store is closed"):
            check()
    h.interrupt()  # harmless once the store is gone
    for obj in (f, mem, g, t):
        assert "store closed" in repr(obj)
    assert repr(store) == "Store(closed)"
