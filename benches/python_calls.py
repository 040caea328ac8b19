#!/usr/bin/env python3
"""Call overhead from Python: the cranewasm package against wasmtime's
Python package, in one run, as ratios (these machines are noisy).

    cargo build --release -p cranewasm-capi
    pip install wasmtime                 # the peer
    PYTHONPATH=python python3 benches/python_calls.py

Cases: an i32 -> i32 export called from Python, and a wasm -> Python host
call round trip (an export that calls an imported Python function)."""

import time

WAT = """(module
  (import "host" "f" (func $f (param i32) (result i32)))
  (func (export "id") (param i32) (result i32) (local.get 0))
  (func (export "via") (param i32) (result i32) (call $f (local.get 0))))"""
N = 100_000


def best_ns(fn, rounds=5):
    best = float("inf")
    for _ in range(rounds):
        t = time.perf_counter_ns()
        for i in range(N):
            fn(i)
        best = min(best, (time.perf_counter_ns() - t) / N)
    return best


def ours():
    import cranewasm as w
    engine = w.Engine()
    store = w.Store(engine)
    host = w.Func(store, w.FuncType([w.ValType.i32()], [w.ValType.i32()]), lambda x: x)
    inst = w.Instance(store, w.Module(engine, WAT), [host])
    return inst.exports.id, inst.exports.via


def wasmtime_():
    import wasmtime as wt
    store = wt.Store()
    host = wt.Func(store, wt.FuncType([wt.ValType.i32()], [wt.ValType.i32()]), lambda x: x)
    inst = wt.Instance(store, wt.Module(store.engine, WAT), [host])
    ex = inst.exports(store)
    fid, fvia = ex["id"], ex["via"]
    return (lambda x: fid(store, x)), (lambda x: fvia(store, x))


def main():
    rows = []
    o_id, o_via = ours()
    w_id, w_via = wasmtime_()
    for name, a, b in [("call i32->i32 from Python", o_id, w_id), ("wasm->Python round trip", o_via, w_via)]:
        # Alternate the two so that machine load drifts over both alike.
        ta, tb = best_ns(a), best_ns(b)
        ta, tb = min(ta, best_ns(a)), min(tb, best_ns(b))
        rows.append((name, ta, tb))
    print(f"{'case':30} {'ours ns':>10} {'wasmtime ns':>12} {'ours/wasmtime':>14}")
    for name, ta, tb in rows:
        print(f"{name:30} {ta:10.0f} {tb:12.0f} {ta / tb:14.2f}")


if __name__ == "__main__":
    main()
