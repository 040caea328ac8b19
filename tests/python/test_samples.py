"""The binding's own sample (hello_procedural.py, unchanged) and this
repository's examples/python/hello_wamr.py run and print their greetings."""

import os
import shutil
import subprocess
import sys
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]


def binding_root():
    """The shared clients folder: ../shared/clients beside the repository,
    or $WAMR_PYTHON_CLIENTS."""
    root = Path(os.environ.get("WAMR_PYTHON_CLIENTS", REPO.parent / "shared" / "clients"))
    samples = root / "wamr-python" / "wasm-c-api" / "samples"
    assert samples.is_dir(), f"no binding samples at {samples} (set WAMR_PYTHON_CLIENTS)"
    return samples


def run_python(script, cwd):
    # The runner already exported PYTHONPATH so the child loads the same
    # binding and library as this process.
    return subprocess.run([sys.executable, str(script)], cwd=cwd, capture_output=True, text=True, timeout=120)


def test_hello_procedural_sample(tmp_path):
    samples = tmp_path / "samples"
    shutil.copytree(binding_root(), samples)
    subprocess.run(["wat2wasm", "hello.wat", "-o", "hello.wasm"], cwd=samples, check=True)
    assert (samples / "hello.wasm").stat().st_size > 0
    proc = run_python(samples / "hello_procedural.py", samples)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [l for l in proc.stdout.splitlines() if not l.startswith("loading WAMR library")]
    for expected in ("Calling back...", "> Hello World!", "Done."):
        assert expected in lines, f"missing {expected!r} in:\n{proc.stdout}{proc.stderr}"
    assert lines.index("Calling back...") < lines.index("> Hello World!") < lines.index("Done.")


def test_python_example(tmp_path):
    proc = run_python(REPO / "examples" / "python" / "hello_wamr.py", tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Hello from wasm, via the host! (wasm passed 42)" in proc.stdout.splitlines(), proc.stdout + proc.stderr
