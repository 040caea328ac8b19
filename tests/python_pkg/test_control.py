"""Stopping and bounding guests: fuel, interrupts from another Python
thread (a threading.Timer), epochs, store limits, and engine settings."""

import threading
import time

import pytest

import cranewasm as w

SPIN = """(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func $spin (export "spin") (loop $l (br $l)))
  (func (export "_start") (call $spin))
  (func (export "count") (param i32) (result i32)
    (local $i i32)
    (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get $i) (local.get 0))))
    (local.get $i)))"""


def spin_instance(engine, store):
    linker = w.Linker(engine)
    linker.define_wasi()
    return linker.instantiate(store, w.Module(engine, SPIN))


def test_timer_interrupts_a_runaway_wasi_guest_within_100ms():
    engine = w.Engine()
    with w.Store(engine) as store:
        inst = spin_instance(engine, store)
        handle = store.interrupt_handle()
        fired = []
        timer = threading.Timer(0.05, lambda: (fired.append(time.perf_counter()), handle.interrupt()))
        timer.start()
        with pytest.raises(w.Trap) as e:
            w.WasiConfig().start(inst)
        stopped = time.perf_counter()
        timer.join()
        assert e.value.code == w.TrapCode.INTERRUPTED
        assert stopped - fired[0] < 0.1, f"stopped {stopped - fired[0]:.3f} s after interrupt()"
        # The store stays usable.
        assert inst.exports.count(10) == 10
        handle.close()
        handle.close()
        with pytest.raises(ValueError):
            handle.interrupt()
        assert "closed" in repr(handle)


def test_interrupt_before_a_call_stops_the_next_call(engine, store):
    inst = spin_instance(engine, store)
    h = store.interrupt_handle()
    assert repr(h) == "InterruptHandle(open)"
    h.interrupt()
    with pytest.raises(w.Trap) as e:
        inst.exports.count(5)
    assert e.value.code == w.TrapCode.INTERRUPTED


def test_fuel():
    engine = w.Engine(w.Config(consume_fuel=True))
    store = w.Store(engine)
    inst = spin_instance(engine, store)
    store.set_fuel(10_000)
    assert store.get_fuel() == 10_000
    assert inst.exports.count(100) == 100
    left = store.get_fuel()
    assert 0 < left < 10_000
    with pytest.raises(w.Trap) as e:
        inst.exports.spin()
    assert e.value.code == w.TrapCode.OUT_OF_FUEL
    assert e.value.message == "Exception: instruction limit exceeded"  # WAMR's words
    assert e.value.frames[0].func_name == "spin"
    assert store.get_fuel() == 0
    store.set_fuel(50)
    with pytest.raises(w.Trap) as e:
        inst.exports.count(1_000_000)
    assert e.value.code == w.TrapCode.OUT_OF_FUEL
    for bad in (-1, 1.5, True):
        with pytest.raises(TypeError):
            store.set_fuel(bad)  # type: ignore[arg-type]


def test_fuel_needs_the_config(engine, store):
    with pytest.raises(w.WasmError, match="fuel is not enabled"):
        store.set_fuel(10)
    with pytest.raises(w.WasmError, match="fuel is not enabled"):
        store.get_fuel()


def test_epoch_deadline():
    engine = w.Engine(w.Config(epoch_interruption=True))
    store = w.Store(engine)
    inst = spin_instance(engine, store)
    store.set_epoch_deadline(1)
    timer = threading.Timer(0.05, engine.increment_epoch)
    timer.start()
    with pytest.raises(w.Trap) as e:
        inst.exports.spin()
    timer.join()
    assert e.value.code == w.TrapCode.EPOCH_DEADLINE
    with pytest.raises(TypeError):
        store.set_epoch_deadline(-1)


def test_limits(engine, store):
    store.set_limits(memory_size=2 * 65536, table_elements=3, instances=2)
    m = w.Memory(store, w.MemoryType(1))
    assert m.grow(1) == 1
    with pytest.raises(w.WasmError):
        m.grow(1)  # past memory_size
    t = w.Table(store, w.TableType(w.ValType.funcref(), 1))
    assert t.grow(2) == 1
    with pytest.raises(w.WasmError):
        t.grow(1)  # past table_elements
    grower = w.Module(engine, '(module (memory (export "m") 1) (func (export "g") (result i32) '
                              '(memory.grow (i32.const 5))))')
    inst = w.Instance(store, grower)
    assert inst.exports.g() == -1  # the guest sees a failed growth
    second = w.Instance(store, grower)
    with pytest.raises(w.WasmError, match="refused by the store's resource limiter"):
        w.Instance(store, grower)  # a third live instance
    del second
    w.Instance(store, grower)  # the limit counts live instances
    for bad in ({"memory_size": -1}, {"instances": 1.5}, {"tables": True}):
        with pytest.raises(TypeError):
            store.set_limits(**bad)  # type: ignore[arg-type]


def test_config_settings_and_errors():
    for cfg in (w.Config(lazy=True), w.Config(lazy=False, bounds_checks="explicit"),
                w.Config(bounds_checks="guard-pages", max_wasm_stack=1 << 20)):
        engine = w.Engine(cfg)
        store = w.Store(engine)
        inst = spin_instance(engine, store)
        assert inst.exports.count(7) == 7
        assert "Config(" in repr(engine)
    explicit = w.Engine(w.Config(bounds_checks="explicit"))
    s = w.Store(explicit)
    oob = w.Instance(s, w.Module(explicit, '(module (memory 1) (func (export "f") (result i32) '
                                           '(i32.load (i32.const 70000))))'))
    with pytest.raises(w.Trap) as e:
        oob.exports.f()
    assert e.value.code == w.TrapCode.MEMORY_OUT_OF_BOUNDS
    with pytest.raises(ValueError):
        w.Config(bounds_checks="none")
    with pytest.raises(ValueError):
        w.Config(max_wasm_stack=0)
    with pytest.raises(TypeError):
        w.Engine("fast")  # type: ignore[arg-type]


def test_engines_of_their_own_do_not_mix(engine):
    other = w.Engine(w.Config())
    m = w.Module(other, "(module)")
    with pytest.raises(w.WasmError, match="another engine"):
        w.Instance(w.Store(engine), m)
    with pytest.raises(w.LinkError, match="another engine"):
        w.Linker(engine).instantiate(w.Store(other), m)


def test_engine_context_manager_and_close():
    with w.Engine(w.Config(consume_fuel=True)) as engine:
        store = w.Store(engine)
        module = w.Module(engine, SPIN)
    assert "closed" in repr(engine)
    with pytest.raises(ValueError):
        engine.increment_epoch()
    with pytest.raises(ValueError):
        w.Store(engine)
    # What was made before keeps its engine (fuel included).
    inst = w.Instance(store, module)
    store.set_fuel(1000)
    assert inst.exports.count(3) == 3 and store.get_fuel() < 1000
    engine.close()
    with w.Engine() as e2:
        assert repr(e2) == "Engine()"
