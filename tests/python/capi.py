"""Helpers shared by the binding tests: WAT compilation, vectors, calls,
names and traps, all through WAMR's Python binding (``wamr.wasmcapi.ffi``)
exactly as a client of that binding would use it."""

import ctypes as c
import os
import signal
import subprocess
import sys
import tempfile
import traceback

import pytest
import wamr.wasmcapi.ffi as ffi

# ABI.md: valtype kinds and extern kinds.
VALKINDS = {
    "i32": ffi.WASM_I32,
    "i64": ffi.WASM_I64,
    "f32": ffi.WASM_F32,
    "f64": ffi.WASM_F64,
    "v128": 4,  # the binding has no WASM_V128 name; ABI.md: V128=4
    "externref": ffi.WASM_EXTERNREF,
    "funcref": ffi.WASM_FUNCREF,
}
NO_MAX = 0xFFFFFFFF
CHILD_SECONDS = 20


def wat2wasm(text):
    """Compiles WAT text to module bytes with wabt's wat2wasm."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "m.wat")
        out = os.path.join(tmp, "m.wasm")
        with open(src, "w") as f:
            f.write(text)
        subprocess.run(["wat2wasm", src, "-o", out], check=True)
        with open(out, "rb") as f:
            return f.read()


def byte_vec(data):
    """A wasm_byte_vec_t holding a copy of ``data`` (runtime-allocated)."""
    vec = ffi.wasm_byte_vec_t()
    if data:
        buf = (c.c_ubyte * len(data)).from_buffer_copy(data)
        ffi.wasm_byte_vec_new(vec, len(data), buf)
    else:
        ffi.wasm_byte_vec_new_empty(vec)
    return vec


def vec_bytes(vec):
    """The bytes in use in a byte vector."""
    if not vec.data or vec.num_elems == 0:
        return b""
    return bytes(vec.data[: vec.num_elems])


def runtime_name(vec):
    """A name the runtime handed out, as str. ABI.md: it ends in a NUL that
    is counted in size and num_elems."""
    raw = vec_bytes(vec)
    assert raw.endswith(b"\0"), f"name {raw!r} is not NUL-terminated"
    assert vec.size == vec.num_elems, f"size {vec.size} != num_elems {vec.num_elems}"
    assert b"\0" not in raw[:-1], f"name {raw!r} has an inner NUL"
    return raw[:-1].decode()


def compile_module(store, wat):
    vec = byte_vec(wat2wasm(wat))
    module = ffi.wasm_module_new(store, vec)
    ffi.wasm_byte_vec_delete(vec)
    assert module, "wasm_module_new returned NULL"
    return module


def trap_message(trap):
    """The message of a trap, checked to be NUL-terminated and counted."""
    assert trap, "expected a trap, got none"
    msg = ffi.wasm_message_t()
    ffi.wasm_trap_message(trap, msg)
    text = runtime_name(msg)
    ffi.wasm_byte_vec_delete(msg)
    return text


def take_trap(trap):
    """Message of a trap, which is deleted."""
    text = trap_message(trap)
    ffi.wasm_trap_delete(trap)
    return text


def val(kind, value=None):
    """A wasm_val_t of the given kind name."""
    v = ffi.wasm_val_t()
    v.kind = VALKINDS[kind]
    if kind in ("externref", "funcref"):
        v.of.ref = value
    else:
        setattr(v.of, kind, value)
    return v


def val_value(v):
    name = {k: n for n, k in VALKINDS.items()}[v.kind]
    return name, getattr(v.of, name) if name in ("i32", "i64", "f32", "f64") else v.of.ref


def val_vec(values, capacity=None):
    """A client-built wasm_val_vec_t over a ctypes array; the array is kept
    alive by the returned vector's ``_keep``."""
    n = len(values) if capacity is None else capacity
    arr = (ffi.wasm_val_t * max(n, 1))()
    for i, v in enumerate(values):
        arr[i] = v
    vec = ffi.wasm_val_vec_t(n, c.cast(arr, c.POINTER(ffi.wasm_val_t)), len(values), c.sizeof(ffi.wasm_val_t), None)
    vec._keep = arr
    return vec


def call(func, args=(), nresults=None):
    """Calls ``func`` with wasm_val_t or (kind, value) arguments; returns
    (trap or None, [(kind, value), ...])."""
    if nresults is None:
        nresults = ffi.wasm_func_result_arity(func)
    params = val_vec([a if isinstance(a, ffi.wasm_val_t) else val(*a) for a in args])
    results = val_vec([], capacity=nresults)
    trap = ffi.wasm_func_call(func, params, results)
    if trap:
        return trap, None
    assert results.num_elems == nresults, f"results num_elems {results.num_elems}, expected {nresults}"
    return None, [val_value(results.data[i]) for i in range(nresults)]


def call_ok(func, *args):
    trap, results = call(func, args)
    assert not trap, f"unexpected trap: {take_trap(trap)}"
    return [v for _, v in results]


def functype(params, results):
    """A wasm_functype_t from lists of kind names."""
    def vec(kinds):
        v = ffi.wasm_valtype_vec_t()
        if not kinds:
            ffi.wasm_valtype_vec_new_empty(v)
            return v
        arr = (c.POINTER(ffi.wasm_valtype_t) * len(kinds))()
        for i, k in enumerate(kinds):
            arr[i] = ffi.wasm_valtype_new(VALKINDS[k])
        ffi.wasm_valtype_vec_new(v, len(kinds), arr)
        return v

    ft = ffi.wasm_functype_new(vec(params), vec(results))
    assert ft, "wasm_functype_new returned NULL"
    return ft


class Instance:
    """An instance with its exports by name; release() deletes them."""

    def __init__(self, store, module, imports=()):
        vec = ffi.wasm_extern_vec_t()
        if imports:
            arr = (c.POINTER(ffi.wasm_extern_t) * len(imports))(*imports)
            vec = ffi.wasm_extern_vec_t(len(imports), c.cast(arr, c.POINTER(c.POINTER(ffi.wasm_extern_t))), len(imports), c.sizeof(c.c_void_p), None)
            vec._keep = arr
        trap = c.POINTER(ffi.wasm_trap_t)()
        self.instance = ffi.wasm_instance_new(store, module, vec, c.byref(trap))
        assert not trap, f"instantiation trapped: {take_trap(trap)}"
        assert self.instance, "wasm_instance_new returned NULL"
        self.types = ffi.wasm_exporttype_vec_t()
        ffi.wasm_module_exports(module, self.types)
        self.externs = ffi.wasm_extern_vec_t()
        ffi.wasm_instance_exports(self.instance, self.externs)
        assert self.externs.num_elems == self.types.num_elems
        self.exports = {}
        for i in range(self.types.num_elems):
            name = runtime_name(ffi.wasm_exporttype_name(self.types.data[i]).contents)
            self.exports[name] = self.externs.data[i]

    def func(self, name):
        f = ffi.wasm_extern_as_func(self.exports[name])
        assert f, f"export {name} is not a function"
        return f

    def memory(self, name):
        m = ffi.wasm_extern_as_memory(self.exports[name])
        assert m, f"export {name} is not a memory"
        return m

    def table(self, name):
        t = ffi.wasm_extern_as_table(self.exports[name])
        assert t, f"export {name} is not a table"
        return t

    def global_(self, name):
        g = ffi.wasm_extern_as_global(self.exports[name])
        assert g, f"export {name} is not a global"
        return g

    def release(self):
        ffi.wasm_extern_vec_delete(self.externs)
        ffi.wasm_exporttype_vec_delete(self.types)
        ffi.wasm_instance_delete(self.instance)


def in_child(fn):
    """Runs ``fn`` in a forked child and fails the test if it raised or
    crashed or hung: negative cases must never take the process down, and a
    crash here fails only the test that caused it."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        signal.alarm(CHILD_SECONDS)
        code = 0
        try:
            fn()
        except AssertionError:
            traceback.print_exc()
            code = 1
        except BaseException:
            traceback.print_exc()
            code = 2
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGALRM:
        pytest.fail(f"hung: killed after {CHILD_SECONDS} s")
    if os.WIFSIGNALED(status):
        pytest.fail(f"crashed with signal {os.WTERMSIG(status)}")
    assert os.WEXITSTATUS(status) == 0, "check failed in the child (see its output)"
