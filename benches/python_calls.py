#!/usr/bin/env python3
"""Call overhead and WASI start-up from Python: the cranewasm package
against wasmtime's Python package, in one run, as ratios (these machines
are noisy).

    pip install ./python wasmtime        # ours, and the peer
    python3 benches/python_calls.py

Cases:
  call i32->i32       an i32 -> i32 export called from Python
  wasm->Python        a round trip: an export that calls an imported
                      Python function
  WASI hello          start to exit of a wasi-libc hello world
                      (benches/harness/hello_wasi.c, clang-built) from
                      Python: engine, compile, store, linker with WASI,
                      instantiate, run `_start`, stdout to /dev/null

Like with like: each API is called as its users call it, with no wrapper
on either side (ours `f(x)`, wasmtime's `f(store, x)`, each in its own
loop written out, not through a shared helper with a branch or an extra
call), and both host functions are the same Python function object."""

import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WAT = """(module
  (import "host" "f" (func $f (param i32) (result i32)))
  (func (export "id") (param i32) (result i32) (local.get 0))
  (func (export "via") (param i32) (result i32) (call $f (local.get 0))))"""
N = 100_000
ROUNDS = 5
HELLO_REPS = 30


def ident(x):
    return x


def ns_ours(f):
    """ns per call of our ``f(i)``."""
    t = time.perf_counter_ns()
    for i in range(N):
        f(i)
    return (time.perf_counter_ns() - t) / N


def ns_wasmtime(f, store):
    """ns per call of wasmtime's ``f(store, i)``."""
    t = time.perf_counter_ns()
    for i in range(N):
        f(store, i)
    return (time.perf_counter_ns() - t) / N


def ours():
    import cranewasm as w
    engine = w.Engine()
    store = w.Store(engine)
    host = w.Func(store, w.FuncType([w.ValType.i32()], [w.ValType.i32()]), ident)
    inst = w.Instance(store, w.Module(engine, WAT), [host])
    return store, inst.exports.id, inst.exports.via


def wasmtime_():
    import wasmtime as wt
    store = wt.Store()
    host = wt.Func(store, wt.FuncType([wt.ValType.i32()], [wt.ValType.i32()]), ident)
    inst = wt.Instance(store, wt.Module(store.engine, WAT), [host])
    ex = inst.exports(store)
    return store, ex["id"], ex["via"]


def hello_ours(data):
    """ms from nothing to the hello world's exit, ours."""
    import cranewasm as w
    t = time.perf_counter_ns()
    engine = w.Engine()
    store = w.Store(engine)
    linker = w.Linker(engine)
    cfg = w.WasiConfig(argv=["hello"], stdout="/dev/null")
    linker.define_wasi(cfg)
    inst = linker.instantiate(store, w.Module(engine, data))
    status = cfg.start(inst)
    ms = (time.perf_counter_ns() - t) / 1e6
    assert status == 0
    return ms


def hello_wasmtime(data):
    """ms from nothing to the hello world's exit, wasmtime."""
    import wasmtime as wt
    t = time.perf_counter_ns()
    engine = wt.Engine()
    store = wt.Store(engine)
    linker = wt.Linker(engine)
    linker.define_wasi()
    cfg = wt.WasiConfig()
    cfg.argv = ["hello"]
    cfg.stdout_file = "/dev/null"
    store.set_wasi(cfg)
    inst = linker.instantiate(store, wt.Module(engine, data))
    inst.exports(store)["_start"](store)
    return (time.perf_counter_ns() - t) / 1e6


def build_hello():
    out = Path(tempfile.mkdtemp()) / "hello.wasm"
    subprocess.run(["clang", "--target=wasm32-wasi", "-O2", "-o", str(out),
                    str(ROOT / "benches" / "harness" / "hello_wasi.c")], check=True)
    return out.read_bytes()


def main():
    o_store, o_id, o_via = ours()
    w_store, w_id, w_via = wasmtime_()
    print(f"{ROUNDS} interleaved rounds of {N} calls; minimum (spread, max/min)")
    print(f"{'case':30} {'ours':>16} {'wasmtime':>16} {'ours/wasmtime':>16}")

    def row(name, ta, tb, unit):
        ratios = [a / b for a, b in zip(ta, tb)]
        cell = lambda v: f"{min(v):.{0 if unit == 'ns' else 2}f} {unit} ({max(v) / min(v):.2f})"
        ratio = f"{min(ta) / min(tb):.2f} ({max(ratios) / min(ratios):.2f})"
        print(f"{name:30} {cell(ta):>16} {cell(tb):>16} {ratio:>16}")

    for name, a, b in [("call i32->i32 from Python", o_id, w_id), ("wasm->Python round trip", o_via, w_via)]:
        # Interleaved, so that machine load drifts over both alike.
        ta, tb = [], []
        for _ in range(ROUNDS):
            ta.append(ns_ours(a))
            tb.append(ns_wasmtime(b, w_store))
        row(name, ta, tb, "ns")

    data = build_hello()
    hello_ours(data), hello_wasmtime(data)  # warm: imports, page cache
    ta, tb = [], []
    for _ in range(HELLO_REPS):
        ta.append(hello_ours(data))
        tb.append(hello_wasmtime(data))
    row(f"WASI hello start to exit (x{HELLO_REPS})", ta, tb, "ms")
    print(f"{'':30} medians: ours {statistics.median(ta):.2f} ms, wasmtime {statistics.median(tb):.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
