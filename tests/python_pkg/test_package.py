"""The cranewasm Python package: every class, positive and negative cases,
traps, values of every type, and ownership in any drop order."""

import gc
import os
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import cranewasm as w

i32, i64, f32, f64 = w.ValType.i32(), w.ValType.i64(), w.ValType.f32(), w.ValType.f64()
ROOT = Path(__file__).resolve().parents[2]

WAT = """(module
  (import "host" "inc" (func $inc (param i32) (result i32)))
  (memory (export "mem") 1 4)
  (global (export "g") (mut i64) (i64.const 5))
  (global (export "c") f32 (f32.const 1.5))
  (table (export "t") 2 8 funcref)
  (table (export "refs") 2 externref)
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1)))
  (func (export "via") (param i32) (result i32) (call $inc (local.get 0)))
  (func (export "swap") (param f64 i64) (result i64 f64) (local.get 1) (local.get 0))
  (func (export "div") (param i32) (result i32) (i32.div_s (i32.const 1) (local.get 0)))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "id") (param externref) (result externref) (local.get 0))
  (func (export "v") (param v128) (result v128) (i64x2.add (local.get 0) (local.get 0)))
  (func (export "call_t") (param i32 i32 i32) (result i32)
    (call_indirect (param i32 i32) (result i32) (local.get 1) (local.get 2) (local.get 0)))
  (func $deep (export "deep") (param i32) (result i32) (call $deep (i32.add (local.get 0) (i32.const 1)))))"""


def world(store, inc=lambda x: x + 1):
    module = w.Module(store.engine, WAT)
    f = w.Func(store, w.FuncType([i32], [i32]), inc)
    return module, w.Instance(store, module, [f])


def test_types_and_reprs():
    ft = w.FuncType([i32, i64], [f32])
    assert ft.params == [i32, i64] and ft.results == [f32]
    assert repr(ft) == "FuncType([ValType.i32(), ValType.i64()], [ValType.f32()])"
    gt = w.GlobalType(f64, True)
    assert gt.content == f64 and gt.mutable
    tt = w.TableType(w.ValType.funcref(), 1, 5)
    assert tt.element == w.ValType.funcref() and tt.limits == (1, 5)
    assert w.MemoryType(2).limits == (2, None)
    for bad in (lambda: w.ValType(7), lambda: w.FuncType([1], []), lambda: w.TableType(i32, 1),
                lambda: w.MemoryType(3, 2), lambda: w.GlobalType("i32", False)):
        with pytest.raises((TypeError, ValueError)):
            bad()


def test_module_reflection_serialize_and_errors(engine):
    m = w.Module(engine, WAT)
    assert [(i.module, i.name) for i in m.imports] == [("host", "inc")]
    assert isinstance(m.imports[0].type, w.FuncType)
    names = [e.name for e in m.exports]
    assert names[:4] == ["mem", "g", "c", "t"]
    assert isinstance(m.exports[0].type, w.MemoryType) and m.exports[0].type.limits == (1, 4)
    assert w.Module.validate(engine, b"\0asm\x01\0\0\0")
    assert not w.Module.validate(engine, b"\0asm\x01\0\0\0\x01")
    with pytest.raises(w.WasmError):
        w.Module(engine, b"not wasm")
    with pytest.raises(w.WasmError):
        w.Module(engine, "(module (func (result i32)))")  # invalid: empty body
    with pytest.raises(w.WasmError):
        w.Module(engine, "(module (oops")
    with pytest.raises(TypeError):
        w.Module(engine, None)
    again = w.Module.deserialize(engine, m.serialize())
    assert [e.name for e in again.exports] == names
    with pytest.raises(w.WasmError):
        w.Module.deserialize(engine, b"garbage")


def test_module_from_file(engine, tmp_path):
    p = tmp_path / "m.wat"
    p.write_text('(module (func (export "f") (result i32) (i32.const 4)))')
    store = w.Store(engine)
    assert w.Instance(store, w.Module.from_file(engine, p)).exports.f() == 4


def test_calls_host_functions_and_values(store):
    seen = []
    _, inst = world(store, lambda x: seen.append(x) or x * 10)
    ex = inst.exports
    assert ex.add(2, 3) == 5 and ex["add"](-1, -2) == -3
    assert ex.add(2**31 - 1, 1) == -(2**31)          # wraps like i32
    assert ex.add(0xFFFFFFFF, 0) == -1                # unsigned spelling accepted
    assert ex.via(4) == 40 and seen == [4]
    assert ex.swap(2.5, 7) == (7, 2.5)
    assert ex.v(1 | (2 << 64)) == 2 | (4 << 64)
    obj = {"any": "object"}
    assert ex.id(obj) is obj and ex.id(None) is None
    assert len(ex) == 14 and "add" in ex and list(ex)[0] == "mem"
    assert isinstance(ex.add, w.Func) and ex.add.type.params == [i32, i32]


def test_v128_lanes(store):
    _, inst = world(store)
    lanes = (3).to_bytes(8, "little") + (5).to_bytes(8, "little")
    assert inst.exports.v(lanes) == 6 | (10 << 64)


def test_wrong_arguments(store):
    _, inst = world(store)
    add = inst.exports.add
    with pytest.raises(TypeError):
        add(1)
    with pytest.raises(TypeError):
        add(1, 2, 3)
    with pytest.raises(TypeError):
        add("1", 2)
    with pytest.raises(TypeError):
        add(2**40, 1)
    with pytest.raises(TypeError):
        inst.exports.v(b"short")
    with pytest.raises(AttributeError):
        inst.exports.nope
    with pytest.raises(KeyError):
        inst.exports["nope"]


def test_traps(store):
    _, inst = world(store)
    with pytest.raises(w.Trap) as e:
        inst.exports.div(0)
    assert e.value.message == "Exception: integer divide by zero"
    assert e.value.frames and e.value.frames[0].func_index == 4  # import 0, add 1, ..., div 4
    with pytest.raises(w.Trap, match="out of bounds memory access"):
        inst.exports.load(65536)
    with pytest.raises(w.Trap, match="wasm operand stack overflow"):
        inst.exports.deep(0)
    assert inst.exports.add(1, 1) == 2  # the store stays usable


def test_python_exceptions_become_traps(store):
    def boom(x):
        raise RuntimeError(f"no {x}")

    _, inst = world(store, boom)
    with pytest.raises(w.Trap, match="RuntimeError: no 3"):
        inst.exports.via(3)
    _, inst2 = world(store, lambda x: "not an int")
    with pytest.raises(w.Trap, match="TypeError"):
        inst2.exports.via(3)


def test_memory(store):
    _, inst = world(store)
    mem = inst.exports.mem
    assert (mem.size, mem.data_size) == (1, 65536)
    mem.write(100, b"\x01\x02\x03\x04")
    assert inst.exports.load(100) == 0x04030201
    view = mem.buffer
    view[200] = 9
    assert mem.read(200, 1) == b"\x09"
    assert mem.grow(2) == 1 and mem.size == 3
    with pytest.raises(w.WasmError):
        mem.grow(5)
    with pytest.raises(IndexError):
        mem.read(3 * 65536 - 1, 2)
    host = w.Memory(store, w.MemoryType(1, 2))
    assert host.size == 1 and repr(host).startswith("Memory(")


MEMORY64_WAT = """(module
  (import "env" "mem" (memory i64 1 4))
  (table (export "tab") i64 2 funcref)
  (func (export "store") (param i64 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "size") (result i64) (memory.size)))"""


def test_memory64(store):
    ty = w.MemoryType(1, 4, is64=True)
    assert ty.is64 and ty.limits == (1, 4) and repr(ty) == "MemoryType(1, 4, is64=True)"
    assert not w.MemoryType(1, 4).is64 and w.MemoryType(1).limits == (1, None)
    assert w.MemoryType(2, 2**40, is64=True).limits == (2, 2**40), "limits past 32 bits"
    tt = w.TableType(w.ValType.funcref(), 2, None, is64=True)
    assert tt.is64 and tt.limits == (2, None) and not w.TableType(w.ValType.funcref(), 2).is64
    module = w.Module(store.engine, MEMORY64_WAT)
    assert module.imports[0].type.is64 and module.imports[0].type.limits == (1, 4)
    tab = [e for e in module.exports if e.name == "tab"][0].type
    assert tab.is64 and tab.limits == (2, None)
    mem = w.Memory(store, ty)
    inst = w.Instance(store, module, [mem])
    inst.exports.store(65535, 5)
    assert mem.read(65535, 1) == b"\x05"
    with pytest.raises(w.Trap):
        inst.exports.store(1 << 32, 1)
    assert mem.grow(1) == 1 and inst.exports.size() == 2


def test_uncaught_wasm_exception(store):
    module = w.Module(store.engine, """(module
      (tag $e (param i32 f64))
      (func $deep (param i32) (throw $e (local.get 0) (f64.const 2.5)))
      (func (export "throw") (param i32) (call $deep (local.get 0)))
      (func (export "caught") (param i32) (result i32)
        (block $h (result i32 f64)
          (try_table (catch $e $h) (call $deep (local.get 0)))
          (unreachable))
        (drop)))""")
    inst = w.Instance(store, module, [])
    with pytest.raises(w.WasmException) as info:
        inst.exports.throw(7)
    e = info.value
    assert isinstance(e, w.Trap) and e.payload == [7, 2.5] and e.code is None
    assert e.message == "Exception: uncaught wasm exception" and repr(e) == "WasmException([7, 2.5])"
    assert inst.exports.caught(9) == 9, "caught in wasm, the store goes on"
    plain = w.Instance(store, w.Module(store.engine, '(module (func (export "f") unreachable))'), [])
    with pytest.raises(w.Trap) as other:
        plain.exports.f()
    assert not isinstance(other.value, w.WasmException)


SHARED_WAT = """(module
  (import "env" "mem" (memory 1 4 shared))
  (func (export "store") (param i32 i32) (i32.atomic.store (local.get 0) (local.get 1)))
  (func (export "load") (param i32) (result i32) (i32.atomic.load (local.get 0)))
  (func (export "add") (param i32 i32) (result i32) (i32.atomic.rmw.add (local.get 0) (local.get 1)))
  (func (export "size") (result i32) (memory.size)))"""


def test_shared_memory(store):
    ty = w.MemoryType(1, 4, shared=True)
    assert ty.shared and ty.limits == (1, 4) and repr(ty) == "MemoryType(1, 4, shared=True)"
    assert not w.MemoryType(1, 4).shared
    with pytest.raises(ValueError):
        w.MemoryType(1, shared=True)
    mem = w.Memory(store, ty)
    assert mem.type.shared
    module = w.Module(store.engine, SHARED_WAT)
    assert module.imports[0].type.shared, "a shared import says so"
    a, b = w.Instance(store, module, [mem]), w.Instance(store, module, [mem])
    a.exports.store(8, 41)
    assert b.exports.add(8, 1) == 41 and a.exports.load(8) == 42, "one memory for both instances"
    view = mem.buffer
    assert int.from_bytes(view[8:12], "little") == 42
    # Growth never moves a shared memory: the old view still aliases it.
    assert mem.grow(2) == 1 and a.exports.size() == 3 == b.exports.size()
    view[100] = 7
    assert b.exports.load(100) == 7
    a.exports.store(12, 0x01020304)
    assert bytes(view[12:16]) == b"\x04\x03\x02\x01"
    # A new view covers the new pages.
    mem.buffer[2 * 65536] = 9
    assert a.exports.load(2 * 65536) == 9
    # An unshared memory does not satisfy a shared import: as WAMR does
    # with memories it does not link, the instance gets one of its own.
    own = w.Instance(store, module, [w.Memory(store, w.MemoryType(1, 4))])
    own.exports.store(8, 5)
    assert own.exports.load(8) == 5 and a.exports.load(8) == 42 and own.exports.size() == 1


def test_globals(store):
    _, inst = world(store)
    g, cst = inst.exports.g, inst.exports.c
    assert g.value == 5 and g.type.mutable and cst.value == 1.5
    g.value = -(2**40)
    assert g.value == -(2**40)
    with pytest.raises(AttributeError):
        cst.value = 2.0
    h = w.Global(store, w.GlobalType(f64, False), 2.25)
    assert h.value == 2.25
    with pytest.raises(TypeError):
        w.Global(store, w.GlobalType(i32, True), "x")


def test_host_globals_are_templates_until_imported(store, engine):
    # As in WAMR's C API, a host global is a value until an instance
    # imports it; the instance gets a global of its own holding it, for
    # which the Python object then stands (and which a later instance
    # importing the object shares).
    m = w.Module(engine, """(module (import "host" "g" (global $g (mut i32)))
      (func (export "get") (result i32) (global.get $g))
      (func (export "set") (param i32) (global.set $g (local.get 0))))""")
    g = w.Global(store, w.GlobalType(i32, True), 1)
    assert g.value == 1
    g.value = 2
    assert g.value == 2
    a = w.Instance(store, m, [g])
    assert a.exports.get() == 2
    a.exports.set(3)
    assert g.value == 3
    b = w.Instance(store, m, [g])
    assert b.exports.get() == 3
    b.exports.set(4)
    assert (g.value, a.exports.get()) == (4, 4)


def test_funcrefs_do_not_accumulate(store):
    # Passing a Func as a funcref makes a reference object (as WAMR's
    # wasm_func_as_ref does), deleted once the call is done.
    _, inst = world(store)
    t, add = inst.exports.t, inst.exports.add
    for i in range(200):
        t[i % 2] = add
        assert t[i % 2] is not None
    assert inst.exports.call_t(0, 2, 3) == 5


def test_tables(store):
    _, inst = world(store)
    t = inst.exports.t
    assert len(t) == 2 and t[0] is None
    t[1] = inst.exports.add
    assert inst.exports.call_t(1, 20, 22) == 42
    assert t[1](1, 2) == 3
    assert t.grow(3) == 2 and len(t) == 5
    with pytest.raises(w.WasmError):
        t.grow(10)
    with pytest.raises(IndexError):
        t[99]
    with pytest.raises(TypeError):
        t[0] = "not a func"
    refs = inst.exports.refs
    marker = object()
    refs[0] = marker
    assert refs[0] is marker
    own = w.Table(store, w.TableType(w.ValType.funcref(), 1), None)
    assert own.size == 1


def test_imports_checked(store, engine):
    m = w.Module(engine, WAT)
    with pytest.raises(w.WasmError):
        w.Instance(store, m, [w.Func(store, w.FuncType([], []), lambda: None)])
    with pytest.raises(TypeError):
        w.Instance(store, m, ["nope"])
    other = w.Store(engine)
    with pytest.raises(w.WasmError):
        w.Instance(store, m, [w.Func(other, w.FuncType([i32], [i32]), abs)])
    with pytest.raises(w.Trap, match="unreachable"):
        w.Instance(store, w.Module(engine, "(module (func unreachable) (start 0))"))


SOCKETS = r"""(module
  (import "wasi_snapshot_preview1" "sock_open" (func $open (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_connect" (func $connect (param i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "sock_addr_resolve" (func $resolve (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 64) "\00\00\00\00\7f\00\00\01\09\00")
  (data (i32.const 128) "localhost\00")
  (data (i32.const 160) "\ff\ff\ff\ff\00\00\00\00\01")
  (func (export "connect") (result i32) (local $e i32)
    (local.set $e (call $open (i32.const -1) (i32.const 0) (i32.const 0) (i32.const 0)))
    (if (local.get $e) (then (return (local.get $e))))
    (call $connect (i32.load (i32.const 0)) (i32.const 64)))
  (func (export "resolve") (result i32)
    (call $resolve (i32.const 128) (i32.const 144) (i32.const 160) (i32.const 256) (i32.const 4)
      (i32.const 240))))"""
EACCES = 2


def test_wasi_config_sets_what_sockets_reach(engine):
    """A guest connecting a UDP socket to 127.0.0.1:9 (which sends nothing)
    and looking up localhost: WASI is linked by the library, with the
    module's WasiConfig."""
    m = w.Module(engine, SOCKETS)
    assert m.wasi is None
    i = w.Instance(w.Store(engine), m)
    assert (i.exports.connect(), i.exports.resolve()) == (EACCES, EACCES), "no pool, no lookups"
    m.wasi = w.WasiConfig(addr_pool=["127.0.0.1/32"], allow_resolve=["localhost"])
    i = w.Instance(w.Store(engine), m)
    assert (i.exports.connect(), i.exports.resolve()) == (0, 0)
    m.wasi = w.WasiConfig(addr_pool=["::1/128"], allow_resolve=["*.invalid"])
    i = w.Instance(w.Store(engine), m)
    assert (i.exports.connect(), i.exports.resolve()) == (EACCES, EACCES)
    m.wasi = w.WasiConfig(addr_pool=["127.0.0.1"])
    with pytest.raises(w.WasmError, match="Invalid address pool entry: 127.0.0.1, must be in the format of ADDRESS/MASK"):
        w.Instance(w.Store(engine), m)
    with pytest.raises(TypeError):
        m.wasi = {"addr_pool": []}


def test_drop_orders_and_gc(engine):
    """A store, a module, an instance and an export, held only by one list
    and dropped one at a time in three orders: whatever is still held keeps
    working, and the C store goes (finalizing its host function, which lets
    the Python callable go) exactly when the last object that needs it does."""
    for order in [(0, 1, 2, 3), (3, 2, 1, 0), (2, 0, 3, 1)]:
        def inc(x):
            return x + 1
        host_alive = weakref.ref(inc)
        store = w.Store(engine)
        module, inst = world(store, inc)
        objs = [store, module, inst, inst.exports.add]
        del store, module, inst, inc
        for step, i in enumerate(order):
            objs[i] = None
            gc.collect()
            store, module, inst, add = objs
            if store is not None:
                assert repr(store) == "Store(open)"
                assert w.Func(store, w.FuncType([i32], [i32]), abs)(-3) == 3
            if module is not None:
                other = w.Store(engine)
                assert w.Instance(other, module, [w.Func(other, w.FuncType([i32], [i32]), abs)]).exports.via(-4) == 4
                del other
            if inst is not None:
                assert inst.exports.via(41) == 42
            if add is not None:
                assert add(1, 2) == 3
            needed = store is not None or inst is not None or add is not None
            del store, module, inst, add
            gc.collect()
            assert (host_alive() is not None) == needed, (order, step)
        assert host_alive() is None


def test_closed_store_refuses_work(engine):
    store = w.Store(engine)
    _, inst = world(store)
    add = inst.exports.add
    store.close()
    with pytest.raises(ValueError):
        add(1, 2)
    store.close()  # twice is fine


def test_many_objects(engine):
    store = w.Store(engine)
    module = w.Module(engine, WAT)
    for i in range(300):
        inst = w.Instance(store, module, [w.Func(store, w.FuncType([i32], [i32]), lambda x: x)])
        assert inst.exports.via(i) == i
    gc.collect()


def test_interpreter_exit_with_live_objects():
    code = """
import cranewasm as w
e = w.Engine(); s = w.Store(e)
m = w.Module(e, '(module (import "h" "f" (func (param i32) (result i32))) (func (export "g") (param i32) (result i32) (call 0 (local.get 0))))')
f = w.Func(s, w.FuncType([w.ValType.i32()], [w.ValType.i32()]), lambda x: x * 2)
i = w.Instance(s, m, [f])
cycle = [i, s]; cycle.append(cycle)
print(i.exports.g(21))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "42"


def test_example_runs():
    out = subprocess.run([sys.executable, str(ROOT / "examples" / "python" / "hello_cranewasm.py")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == "Hello from Python, wasm passed 42\nadd(2, 3) = 5\n"
