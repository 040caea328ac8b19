#!/usr/bin/env python3
"""wasmtime's column of the real-program benchmark (benches/compare.sh, the
`program:` cases): the same steps as benches/program.rs, through the
wasmtime PyPI package, i.e. its C library (`_libwasmtime.so`, the one the C
harness links) and its own WASI.

    program_wasmtime.py NAME WASM [REPS]

After one untimed warm-up of each step, REPS times (default 1): compile
(`Module`, NAME:compile) and instantiate with WASI defined plus `_start`
(NAME:run). Python only makes a handful of calls into the library per step,
each taking milliseconds, so its overhead is lost in the noise. The check
value is the program's stdout (an integer)."""
import os
import statistics
import sys
import tempfile
import time

import wasmtime


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: program_wasmtime.py NAME WASM [REPS]")
    name, path = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) == 4 else 1
    data = open(path, "rb").read()
    engine = wasmtime.Engine()
    linker = wasmtime.Linker(engine)
    linker.define_wasi()
    out_dir = tempfile.mkdtemp(prefix="program-wasmtime-")
    out_path = os.path.join(out_dir, "stdout")

    def compile_once():
        t = time.perf_counter()
        module = wasmtime.Module(engine, data)
        return module, (time.perf_counter() - t) * 1e3

    def run_once(module):
        config = wasmtime.WasiConfig()
        config.argv = [name]
        config.stdout_file = out_path
        config.inherit_stderr()
        store = wasmtime.Store(engine)
        store.set_wasi(config)
        t = time.perf_counter()
        instance = linker.instantiate(store, module)
        try:
            instance.exports(store)["_start"](store)
        except wasmtime.ExitTrap as e:
            if e.code != 0:
                raise
        ms = (time.perf_counter() - t) * 1e3
        del instance, store
        text = open(out_path).read().strip()
        return int(text), ms

    module, _ = compile_once()
    first, _ = run_once(module)
    compile_ms, run_ms = [], []
    for _ in range(reps):
        module, ms = compile_once()
        compile_ms.append(ms)
        check, ms = run_once(module)
        if check != first:
            sys.exit(f"{name}: output changed between runs")
        run_ms.append(ms)
    os.remove(out_path)
    os.rmdir(out_dir)
    print(f"RESULT {name}:compile {statistics.median(compile_ms):.6f} ms {len(data)}")
    print(f"RESULT {name}:run {statistics.median(run_ms):.6f} ms {first}")


if __name__ == "__main__":
    main()
