#!/usr/bin/env python3
"""Exception costs, ours against wasmtime's (the `wasmtime` PyPI wheel,
50.0.1, Config.wasm_exceptions), in one run, as ratios (these machines are
noisy: read the ratios).

    python3 benches/exceptions_compare.py

The module is benches/harness/exceptions.wat for both runtimes; each case
is one call that loops in wasm, so the time is compiled code's:
  plain_call, call_in_try_table   a call outside and inside a try_table
  throw_catch_1, throw_catch_10   a throw 1 and 10 frames below its catch
Ours: `cargo bench --bench exceptions` (inlining off, so that the plain
call stays a call; wasmtime does not inline by default), and the two call
cases again with our default configuration, where the callee is inlined
inside the try_table as outside it (`*_inlined`, ours only).
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from paired import best_of_alternating, cargo_results

ROOT = Path(__file__).resolve().parent.parent
WAT = (ROOT / "benches/harness/exceptions.wat").read_text()
REPS = int(os.environ.get("REPS", "7"))
CASES = {"plain_call": 20_000_000, "call_in_try_table": 20_000_000, "throw_catch_1": 200_000,
         "throw_catch_10": 200_000}


def ours():
    return cargo_results("exceptions", REPS=str(REPS))


def wasmtime_cases():
    try:
        import wasmtime as wt
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "wasmtime==50.0.1"], check=True)
        import wasmtime as wt
    cfg = wt.Config()
    cfg.wasm_exceptions = True
    engine = wt.Engine(cfg)
    store = wt.Store(engine)
    instance = wt.Instance(store, wt.Module(engine, WAT), [])
    res = {}
    for case, n in CASES.items():
        f = instance.exports(store)[case]
        f(store, n // 10)
        samples = []
        for _ in range(REPS):
            t0 = time.perf_counter_ns()
            f(store, n)
            samples.append((time.perf_counter_ns() - t0) / n)
        samples.sort()
        res[case] = (samples[len(samples) // 2], "ns")
    return res


def main():
    mine, theirs = best_of_alternating(ours, wasmtime_cases)
    print(f"{'case':<20} {'ours':>10} {'wasmtime':>10} {'ours/wasmtime':>14}")
    for case in CASES:
        a, b = mine[case][0], theirs[case][0]
        print(f"{case:<20} {a:>8.2f}ns {b:>8.2f}ns {a / b:>14.3f}")
    ratio = mine["call_in_try_table"][0] / mine["plain_call"][0]
    print(f"ours, inlining off: call in try_table / plain call = {ratio:.3f} (target <= 1.02)")
    inlined = mine["call_in_try_table_inlined"][0] / mine["plain_call_inlined"][0]
    print(f"ours, default (callee inlined): call in try_table / plain call = {inlined:.3f} (target <= 1.02)")
    for case in ("throw_catch_1", "throw_catch_10"):
        print(f"{case}: ours/wasmtime = {mine[case][0] / theirs[case][0]:.3f} (target <= 0.8)")


if __name__ == "__main__":
    main()
