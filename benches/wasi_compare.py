#!/usr/bin/env python3
"""WASI costs, ours against wasmtime's (the `wasmtime` PyPI wheel), in one
run, as ratios (these machines are noisy: read the ratios).

    python3 benches/wasi_compare.py            # builds what it needs
    PEER_IWASM=/path/to/wamr/iwasm python3 benches/wasi_compare.py

Cases (the module is benches/harness/wasi_calls.wat for both runtimes):
  fd_write_pipe     one fd_write of 16 bytes to an in-memory capture: ours a
                    WritePipe; wasmtime's Python API has only a Python
                    callback for that (stdout_custom), which it pays for
  fd_write_devnull  the same to /dev/null as a host file: the same work
  clock_time_get    one monotonic clock read
  hello_in_process  load + compile + instantiate + run a wasi-libc hello
                    world in-process, fresh engine each time (wasmtime: from
                    Python, whose few calls are negligible here)
  cli_hello         start-to-exit of `iwasm hello.wasm` as a process;
                    compared with PEER_IWASM (WAMR's iwasm, built locally)
                    when given. The wheel has no command line.
"""

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from paired import best_of_alternating, cargo_results

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "target" / "wasi-bench"
CALLS = (ROOT / "benches/harness/wasi_calls.wat").read_text()
N = 200_000
REPS = int(os.environ.get("REPS", "7"))


def sh(*cmd, **kw):
    return subprocess.run(cmd, check=True, cwd=ROOT, **kw)


def build():
    BUILD.mkdir(parents=True, exist_ok=True)
    hello = BUILD / "hello.wasm"
    sh("clang", "--target=wasm32-wasi", "-O2", "-o", str(hello), "benches/harness/hello_wasi.c")
    sh("cargo", "build", "--release", "-q", "-p", "cranewasm-cli")
    sh("cargo", "bench", "--no-run", "-q", "--bench", "wasi")
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        sh(sys.executable, "-m", "pip", "install", "-q", "wasmtime==50.0.1")
    return hello


def ours(hello):
    """Our cases, from `cargo bench --bench wasi`."""
    return cargo_results("wasi", WASI_HELLO=str(hello), REPS=str(REPS))


def wasmtime_cases(hello):
    import wasmtime as wt

    def instance(stdout):
        engine = wt.Engine()
        store = wt.Store(engine)
        linker = wt.Linker(engine)
        linker.define_wasi()
        cfg = wt.WasiConfig()
        stdout(cfg)
        store.set_wasi(cfg)
        inst = linker.instantiate(store, wt.Module(engine, CALLS))
        ex = inst.exports(store)
        return store, ex["write"], ex["now"]

    def per_call(store, f):
        f(store, N)
        samples = []
        for _ in range(REPS):
            t = time.perf_counter_ns()
            assert f(store, N) == 0
            samples.append((time.perf_counter_ns() - t) / N)
        return statistics.median(samples)

    def capture(cfg):
        cfg.stdout_custom = lambda data: None

    def devnull(cfg):
        cfg.stdout_file = "/dev/null"

    res = {}
    store, write, now = instance(capture)
    res["fd_write_pipe"] = (per_call(store, write), "ns/call")
    res["clock_time_get"] = (per_call(store, now), "ns/call")
    store, write, _ = instance(devnull)
    res["fd_write_devnull"] = (per_call(store, write), "ns/call")

    data = hello.read_bytes()
    samples = []
    for _ in range(REPS):
        t = time.perf_counter_ns()
        engine = wt.Engine()
        store = wt.Store(engine)
        linker = wt.Linker(engine)
        linker.define_wasi()
        cfg = wt.WasiConfig()
        cfg.argv = ["hello"]
        cfg.stdout_file = "/dev/null"
        store.set_wasi(cfg)
        inst = linker.instantiate(store, wt.Module(engine, data))
        inst.exports(store)["_start"](store)
        samples.append((time.perf_counter_ns() - t) / 1e6)
    res["hello_in_process"] = (statistics.median(samples), "ms")
    return res


def cli(iwasm, hello):
    """Median start-to-exit of `iwasm hello.wasm`, in ms."""
    samples = []
    for _ in range(max(REPS, 15)):
        t = time.perf_counter_ns()
        p = subprocess.run([iwasm, str(hello)], stdout=subprocess.PIPE, check=True)
        samples.append((time.perf_counter_ns() - t) / 1e6)
        assert p.stdout == b"hello, world\n", p.stdout
    return statistics.median(samples)


def main():
    hello = build()
    ours_best, theirs_best = best_of_alternating(lambda: ours(hello), lambda: wasmtime_cases(hello))
    rows = []
    for case in ["fd_write_pipe", "fd_write_devnull", "clock_time_get", "hello_in_process"]:
        (a, unit), (b, _) = ours_best[case], theirs_best[case]
        rows.append((case, unit, a, b, "wasmtime"))
    ours_cli = min(cli(ROOT / "target/release/iwasm", hello), cli(ROOT / "target/release/iwasm", hello))
    peer = os.environ.get("PEER_IWASM")
    peer_cli = min(cli(peer, hello), cli(peer, hello)) if peer else float("nan")
    rows.append(("cli_hello", "ms", ours_cli, peer_cli, "WAMR iwasm" if peer else "-"))
    print(f"{'case':18} {'unit':8} {'ours':>10} {'peer':>10} {'ours/peer':>10}  peer")
    for case, unit, a, b, who in rows:
        ratio = a / b if b == b else float("nan")
        print(f"{case:18} {unit:8} {a:10.1f} {b:10.1f} {ratio:10.3f}  {who}")


if __name__ == "__main__":
    main()
