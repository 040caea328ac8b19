#!/usr/bin/env python3
"""Peak resident memory (the kernel's max RSS of each process) of compiling
and running a program, ours against wasmtime and against another build of
ours, in interleaved rounds (benches/README.md, "Peak memory").

    python3 benches/peak_rss.py [--rounds 5] [--wasm benches/build/programs/lua.wasm]
        [--old-lib DIR]       # a directory with another libiwasm.so to compare

Sides (each a fresh process, stdout discarded, exit status checked):
  program-ours / program-wasmtime NAME FILE 1: compile and run the program,
      then compile and run it again (compare.sh's harness, built there);
  iwasm compile FILE: compile only (target/release/iwasm);
  iwasm --no-cache FILE: compile and run, as a user of the command line.
Run benches/compare.sh once first (it builds the harnesses and fetches
wasmtime's library) and `cargo build --release -p cranewasm-cli`;
BENCH_BUILD_DIR names another directory laid out as benches/build.
"""
import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("BENCH_BUILD_DIR", ROOT / "benches" / "build"))


def max_rss_kb(cmd, env):
    pid = os.fork()
    if pid == 0:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 1)
        os.execve(cmd[0], cmd, env)
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        sys.exit(f"{' '.join(cmd)}: exit status {status}")
    return usage.ru_maxrss


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--wasm", default=str(BUILD / "programs" / "lua.wasm"))
    p.add_argument("--old-lib", help="directory of another libiwasm.so (LD_LIBRARY_PATH)")
    a = p.parse_args()
    name = Path(a.wasm).stem
    iwasm = str(ROOT / "target" / "release" / "iwasm")
    out = tempfile.mktemp(suffix=".cwasm")
    base = dict(os.environ)
    sides = {
        "program-ours": ([str(BUILD / "program-ours"), name, a.wasm, "1"], base),
        "program-wasmtime": ([str(BUILD / "program-wasmtime"), name, a.wasm, "1"], base),
        "iwasm compile": ([iwasm, "compile", a.wasm, "-o", out], base),
        "iwasm --no-cache": ([iwasm, "--no-cache", a.wasm], base),
    }
    if a.old_lib:
        sides["program-ours (old lib)"] = (sides["program-ours"][0], {**base, "LD_LIBRARY_PATH": a.old_lib})
    for cmd, _ in sides.values():
        if not Path(cmd[0]).exists():
            sys.exit(f"missing {cmd[0]}: see the docstring")
    rss = {k: [] for k in sides}
    names = list(sides)
    for r in range(a.rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            rss[k].append(max_rss_kb(*sides[k]))
    os.unlink(out)
    print(f"{name}: peak RSS in MB over {a.rounds} interleaved rounds: median (min-max)")
    for k, v in rss.items():
        print(f"  {k:24} {statistics.median(v) / 1024:6.1f} ({min(v) / 1024:.1f}-{max(v) / 1024:.1f})")
    ours, theirs = statistics.median(rss["program-ours"]), statistics.median(rss["program-wasmtime"])
    print(f"  program-ours / program-wasmtime: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
