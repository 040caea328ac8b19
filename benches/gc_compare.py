#!/usr/bin/env python3
"""binary-trees on GC structs, ours against wasmtime's (the `wasmtime` PyPI
wheel, 50.0.1, Config.wasm_gc, its default collector), in one run, as
ratios (these machines are noisy: read the ratios).

    python3 benches/gc_compare.py

The module is benches/harness/binary_trees.wat for both runtimes; each case
is one call of `run(depth)` in a fresh store, so the time is compiled
code's and its allocator's. Ours: `cargo bench --bench gc`. Stage 2a has no
collector: our runs only bump-allocate (the heap is freed with the store),
where wasmtime's also collects; the ratio measures allocation and field
access, not a collector.
"""

import os
import subprocess
import sys
import time

from paired import ROOT, best_of_alternating, cargo_results

WAT = (ROOT / "benches/harness/binary_trees.wat").read_text()
REPS = int(os.environ.get("REPS", "5"))
DEPTHS = [12, 16]


def ours():
    return cargo_results("gc", REPS=str(REPS))


def wasmtime_cases():
    try:
        import wasmtime as wt
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "wasmtime==50.0.1"], check=True)
        import wasmtime as wt
    cfg = wt.Config()
    cfg.wasm_gc = True
    engine = wt.Engine(cfg)
    module = wt.Module(engine, WAT)
    res = {}
    for depth in DEPTHS:
        samples = []
        for _ in range(REPS):
            store = wt.Store(engine)
            run = wt.Instance(store, module, []).exports(store)["run"]
            t0 = time.perf_counter_ns()
            run(store, depth)
            samples.append((time.perf_counter_ns() - t0) / 1e6)
        samples.sort()
        res[f"binary_trees_{depth}"] = (samples[len(samples) // 2], "ms")
    return res


def main():
    mine, theirs = best_of_alternating(ours, wasmtime_cases)
    print(f"{'case':<20} {'ours':>10} {'wasmtime':>10} {'ours/wasmtime':>14}")
    for case in mine:
        a, b = mine[case][0], theirs[case][0]
        print(f"{case:<20} {a:>8.2f}ms {b:>8.2f}ms {a / b:>14.3f}")


if __name__ == "__main__":
    main()
