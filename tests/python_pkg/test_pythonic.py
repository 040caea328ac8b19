"""Pythonic edges: context managers, memory as memoryview and numpy
arrays without copies, the compiled-code cache in a file, a repr and a
docstring on every public name, and the typing marker."""

import inspect
from pathlib import Path

import pytest

import cranewasm as w

MEM = '(module (memory (export "m") 1 3) (func (export "sum") (param i32 i32) (result i32) ' \
      '(i32.add (i32.load (local.get 0)) (i32.load (local.get 1)))))'


def test_store_context_manager_frees_at_exit(engine):
    with w.Store(engine) as store:
        inst = w.Instance(store, w.Module(engine, MEM))
        assert repr(store) == "Store(open)"
    assert repr(store) == "Store(closed)"
    with pytest.raises(w.StoreClosed):
        inst.exports.sum(0, 4)
    with pytest.raises(TypeError):
        w.Store("engine")  # type: ignore[arg-type]


def test_memory_views_and_numpy(store):
    import numpy as np  # the test command installs it: this must not skip
    inst = w.Instance(store, w.Module(store.engine, MEM))
    mem = inst.exports.m
    view = mem.buffer
    assert isinstance(view, memoryview) and len(view) == 65536 and not view.readonly
    view[0:4] = (5).to_bytes(4, "little")
    arr = mem.numpy("int32", 4, 2)
    arr[0] = 37
    assert inst.exports.sum(0, 4) == 42  # both views write wasm's bytes, no copy
    assert mem.numpy(np.uint8, 0, 1)[0] == 5
    assert mem.numpy("int32").shape == (65536 // 4,)
    assert mem.numpy("int64", 65536).shape == (0,)
    for bad in ((np.int32, -4, 1), (np.int32, 65536 - 4, 2), (np.int8, 70000, None), (np.int8, 0, -1)):
        with pytest.raises(IndexError):
            mem.numpy(*bad)
    assert mem.grow(1) == 1 and mem.data_size == 2 * 65536
    assert len(mem.buffer) == 2 * 65536
    empty = w.Memory(store, w.MemoryType(0))
    assert len(empty.buffer) == 0 and empty.numpy("uint8").shape == (0,)
    with pytest.raises(w.WasmError):
        empty.grow(-1)


def test_cache_file(engine, tmp_path):
    m = w.Module(engine, MEM)
    path = tmp_path / "m.cwasm"
    path.write_bytes(m.serialize())
    again = w.Module.deserialize_file(engine, path)
    inst = w.Instance(w.Store(engine), again)
    inst.exports.m.write(0, (1).to_bytes(4, "little"))
    assert inst.exports.sum(0, 0) == 2
    (tmp_path / "bad").write_bytes(b"not compiled code")
    with pytest.raises(w.WasmError):
        w.Module.deserialize_file(engine, tmp_path / "bad")


def test_every_public_name_has_help_and_every_object_a_repr(engine, store):
    for name in w.__all__:
        obj = getattr(w, name)
        if isinstance(obj, str):
            continue  # LIBRARY_PATH
        doc = inspect.getdoc(obj)
        assert doc and len(doc) > 20, f"cranewasm.{name} has no help text"
        if inspect.isclass(obj) and not issubclass(obj, w.TrapCode):
            for attr, member in vars(obj).items():
                if attr.startswith("_") or not (callable(getattr(obj, attr)) or isinstance(member, property)):
                    continue
                doc = member.__doc__ if isinstance(member, property) else getattr(obj, attr).__doc__
                assert doc, f"cranewasm.{name}.{attr} has no help text"
    m = w.Module(engine, MEM)
    inst = w.Instance(store, m)
    objects = [engine, w.Engine(w.Config()), w.Config(), store, m, inst, inst.exports, inst.exports.m,
               inst.exports.sum, w.Global(store, w.GlobalType(w.ValType.i32(), False), 1),
               w.Table(store, w.TableType(w.ValType.funcref(), 1)), w.Linker(engine), w.WasiConfig(),
               store.interrupt_handle(), w.Trap("x"), w.Frame(0, 0, 0), w.WasmError("x"), w.LinkError("x"),
               w.WasiExit(3), w.StoreClosed(), w.CAPTURE, w.TrapCode.UNREACHABLE, w.ValType.i32(),
               w.FuncType([], []), w.GlobalType(w.ValType.i32(), True), w.TableType(w.ValType.funcref(), 1),
               w.MemoryType(1), m.imports, m.exports[0]]
    for o in objects:
        r = repr(o)
        assert r and " object at 0x" not in r, f"{type(o).__name__} has no repr of its own: {r}"


def test_the_package_is_typed():
    assert (Path(w.__file__).parent / "py.typed").is_file()
