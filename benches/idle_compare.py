#!/usr/bin/env python3
"""What idle instances cost (benches/README.md, "Idle instances"): the
harness's `bench idle SMALL.wasm N` (harness/bench.c: one store, the small
module of harness/small.wat, N instances, growth of resident memory and of
mappings per instance) through each runtime's C API (wasm_c_api.h), in
interleaved rounds: ours, wasmtime, and WAMR when given.

    python3 benches/idle_compare.py [--rounds 5] [--instances 1000]
        [--ours DIR]                  # our libiwasm.so (default target/release)
        [--wasmtime DIR]              # libwasmtime.so (default $BENCH_BUILD_DIR/wasmtime)
        [--wamr-lib DIR --wamr-include DIR]   # WAMR's libiwasm.so (or .a, its
                                      # default build) and its core/iwasm/include

Needs cc and wat2wasm. A library directory that does not hold the library,
or a header directory without wasm_c_api.h, stops the script with an error.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("BENCH_BUILD_DIR", ROOT / "benches" / "build"))
CFLAGS = ["-O2", "-std=gnu11", "-D_GNU_SOURCE", f"-I{ROOT / 'benches' / 'harness'}"]


def need(path, what):
    if not Path(path).is_file():
        sys.exit(f"idle_compare: {what}: no such file {path}")


def harness(out, abi, include, lib_dir, lib):
    """Builds bench.c against LIB in LIB_DIR, shared or (WAMR's default
    build) static, with the headers in INCLUDE."""
    lib_dir = Path(lib_dir).resolve()
    if (lib_dir / f"lib{lib}.so").is_file():
        link = [f"-L{lib_dir}", f"-l{lib}", f"-Wl,-rpath,{lib_dir}"]
    elif (lib_dir / f"lib{lib}.a").is_file():
        link = [str(lib_dir / f"lib{lib}.a"), "-lm", "-ldl", "-lpthread"]
    else:
        sys.exit(f"idle_compare: no lib{lib}.so or lib{lib}.a in {lib_dir}")
    need(Path(include) / "wasm_c_api.h", "wasm_c_api.h")
    cmd = ["cc", *CFLAGS, f"-DABI_{abi}", str(ROOT / "benches" / "harness" / "bench.c"), f"-I{include}",
           *link, "-o", str(out)]
    subprocess.run(cmd, check=True)
    return str(out)


def run(binary, small, n):
    out = subprocess.run([binary, "idle", small, str(n)], check=True, capture_output=True, text=True).stdout
    rss = re.search(r"RESULT idle_rss_per_instance ([0-9.]+) KiB (\d+)", out)
    maps = re.search(r"RESULT idle_maps_per_instance ([0-9.]+) mappings (\d+)", out)
    if not rss or not maps:
        sys.exit(f"idle_compare: {binary} printed no result:\n{out}")
    return float(rss.group(1)), float(maps.group(1)), rss.group(2)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--instances", type=int, default=1000)
    p.add_argument("--ours", default=str(ROOT / "target" / "release"))
    p.add_argument("--wasmtime", default=str(BUILD / "wasmtime"))
    p.add_argument("--wamr-lib")
    p.add_argument("--wamr-include")
    a = p.parse_args()
    if bool(a.wamr_lib) != bool(a.wamr_include):
        sys.exit("idle_compare: --wamr-lib and --wamr-include go together")
    work = Path(tempfile.mkdtemp())
    small = str(work / "small.wasm")
    subprocess.run(["wat2wasm", str(ROOT / "benches" / "harness" / "small.wat"), "-o", small], check=True)
    sides = {
        "ours": harness(work / "ours", "WAMR", ROOT / "include", a.ours, "iwasm"),
        "wasmtime": harness(work / "wasmtime", "WASMC", ROOT / "include", a.wasmtime, "wasmtime"),
    }
    if a.wamr_lib:
        sides["wamr"] = harness(work / "wamr", "WAMR", a.wamr_include, a.wamr_lib, "iwasm")
    results = {k: [] for k in sides}
    names = list(sides)
    for r in range(a.rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            results[k].append(run(sides[k], small, a.instances))
    checks = {v[2] for rs in results.values() for v in rs}
    if len(checks) != 1:
        sys.exit(f"idle_compare: the instances' sums differ between runtimes: {checks}")
    print(f"idle cost of {a.instances} instances of harness/small.wat, {a.rounds} interleaved rounds: "
          "median (min-max) per instance")
    med = {}
    for k, rs in results.items():
        kib, maps = [v[0] for v in rs], [v[1] for v in rs]
        med[k] = statistics.median(kib)
        print(f"  {k:9} {med[k]:7.2f} KiB ({min(kib):.2f}-{max(kib):.2f})"
              f"  {statistics.median(maps):5.2f} mappings ({min(maps):.2f}-{max(maps):.2f})")
    for peer in [k for k in sides if k != "ours"]:
        if med[peer] > 0:
            print(f"  ours / {peer}: {med['ours'] / med[peer]:.2f} (resident memory)")


if __name__ == "__main__":
    main()
