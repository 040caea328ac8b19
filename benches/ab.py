#!/usr/bin/env python3
"""With and without one change, on the real programs: two runner commands,
interleaved over ROUNDS rounds (the order alternating), each printing
benches' `RESULT case value unit check` lines. For each case: the minimum of
each side with its spread (max/min), the ratio of the minima (B/A) with the
spread of the per-round ratios, and the geomean of the NAME:run ratios with
the spread of the per-round geomeans. A ratio whose distance from 1 is
smaller than its spread is no change. Check values must agree.

    python3 benches/ab.py [--rounds N] A_CMD B_CMD NAME...

Each command is a shell template with {name} (a program of
benches/programs/build.sh) and {wasm} (benches/build/programs/NAME.wasm):

    # the same library with and without a change (two builds of it)
    python3 benches/ab.py 'benches/build/program-ours {name} {wasm} 1' \\
        'env LD_LIBRARY_PATH=/tmp/variant benches/build/program-ours {name} {wasm} 1' lua zlib
    # a Config switch of benches/program.rs
    python3 benches/ab.py 'PROGRAM {name} {wasm} 1' 'env INLINING=0 PROGRAM {name} {wasm} 1' lua
"""
import argparse
import math
import subprocess
import sys
from pathlib import Path

BUILD = Path(__file__).resolve().parent / "build" / "programs"


def run(template, name):
    cmd = template.format(name=name, wasm=BUILD / f"{name}.wasm")
    return parse_rows(subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True).stdout)


def parse_rows(out):
    """{case: (value, unit, check)} of a runner's `RESULT case value unit check` lines."""
    rows = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            _, case, value, unit, check = line.split()
            rows[case] = (float(value), unit, check)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    samples = {}  # case -> {"a": [...], "b": [...]}
    units, checks, failed = {}, {}, False
    for r in range(args.rounds):
        print(f"round {r + 1} of {args.rounds}", file=sys.stderr)
        for name in args.names:
            sides = ["a", "b"] if r % 2 == 0 else ["b", "a"]
            for side in sides:
                for case, (value, unit, check) in run(getattr(args, side), name).items():
                    samples.setdefault(case, {"a": [], "b": []})[side].append(value)
                    units[case] = unit
                    if checks.setdefault(case, check) != check:
                        print(f"CHECK MISMATCH in {case}: {check} against {checks[case]}")
                        failed = True
    cell = lambda v: f"{min(v):.4g} ({max(v) / min(v):.2f})"
    print(f"{args.rounds} interleaved rounds; minimum (spread); B/A: ratio of minima (spread of per-round ratios)")
    print(f"{'case':22} {'unit':5} {'A':>16} {'B':>16} {'B/A':>14}")
    per_round = {}
    for case, s in samples.items():
        a, b = s["a"], s["b"]
        if not a or not b:
            continue
        ratios = [y / x for x, y in zip(a, b)]
        if case.endswith(":run"):
            for i, q in enumerate(ratios):
                per_round.setdefault(i, []).append(math.log(q))
        print(f"{case:22} {units[case]:5} {cell(a):>16} {cell(b):>16} "
              f"{min(b) / min(a):8.3f} ({max(ratios) / min(ratios):.2f})")
    runs = [c for c in samples if c.endswith(":run")]
    if runs:
        gm = math.exp(sum(math.log(min(samples[c]["b"]) / min(samples[c]["a"])) for c in runs) / len(runs))
        rounds = [math.exp(sum(v) / len(v)) for v in per_round.values() if len(v) == len(runs)]
        print(f"{'geomean (runs)':22} {'':5} {'':16} {'':16} {gm:8.3f} ({max(rounds) / min(rounds):.2f})")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
