"""WASI from Python: the C program tests/wasi-example.sh builds
(examples/wasi/demo.c) run through a Linker, with argv, env, a mapped and
a read-only directory, captured stdout and stdin, and its exit status;
``WasiExit`` from a direct call of ``_start``."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

import cranewasm as w

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def demo_wasm(tmp_path_factory):
    """demo.c built as tests/wasi-example.sh builds it (the test command
    installs clang and wasi-libc; without them this fails, never skips)."""
    clang = shutil.which("clang")
    assert clang, "clang is needed to build examples/wasi/demo.c (tests/run-all.sh installs it)"
    out = tmp_path_factory.mktemp("wasi") / "demo.wasm"
    subprocess.run([clang, "--target=wasm32-wasi", "-O2", "-o", str(out), str(ROOT / "examples" / "wasi" / "demo.c")],
                   check=True)
    return out


def run_demo(engine, demo_wasm, config):
    linker = w.Linker(engine)
    linker.define_wasi(config)
    with w.Store(engine) as store:
        inst = linker.instantiate(store, w.Module.from_file(engine, demo_wasm))
        return config.start(inst)


def test_demo_program_from_python(engine, demo_wasm, tmp_path):
    cfg = w.WasiConfig(argv=["demo", "a", "b c", "7"], env={"GREETING": "hello"}, stdout=w.CAPTURE)
    cfg.preopen_dir(tmp_path, "/data")
    assert run_demo(engine, demo_wasm, cfg) == 7
    assert cfg.stdout_bytes.decode() == (
        "arg 0: demo\narg 1: a\narg 2: b c\narg 3: 7\nGREETING=hello\n"
        "read back: written by a wasm guest\nopen /etc/passwd: refused\nentries in /data: 1\n")
    assert (tmp_path / "note.txt").read_text() == "written by a wasm guest\n"
    assert "argv=" in repr(cfg)


def test_exit_status_zero_and_no_args(engine, demo_wasm, tmp_path):
    cfg = w.WasiConfig(argv=["demo"], stdout=w.CAPTURE)
    cfg.preopen_dir(tmp_path, "/data")
    assert run_demo(engine, demo_wasm, cfg) == 0
    assert b"GREETING=(unset)" in cfg.stdout_bytes


def test_readonly_dir_refuses_writes(engine, demo_wasm, tmp_path):
    cfg = w.WasiConfig(argv=["demo"], stdout=w.CAPTURE, stderr=w.CAPTURE)
    cfg.preopen_dir(tmp_path, "/data", readonly=True)
    assert run_demo(engine, demo_wasm, cfg) == 2  # fopen for writing failed
    assert b"fopen /data/note.txt" in cfg.stderr_bytes
    assert not (tmp_path / "note.txt").exists()


def test_stdout_to_a_file_and_fd(engine, demo_wasm, tmp_path):
    data = tmp_path / "d"
    data.mkdir()
    out = tmp_path / "out.txt"
    cfg = w.WasiConfig(argv=["demo", "5"], map_dirs={"/data": str(data)}, stdout=out)
    assert run_demo(engine, demo_wasm, cfg) == 5
    assert "entries in /data: 1" in out.read_text()
    fd = os.open(tmp_path / "fd.txt", os.O_WRONLY | os.O_CREAT)
    try:
        cfg = w.WasiConfig(argv=["demo"], map_dirs={"/data": str(data)}, stdout=fd)
        assert run_demo(engine, demo_wasm, cfg) == 0
    finally:
        os.close(fd)
    assert "arg 0: demo" in (tmp_path / "fd.txt").read_text()
    with pytest.raises(ValueError):
        cfg.stdout_bytes  # not captured


ECHO = """(module
  (import "wasi_snapshot_preview1" "fd_read" (func $read (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "proc_exit" (func $exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start")
    (i32.store (i32.const 0) (i32.const 64)) (i32.store (i32.const 4) (i32.const 100))
    (drop (call $read (i32.const 0) (i32.const 0) (i32.const 1) (i32.const 8)))
    (i32.store (i32.const 4) (i32.load (i32.const 8)))
    (drop (call $write (i32.const 1) (i32.const 0) (i32.const 1) (i32.const 8)))
    (call $exit (i32.load (i32.const 8)))))"""


def test_stdin_bytes_and_wasi_exit(engine):
    cfg = w.WasiConfig(stdin=b"hello wasi", stdout=w.CAPTURE)
    linker = w.Linker(engine)
    linker.define_wasi(cfg)
    store = w.Store(engine)
    inst = linker.instantiate(store, w.Module(engine, ECHO))
    with pytest.raises(w.WasiExit) as e:
        inst.exports._start()
    assert e.value.code == 10 and repr(e.value) == "WasiExit(10)"
    assert cfg.stdout_bytes == b"hello wasi"
    with pytest.raises(ValueError):
        cfg.stderr_bytes  # stderr is not captured


def test_bad_streams_and_dirs(engine, tmp_path):
    linker = w.Linker(engine)
    store = w.Store(engine)
    module = w.Module(engine, ECHO)
    for cfg, err in [(w.WasiConfig(stdin=w.CAPTURE), ValueError), (w.WasiConfig(stdout=b"x"), ValueError),
                     (w.WasiConfig(stdout=1.5), TypeError)]:  # type: ignore[arg-type]
        linker.define_wasi(cfg)
        with pytest.raises(err):
            linker.instantiate(store, module)
    linker.define_wasi(w.WasiConfig(map_dirs={"/x": str(tmp_path / "missing")}))
    with pytest.raises(w.WasmError, match="mapped directory"):
        linker.instantiate(store, module)
    linker.define_wasi(w.WasiConfig(readonly_dirs={"/x": str(tmp_path / "missing")}))
    with pytest.raises(w.WasmError, match="mapped directory"):
        linker.instantiate(store, module)
    with pytest.raises(TypeError):
        linker.define_wasi("argv")  # type: ignore[arg-type]


def test_start_needs_a_command(engine, store):
    inst = w.Instance(store, w.Module(engine, "(module)"))
    with pytest.raises(w.WasmError, match="_start"):
        w.WasiConfig().start(inst)


def test_no_wasi_defined_is_a_link_error(engine, store):
    with pytest.raises(w.LinkError, match="wasi_snapshot_preview1.*fd_read") as e:
        w.Linker(engine).instantiate(store, w.Module(engine, ECHO))
    assert (e.value.module, e.value.name) == ("wasi_snapshot_preview1", "fd_read")
