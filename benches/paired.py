"""What the Python comparison scripts (atomics_compare.py, wasi_compare.py)
share: our figures come from a `cargo bench` target that prints
`RESULT case value unit` lines, and each side runs twice, alternating, so
that load from other work on the machine drifts over both alike."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cargo_results(bench, **env):
    """{case: (value, unit)} from `cargo bench --bench BENCH`, run with ENV added."""
    out = subprocess.run(["cargo", "bench", "-q", "--bench", bench], cwd=ROOT, env=dict(os.environ, **env),
                         check=True, capture_output=True, text=True).stdout
    res = {}
    for line in out.splitlines():
        if line.startswith("RESULT "):
            _, case, value, unit = line.split()
            res[case] = (float(value), unit)
    return res


def best_of_alternating(ours, theirs):
    """Runs ours, theirs, ours, theirs; for each side, {case: (best value, unit)}."""
    runs = [(ours(), theirs()) for _ in range(2)]

    def best(side):
        first = runs[0][side]
        return {case: (min(r[side][case][0] for r in runs), unit) for case, (_, unit) in first.items()}

    return best(0), best(1)
