#!/usr/bin/env python3
"""Peak resident memory (the kernel's max RSS of each process) of compiling
and running a program, ours against wasmtime and against another build of
ours, in interleaved rounds (benches/README.md, "Peak memory").

    python3 benches/peak_rss.py [--rounds 5] [--wasm benches/build/programs/lua.wasm]
        [--old-lib DIR]       # a directory with another libiwasm.so to compare
        [--wamr IWASM]        # WAMR's iwasm: adds the command-line sides below
        [--runtime-only DIR]  # our runtime-only iwasm's directory
                              # (default target/runtime-only/release)
        [--args "0"]          # the program's arguments on those sides
        [--iwasm-only]        # leave out the program-* sides (no compare.sh build)
        [--iwasm PATH]        # our full iwasm (default target/release/iwasm)

Sides (each a fresh process, stdout discarded, exit status checked):
  program-ours / program-wasmtime NAME FILE 1: compile and run the program,
      then compile and run it again (compare.sh's harness, built there);
  iwasm compile FILE: compile only (target/release/iwasm);
  iwasm --no-cache FILE: compile and run, as a user of the command line.
With --wamr, running FILE with --args (Lua: "0" is the short script of
the start-up benches): WAMR's iwasm on the .wasm; our runtime-only iwasm
and our full iwasm on the file `iwasm compile` made of it (compiled once,
before the rounds); our iwasm --no-cache on the .wasm. A --wamr or --runtime-only path that is not an
executable that runs stops the script with an error.
Run benches/compare.sh once first (it builds the harnesses and fetches
wasmtime's library) and `cargo build --release -p cranewasm-cli`;
BENCH_BUILD_DIR names another directory laid out as benches/build.
"""
import argparse
import os
import statistics
import subprocess
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
    p.add_argument("--wamr", help="WAMR's iwasm")
    p.add_argument("--runtime-only", default=str(ROOT / "target" / "runtime-only" / "release"))
    p.add_argument("--args", default="0", help="the program's arguments on the --wamr sides")
    p.add_argument("--iwasm-only", action="store_true", help="leave out the program-* sides")
    p.add_argument("--iwasm", default=str(ROOT / "target" / "release" / "iwasm"))
    a = p.parse_args()
    name = Path(a.wasm).stem
    iwasm = a.iwasm
    out = tempfile.mktemp(suffix=".cwasm")
    base = dict(os.environ)
    sides = {}
    if not a.iwasm_only:
        sides["program-ours"] = ([str(BUILD / "program-ours"), name, a.wasm, "1"], base)
        sides["program-wasmtime"] = ([str(BUILD / "program-wasmtime"), name, a.wasm, "1"], base)
    sides["iwasm compile"] = ([iwasm, "compile", a.wasm, "-o", out], base)
    sides["iwasm --no-cache"] = ([iwasm, "--no-cache", a.wasm], base)
    if a.old_lib:
        if a.iwasm_only:
            sys.exit("--old-lib compares the program-ours side, which --iwasm-only leaves out")
        sides["program-ours (old lib)"] = (sides["program-ours"][0], {**base, "LD_LIBRARY_PATH": a.old_lib})
    for cmd, _ in sides.values():
        if not Path(cmd[0]).exists():
            sys.exit(f"missing {cmd[0]}: see the docstring")
    if a.wamr:
        args = a.args.split()
        ro_iwasm = str(Path(a.runtime_only) / "iwasm")
        for what, path in [("--wamr", a.wamr), ("--runtime-only", ro_iwasm)]:
            if not (Path(path).is_file() and os.access(path, os.X_OK)):
                sys.exit(f"{what}: {path} is not an executable file")
            if subprocess.run([path, "--version"], capture_output=True).returncode != 0:
                sys.exit(f"{what}: {path} --version failed: not an iwasm")
        compiled = tempfile.mktemp(suffix=".cwasm")
        subprocess.run([iwasm, "compile", a.wasm, "-o", compiled], check=True)
        sides[f"wamr iwasm {name}.wasm"] = ([a.wamr, a.wasm, *args], base)
        sides[f"iwasm (runtime-only) {name}.cwasm"] = ([ro_iwasm, compiled, *args], base)
        sides[f"iwasm {name}.cwasm"] = ([iwasm, compiled, *args], base)
        sides[f"iwasm --no-cache {name}.wasm"] = ([iwasm, "--no-cache", a.wasm, *args], base)
    rss = {k: [] for k in sides}
    names = list(sides)
    for r in range(a.rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            rss[k].append(max_rss_kb(*sides[k]))
    os.unlink(out)
    print(f"{name}: peak RSS in MB over {a.rounds} interleaved rounds: median (min-max)")
    for k, v in rss.items():
        print(f"  {k:34} {statistics.median(v) / 1024:6.1f} ({min(v) / 1024:.1f}-{max(v) / 1024:.1f})")
    if not a.iwasm_only:
        ours, theirs = statistics.median(rss["program-ours"]), statistics.median(rss["program-wasmtime"])
        print(f"  program-ours / program-wasmtime: {ours / theirs:.2f}")
    if a.wamr:
        os.unlink(compiled)
        wamr = statistics.median(rss[f"wamr iwasm {name}.wasm"])
        for k in [f"iwasm (runtime-only) {name}.cwasm", f"iwasm {name}.cwasm", f"iwasm --no-cache {name}.wasm"]:
            print(f"  {k} / wamr iwasm: {statistics.median(rss[k]) / wamr:.2f}")


if __name__ == "__main__":
    main()
