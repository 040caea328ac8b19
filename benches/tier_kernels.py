#!/usr/bin/env python3
"""Each kernel's `run(BENCH_N)` through `iwasm --no-cache -f run`, one call
per process, compile included: eager, lazy (CRANEWASM_TIER=0), lazy with
tiers (the default with CRANEWASM_LAZY=1) and the baseline tier alone (a
threshold no function reaches), in ROUNDS interleaved rounds. Prints each
side's median over the rounds divided by eager's, with the spread of the
per-round ratios (max/min). A kernel is one call of `run`: a loop in `run`
itself stays in baseline code under tiers, while helpers it calls often
tier up, so this shows what long-running baseline loops cost.

    cargo build --release -p cranewasm-cli
    python3 benches/tier_kernels.py [--rounds 3] [kernel...]
"""
import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "benches" / "kernels"
IWASM = ROOT / "target" / "release" / "iwasm"
SIDES = {
    "eager": {},
    "lazy": {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "0"},
    "lazy+tier": {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "1"},
    "baseline only": {"CRANEWASM_LAZY": "1", "CRANEWASM_TIER": "1", "CRANEWASM_TIER_THRESHOLD": "2147483647"},
}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("kernels", nargs="*")
    a = p.parse_args()
    bench_n = {}
    for line in (KERNELS / "expected.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, _, _, n = line.split()
            bench_n[name] = n
    names = a.kernels or sorted(bench_n)
    base = {k: v for k, v in os.environ.items() if not k.startswith("CRANEWASM_")}
    print(f"{a.rounds} rounds, load {os.getloadavg()[0]:.1f}; median time / eager's (spread of the ratios)")
    print("| kernel | eager | " + " | ".join(s for s in SIDES if s != "eager") + " |")
    print("|---|---|" + "---|" * (len(SIDES) - 1))
    for k in names:
        cmd = [str(IWASM), "--no-cache", "-f", "run", str(KERNELS / f"{k}.wasm"), bench_n[k]]
        times = {s: [] for s in SIDES}
        outs = set()
        for r in range(a.rounds):
            order = list(SIDES)[r % len(SIDES):] + list(SIDES)[:r % len(SIDES)]
            for s in order:
                t = time.perf_counter()
                out = subprocess.run(cmd, check=True, capture_output=True, text=True, env={**base, **SIDES[s]}).stdout
                times[s].append(time.perf_counter() - t)
                outs.add(out)
        if len(outs) != 1:
            sys.exit(f"{k}: outputs disagree: {outs}")
        cells = []
        for s in SIDES:
            if s == "eager":
                continue
            ratios = [x / e for x, e in zip(times[s], times["eager"])]
            cells.append(f"{statistics.median(ratios):.2f} ({max(ratios) / min(ratios):.2f})")
        print(f"| {k} | {statistics.median(times['eager']) * 1e3:.0f} ms | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
