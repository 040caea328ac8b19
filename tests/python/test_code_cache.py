"""CRANEWASM_CACHE_DIR: the code cache for engines the C layer makes, seen
from WAMR's Python binding. Each load runs in a fresh interpreter, since
the process engine is made once: the first compiles and stores an entry,
the second loads it (CRANEWASM_CACHE_LOG=1 says which on stderr), and
both compute the right result. Without the variable nothing is stored."""

import os
import subprocess
import sys

from capi import wat2wasm

ADD = """(module (func (export "add") (param i32 i32) (result i32)
                   (i32.add (local.get 0) (local.get 1))))"""

CHILD = """
import sys
sys.path.insert(0, {here!r})
import wamr.wasmcapi.ffi as ffi
from capi import Instance, byte_vec, call_ok
engine = ffi.wasm_engine_new()
store = ffi.wasm_store_new(engine)
vec = byte_vec(open({wasm!r}, "rb").read())
module = ffi.wasm_module_new(store, vec)
assert module, "wasm_module_new returned NULL"
print(call_ok(Instance(store, module).func("add"), ("i32", 2), ("i32", 40))[0])
"""


def load(tmp_path, cache):
    wasm = tmp_path / "add.wasm"
    wasm.write_bytes(wat2wasm(ADD))
    env = dict(os.environ, CRANEWASM_CACHE_LOG="1")
    env.pop("CRANEWASM_CACHE_DIR", None)
    if cache is not None:
        env["CRANEWASM_CACHE_DIR"] = str(cache)
    code = CHILD.format(here=os.path.dirname(__file__), wasm=str(wasm))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    # (the binding prints where it loads its library from first)
    assert out.stdout.splitlines()[-1] == "42", out.stdout
    return out.stderr


def test_cache_dir_from_the_environment(tmp_path):
    cache = tmp_path / "cache"
    first = load(tmp_path, cache)
    assert "cranewasm cache: miss" in first and "cranewasm cache: stored" in first, first
    entries = [p for p in cache.iterdir() if p.suffix == ".cwasm"]
    assert len(entries) == 1, entries
    second = load(tmp_path, cache)
    assert f"cranewasm cache: hit {entries[0]}" in second, second


def test_no_variable_no_cache(tmp_path):
    assert "cranewasm cache" not in load(tmp_path, None)
    assert not (tmp_path / "cache").exists()
