#!/usr/bin/env python3
"""`iwasm lua.wasm` start to exit with the code cache cold and warm, against
compiling on every run (`--no-cache`) and native Lua, in one run:
ROUNDS interleaved rounds (the order of the sides rotating), each side run
REPS times a round and its fastest taken. Reports each side's minimum over
the rounds with its spread (max/min of the per-round values), and the
ratios of the minima to native and to --no-cache with the spread of the
per-round ratios. Outputs (Lua's check value) must agree.

    PROGRAMS=lua benches/programs/build.sh && cargo build --release -p cranewasm-cli
    python3 benches/cache_startup.py [--rounds 7] [--reps 5] [--scale 0]

Scale 0 is a short script: a Lua state with its libraries, bench.lua
parsed, fib(24) (benches/lua/driver.c); scale 1 is the whole workload.
"cold" deletes the cache directory before each run: the run compiles
lazily while a detached, low-priority iwasm compiles the whole module into
the cache (cli/src/cache_fill.rs); the timer stops when the run exits, and
the next run starts only once that filler is done (its time is reported
apart). "cold eager" is the way before (CRANEWASM_LAZY=0: the run compiles
the whole module and stores it itself). "warm" loads the entry the first
run stored.
"""
import os
import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LUA = ROOT / "benches" / "build" / "programs" / "lua"
IWASM = ROOT / "target" / "release" / "iwasm"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--scale", default="0")
    a = p.parse_args()
    for f in (IWASM, LUA.with_suffix(".wasm"), LUA.with_suffix(".scalar")):
        if not f.exists():
            sys.exit(f"missing {f}: build it first (see the docstring)")
    tmp = Path(tempfile.mkdtemp(prefix="cache-startup-"))
    warm, cold = tmp / "warm", tmp / "cold"
    wasm = [str(LUA.with_suffix(".wasm")), a.scale]
    base = {k: v for k, v in os.environ.items() if not k.startswith("CRANEWASM_")}
    eager = {**base, "CRANEWASM_LAZY": "0"}
    fills = []

    def filled(d):
        """Waits until d holds an entry and no filler's lock."""
        t = time.perf_counter()
        while True:
            names = [f.name for f in d.iterdir()] if d.is_dir() else []
            if any(n.endswith(".cwasm") for n in names) and not any(n.endswith(".fill.tmp") for n in names):
                return time.perf_counter() - t
            if time.perf_counter() - t > 120:
                sys.exit(f"no cache entry in {d} after 120 s")
            time.sleep(0.002)

    def fresh(d):
        return lambda: shutil.rmtree(d, ignore_errors=True)

    cold_eager = tmp / "cold-eager"
    sides = {
        "native": ([str(LUA.with_suffix(".scalar")), a.scale], base, None, None),
        "warm": ([str(IWASM), "--cache-dir", str(warm)] + wasm, base, None, None),
        "cold": ([str(IWASM), "--cache-dir", str(cold)] + wasm, base, fresh(cold), lambda: fills.append(filled(cold))),
        "cold eager": ([str(IWASM), "--cache-dir", str(cold_eager)] + wasm, eager, fresh(cold_eager), None),
        "no-cache": ([str(IWASM), "--no-cache"] + wasm, base, None, None),
    }
    outputs = set()

    def once(cmd, env, before, after):
        if before:
            before()
        t = time.perf_counter()
        out = subprocess.run(cmd, check=True, capture_output=True, text=True, env=env).stdout
        elapsed = time.perf_counter() - t
        if after:
            after()
        outputs.add(out)
        return elapsed

    once(sides["warm"][0], base, None, None)
    filled(warm)
    names = list(sides)
    per_round = {n: [] for n in names}
    for r in range(a.rounds):
        order = names[r % len(names):] + names[: r % len(names)]
        for n in order:
            per_round[n].append(min(once(*sides[n]) for _ in range(a.reps)))
    shutil.rmtree(tmp, ignore_errors=True)
    if len(outputs) != 1:
        sys.exit(f"outputs differ: {outputs}")
    print(f"iwasm lua.wasm {a.scale} (check {outputs.pop().strip()}), {a.rounds} rounds x {a.reps} runs, "
          "best of each round; min (spread max/min):")
    for n in names:
        v = per_round[n]
        print(f"  {n:10} {min(v) * 1e3:8.2f} ms ({max(v) / min(v):.2f})")

    def ratio(x, y):
        rs = [p / q for p, q in zip(per_round[x], per_round[y])]
        return min(per_round[x]) / min(per_round[y]), max(rs) / min(rs)

    print(f"  the cold runs' fillers finished {statistics.median(fills) * 1e3:.0f} ms (median) after their run")
    for x, y in (("warm", "native"), ("cold", "native"), ("no-cache", "native"), ("cold", "cold eager"),
                 ("cold", "no-cache"), ("warm", "no-cache")):
        r, s = ratio(x, y)
        print(f"  {x}/{y}: {r:.3f} (spread {s:.2f})")


if __name__ == "__main__":
    main()
