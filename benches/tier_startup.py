#!/usr/bin/env python3
"""`iwasm --no-cache lua.wasm SCALE` start to exit, compiling on every run:
eager, lazy (CRANEWASM_LAZY=1 CRANEWASM_TIER=0: each function compiled
optimised at its first call), lazy with tiers (CRANEWASM_LAZY=1: the
baseline tier first, hot functions optimised on a background thread) and
the baseline tier alone (a threshold no function reaches),
against native Lua, in one run: ROUNDS interleaved rounds (the order of
the sides rotating), each side run REPS times a round and its fastest
taken. Reports each side's median and minimum over the rounds with the
spread (max/min of the per-round values), and the ratio of the medians to
eager with the spread of the per-round ratios. Outputs must agree.

    PROGRAMS=lua benches/programs/build.sh && cargo build --release -p cranewasm-cli
    python3 benches/tier_startup.py [--rounds 9] [--reps 3] [--scale 0]

Scale 0 is a short script (benches/cache_startup.py says what); scale 1
the whole workload, where hot code's speed shows.
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "benches" / "build" / "programs" / "lua"
IWASM = ROOT / "target" / "release" / "iwasm"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=9)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--scale", default="0")
    a = p.parse_args()
    for f in (IWASM, LUA.with_suffix(".wasm"), LUA.with_suffix(".scalar")):
        if not f.exists():
            sys.exit(f"missing {f}: build it first (see the docstring)")
    wasm = [str(IWASM), "--no-cache", str(LUA.with_suffix(".wasm")), a.scale]
    base = {k: v for k, v in os.environ.items() if not k.startswith("CRANEWASM_")}
    sides = {
        "native": ([str(LUA.with_suffix(".scalar")), a.scale], {}),
        "eager": (wasm, {}),
        "lazy": (wasm, {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "0"}),
        "lazy+tier": (wasm, {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "1"}),
        "baseline only": (wasm, {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "1", "CRANEWASM_TIER_THRESHOLD": "2147483647"}),
    }
    outputs = set()

    def once(cmd, env):
        t = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**base, **env}).stdout
        elapsed = time.perf_counter() - t
        outputs.add(out)
        return elapsed

    names = list(sides)
    per_round = {n: [] for n in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            per_round[n].append(min(once(*sides[n]) for _ in range(a.reps)))
    if len(outputs) != 1:
        sys.exit(f"outputs disagree: {outputs}")
    print(f"{a.rounds} rounds x best of {a.reps}, scale {a.scale}, load {os.getloadavg()[0]:.1f}")
    print("| | median | min | spread | / eager (median) | ratio spread |")
    print("|---|---|---|---|---|---|")
    for n in names:
        v = per_round[n]
        ratios = [x / e for x, e in zip(v, per_round["eager"])]
        print(
            f"| {n} | {statistics.median(v) * 1e3:.1f} ms | {min(v) * 1e3:.1f} ms | {max(v) / min(v):.2f} "
            f"| {statistics.median(ratios):.3f} | {max(ratios) / min(ratios):.2f} |"
        )


if __name__ == "__main__":
    main()
