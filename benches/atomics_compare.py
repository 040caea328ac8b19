#!/usr/bin/env python3
"""Atomic counters on a shared memory, ours against wasmtime's (the
`wasmtime` PyPI wheel, Config.wasm_threads and shared_memory), in one run, as ratios (these
machines are noisy: read the ratios).

    python3 benches/atomics_compare.py            # builds what it needs

The module is benches/harness/atomics.wat for both runtimes; each thread
has its own store and instance over one shared memory and calls
`add(addr, n)` once, so the time is the loop of atomic increments in
compiled code (wasmtime's threads call from Python, which releases the GIL
for the call). Cases, wall time per increment:
  uncontended   one thread, one counter
  contended_2   two threads, one counter
  separate_2    two threads, a counter each on its own cache line
"""

import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from paired import best_of_alternating, cargo_results

ROOT = Path(__file__).resolve().parent.parent
WAT = (ROOT / "benches/harness/atomics.wat").read_text()
N = 10_000_000
REPS = int(os.environ.get("REPS", "7"))
CASES = {"uncontended": [0], "contended_2": [0, 0], "separate_2": [0, 128]}


def ours():
    """Our cases, from `cargo bench --bench atomics`."""
    return cargo_results("atomics", REPS=str(REPS))


def wasmtime_cases():
    try:
        import wasmtime as wt
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "wasmtime==50.0.1"], check=True)
        import wasmtime as wt
    from wasmtime import _ffi as ffi

    # The wheel's SharedMemory._as_extern hands the union a pointer to its
    # pointer (ctypes refuses it), so a shared memory cannot be imported;
    # this is the same method with the pointer itself.
    def as_extern(self):
        union = ffi.wasmtime_extern_union(sharedmemory=self.ptr())
        return ffi.wasmtime_extern_t(ffi.WASMTIME_EXTERN_SHAREDMEMORY, union)

    wt.SharedMemory._as_extern = as_extern
    cfg = wt.Config()
    cfg.wasm_threads = True
    cfg.shared_memory = True
    engine = wt.Engine(cfg)
    module = wt.Module(engine, WAT)

    def run(addrs):
        memory = wt.SharedMemory(engine, wt.MemoryType(wt.Limits(1, 1), shared=True))
        start = threading.Barrier(len(addrs) + 1)
        finals = [0] * len(addrs)

        def worker(i, addr):
            store = wt.Store(engine)
            add = wt.Instance(store, module, [memory]).exports(store)["add"]
            start.wait()
            finals[i] = add(store, addr, N)

        threads = [threading.Thread(target=worker, args=(i, a)) for i, a in enumerate(addrs)]
        for t in threads:
            t.start()
        start.wait()
        t0 = time.perf_counter_ns()
        for t in threads:
            t.join()
        ns = (time.perf_counter_ns() - t0) / (N * len(addrs))
        assert max(finals) == N * addrs.count(addrs[finals.index(max(finals))]), finals
        return ns

    res = {}
    for case, addrs in CASES.items():
        run(addrs)  # warm-up
        res[case] = (statistics.median(run(addrs) for _ in range(REPS)), "ns/increment")
    return res


def main():
    a, b = best_of_alternating(ours, wasmtime_cases)
    print(f"{'case':<14} {'unit':<14} {'ours':>8} {'wasmtime':>9} {'ours/wasmtime':>14}")
    for case in CASES:
        (x, unit), (y, _) = a[case], b[case]
        print(f"{case:<14} {unit:<14} {x:>8.2f} {y:>9.2f} {x / y:>14.3f}")


if __name__ == "__main__":
    main()
