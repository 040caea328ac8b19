#!/usr/bin/env python3
"""GC costs, ours against wasmtime's collector (the `wasmtime` PyPI wheel,
50.0.1, Config.wasm_gc), in one run, as ratios (these machines are noisy:
read the ratios and their spreads).

    python3 benches/gc_compare.py            5 interleaved rounds
    ROUNDS=9 GC_DEPTH=18 python3 benches/gc_compare.py

The module is benches/harness/gc.wat for both runtimes, and both sides do
the same per process (ours: `cargo bench --bench gc`; wasmtime's: this
script as a child, `--wasmtime`): one first call per case, whose peak
resident memory above the level before it is `binary_trees_rss`, then
REPS timed calls, median, each call in a fresh store (instantiated
outside the timing). Each round starts a fresh process per side, the
order alternating. Check values must agree.

Targets (issue 40): binary_trees <= 0.8x and its peak RSS <= 1.0x,
dispatch <= 0.9x, array_fill_copy <= 1.0x.
"""

import os
import subprocess
import sys
import time
from pathlib import Path

from ab import parse_rows

ROOT = Path(__file__).resolve().parent.parent
WAT = ROOT / "benches/harness/gc.wat"
CASES = [("binary_trees", None), ("dispatch", 10_000_000), ("array_fill_copy", 2000)]
# benches/gc.rs's list length: 64 MiB of our 24-byte nodes.
LIVE_NODES = (64 << 20) // 24 + 1
TARGETS = {"binary_trees": 0.8, "binary_trees_rss": 1.0, "dispatch": 0.9, "array_fill_copy": 1.0}


def status_kib(field):
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field):
            return int(line[len(field):].split()[0])
    raise RuntimeError(field)


def wasmtime_child():
    """What benches/gc.rs does, with wasmtime: RESULT lines on stdout."""
    import wasmtime as wt
    reps = max(1, int(os.environ.get("REPS", "5")))
    depth = int(os.environ.get("GC_DEPTH", "16"))
    cfg = wt.Config()
    cfg.wasm_gc = True
    cfg.wasm_function_references = True
    engine = wt.Engine(cfg)
    module = wt.Module(engine, WAT.read_text())
    for case, n in CASES:
        n = depth if n is None else n

        def call():
            store = wt.Store(engine)
            f = wt.Instance(store, module, []).exports(store)[case]
            t0 = time.perf_counter()
            return f(store, n), (time.perf_counter() - t0) * 1e3

        Path("/proc/self/clear_refs").write_text("5")
        before = status_kib("VmRSS:")
        check, _ = call()
        if case == "binary_trees":
            print(f"RESULT {case}_rss {status_kib('VmHWM:') - before} KiB {check}")
        samples = []
        for _ in range(reps):
            again, ms = call()
            assert again == check, f"{case}: check value changed"
            samples.append(ms)
        samples.sort()
        print(f"RESULT {case} {samples[len(samples) // 2]:.3f} ms {check}", flush=True)
    # The longest of 3 full collections of a held list of LIVE_NODES nodes.
    store = wt.Store(engine)
    assert wt.Instance(store, module, []).exports(store)["live_list"](store, LIVE_NODES) == LIVE_NODES
    pauses = []
    for _ in range(3):
        t0 = time.perf_counter()
        store.gc()
        pauses.append((time.perf_counter() - t0) * 1e3)
    print(f"RESULT gc_pause_64mib {max(pauses):.3f} ms {LIVE_NODES}", flush=True)


def results(cmd, env):
    out = subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, **env), check=True, capture_output=True,
                         text=True).stdout
    return parse_rows(out)


def main():
    rounds = int(os.environ.get("ROUNDS", "5"))
    subprocess.run(["cargo", "bench", "--bench", "gc", "--no-run", "-q"], cwd=ROOT, check=True)
    try:
        import wasmtime  # noqa: F401
    except ImportError:
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "wasmtime==50.0.1"], check=True)
    sides = {
        "ours": (["cargo", "bench", "-q", "--bench", "gc"], {}),
        "wasmtime": ([sys.executable, __file__, "--wasmtime"], {}),
    }
    runs = {"ours": [], "wasmtime": []}
    for r in range(rounds):
        order = ["ours", "wasmtime"] if r % 2 == 0 else ["wasmtime", "ours"]
        for side in order:
            runs[side].append(results(*sides[side]))
        print(f"round {r + 1} of {rounds}", file=sys.stderr)
    print(f"{rounds} interleaved rounds; minimum (spread max/min); ours/wasmtime: ratio of minima "
          f"(spread of the per-round ratios)")
    print(f"{'case':<18} {'unit':<4} {'ours':>16} {'wasmtime':>16} {'ratio':>14}  target")
    for case in runs["ours"][0]:
        checks = {run[case][2] for side in runs for run in runs[side]}
        if len(checks) != 1:
            sys.exit(f"{case}: check values disagree: {sorted(checks)}")
        a = [run[case][0] for run in runs["ours"]]
        b = [run[case][0] for run in runs["wasmtime"]]
        per_round = [x / y for x, y in zip(a, b)]
        ratio = min(a) / min(b)
        spread = max(per_round) / min(per_round)
        target = TARGETS.get(case)
        verdict = "" if target is None else f"<= {target} {'met' if ratio <= target else 'NOT met'}"
        unit = runs["ours"][0][case][1]
        print(f"{case:<18} {unit:<4} {min(a):>9.1f} ({max(a) / min(a):.2f}) {min(b):>9.1f} ({max(b) / min(b):.2f})"
              f" {ratio:>7.3f} ({spread:.2f})  {verdict}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--wasmtime"]:
        wasmtime_child()
    else:
        main()
