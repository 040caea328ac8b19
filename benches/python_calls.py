#!/usr/bin/env python3
"""Call overhead from Python: the cranewasm package against wasmtime's
Python package, in one run, as ratios (these machines are noisy).

    cargo build --release -p cranewasm-capi
    pip install wasmtime                 # the peer
    PYTHONPATH=python python3 benches/python_calls.py

Cases: an i32 -> i32 export called from Python, and a wasm -> Python host
call round trip (an export that calls an imported Python function). Each
API is called as its users call it, with no wrapper: ours as `f(x)`,
wasmtime's as `f(store, x)`."""

import time

WAT = """(module
  (import "host" "f" (func $f (param i32) (result i32)))
  (func (export "id") (param i32) (result i32) (local.get 0))
  (func (export "via") (param i32) (result i32) (call $f (local.get 0))))"""
N = 100_000
ROUNDS = 5


def time_ns(call, store):
    """ns per call of `call(i)` (store None) or `call(store, i)`: the
    loop each API asks for, with no wrapper around either."""
    t = time.perf_counter_ns()
    if store is None:
        for i in range(N):
            call(i)
    else:
        for i in range(N):
            call(store, i)
    return (time.perf_counter_ns() - t) / N


def ours():
    import cranewasm as w
    engine = w.Engine()
    store = w.Store(engine)
    host = w.Func(store, w.FuncType([w.ValType.i32()], [w.ValType.i32()]), lambda x: x)
    inst = w.Instance(store, w.Module(engine, WAT), [host])
    return None, inst.exports.id, inst.exports.via


def wasmtime_():
    import wasmtime as wt
    store = wt.Store()
    host = wt.Func(store, wt.FuncType([wt.ValType.i32()], [wt.ValType.i32()]), lambda x: x)
    inst = wt.Instance(store, wt.Module(store.engine, WAT), [host])
    ex = inst.exports(store)
    return store, ex["id"], ex["via"]


def main():
    o_store, o_id, o_via = ours()
    w_store, w_id, w_via = wasmtime_()
    print(f"{ROUNDS} interleaved rounds of {N} calls; minimum (spread, max/min)")
    print(f"{'case':30} {'ours ns':>16} {'wasmtime ns':>16} {'ours/wasmtime':>16}")
    for name, a, b in [("call i32->i32 from Python", o_id, w_id), ("wasm->Python round trip", o_via, w_via)]:
        # Interleaved, so that machine load drifts over both alike.
        ta, tb, ratios = [], [], []
        for _ in range(ROUNDS):
            ta.append(time_ns(a, o_store))
            tb.append(time_ns(b, w_store))
            ratios.append(ta[-1] / tb[-1])
        cell = lambda v: f"{min(v):.0f} ({max(v) / min(v):.2f})"
        ratio = f"{min(ta) / min(tb):.2f} ({max(ratios) / min(ratios):.2f})"
        print(f"{name:30} {cell(ta):>16} {cell(tb):>16} {ratio:>16}")


if __name__ == "__main__":
    main()
