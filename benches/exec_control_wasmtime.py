#!/usr/bin/env python3
"""What wasmtime's epoch interruption and fuel cost on our kernels, for
comparison with `cargo bench --bench exec_control checks`.

    pip install wasmtime==50.0.1        # what benches/compare.sh uses
    python3 benches/exec_control_wasmtime.py [KERNEL...]   (REPS, default 3)

Each kernel is compiled three times (plain, Config.epoch_interruption,
Config.consume_fuel), instantiated, warmed up by one run(BENCH_N) and then
timed REPS times per variant, the variants in rotating order; the table
gives each variant's best time (other work on a shared machine only slows
runs down), its ratio to plain, and the geometric means, as
`cargo bench --bench exec_control checks` does. The call from Python
costs microseconds against runs of 100+ ms."""

import math
import os
import sys
import time

import wasmtime as wt

HERE = os.path.dirname(os.path.abspath(__file__))


def kernels():
    out = []
    with open(os.path.join(HERE, "kernels", "expected.txt")) as f:
        for line in f:
            fields = line.split()
            if fields and not line.startswith("#"):
                out.append((fields[0], int(fields[3])))
    return out


def runner(variant, name, bench_n):
    config = wt.Config()
    if variant == "epoch":
        config.epoch_interruption = True
    if variant == "fuel":
        config.consume_fuel = True
    engine = wt.Engine(config)
    store = wt.Store(engine)
    if variant == "epoch":
        store.set_epoch_deadline(1 << 62)
    module = wt.Module.from_file(engine, os.path.join(HERE, "kernels", name + ".wasm"))
    run = wt.Instance(store, module, []).exports(store)["run"]

    def call():
        if variant == "fuel":
            store.set_fuel((1 << 63) - 1)
        return run(store, bench_n)

    first = call()

    def timed():
        t = time.perf_counter()
        assert call() == first, name
        return (time.perf_counter() - t) * 1e3

    return timed


def main():
    wanted = sys.argv[1:]
    reps = max(1, int(os.environ.get("REPS", "3")))
    variants = ["plain", "epoch", "fuel"]
    print(f"{'kernel (best ms)':18} {'plain':>10} {'epoch':>10} {'fuel':>10} {'epoch/plain':>12} {'fuel/plain':>12}")
    logs = [[], []]
    for name, bench_n in kernels():
        if wanted and name not in wanted:
            continue
        runners = [runner(v, name, bench_n) for v in variants]
        samples = [[] for _ in variants]
        for rep in range(reps):
            for k in range(len(variants)):
                i = (k + rep) % len(variants)
                samples[i].append(runners[i]())
        m = [min(s) for s in samples]
        epoch, fuel = m[1] / m[0], m[2] / m[0]
        logs[0].append(math.log(epoch))
        logs[1].append(math.log(fuel))
        print(f"{name:18} {m[0]:10.1f} {m[1]:10.1f} {m[2]:10.1f} {epoch:12.3f} {fuel:12.3f}")
    g = [math.exp(sum(l) / len(l)) for l in logs]
    print(f"{'geomean':18} {'':>10} {'':>10} {'':>10} {g[0]:12.3f} {g[1]:12.3f}")


if __name__ == "__main__":
    main()
