"""ctypes declarations of the part of ``wasm_c_api.h`` the package uses.

Private: the public classes live in the other modules. Opaque handles are
plain ``c_void_p``; the structs mirror the header's layouts (checked
against ``include/wasm_c_api.h`` by the tests). The library is, in order:
``$CRANEWASM_LIB``, the ``libiwasm.so`` bundled in this package, or the
``target/release`` build of the source tree this package sits in.
"""

import ctypes as c
import os
from pathlib import Path
from typing import Any, List

I32, I64, F32, F64, V128, EXTERNREF, FUNCREF = 0, 1, 2, 3, 4, 128, 129
# What cranewasm_ref_gc_kind says a reference is.
REF_NOT_GC, REF_I31, REF_STRUCT, REF_ARRAY, REF_HOST = 0, 1, 2, 3, 4
EXTERN_FUNC, EXTERN_GLOBAL, EXTERN_TABLE, EXTERN_MEMORY = 0, 1, 2, 3
CONST, VAR = 0, 1
NO_MAX = 0xFFFFFFFF


def __getattr__(name: str) -> Any:
    """For type checkers: the C functions are set below, from a table, so
    they are typed as ``Any`` (ctypes checks their arguments)."""
    raise AttributeError(name)


def _find_library() -> str:
    env = os.environ.get("CRANEWASM_LIB")
    if env:
        return env
    here = Path(__file__).resolve().parent
    for candidate in (here / "libiwasm.so", here.parent.parent / "target" / "release" / "libiwasm.so"):
        if candidate.is_file():
            return str(candidate)
    raise ImportError(
        "cranewasm: libiwasm.so not found: set CRANEWASM_LIB, install the package with the "
        "library bundled (pip install ./python after cargo build --release), or build the source tree"
    )


LIBRARY_PATH = _find_library()
lib = c.CDLL(LIBRARY_PATH)


class Vec(c.Structure):
    """Every ``wasm_X_vec_t``: capacity, data, elements in use, element
    size, lock (40 bytes)."""

    _fields_ = [
        ("size", c.c_size_t),
        ("data", c.c_void_p),
        ("num_elems", c.c_size_t),
        ("size_of_elem", c.c_size_t),
        ("lock", c.c_void_p),
    ]


class ValUnion(c.Union):
    _fields_ = [("i32", c.c_int32), ("i64", c.c_int64), ("f32", c.c_float), ("f64", c.c_double), ("ref", c.c_void_p)]


class Val(c.Structure):
    """``wasm_val_t``: kind byte, padding, payload at offset 8 (16 bytes)."""

    _fields_ = [("kind", c.c_uint8), ("_paddings", c.c_uint8 * 7), ("of", ValUnion)]


class Limits(c.Structure):
    _fields_ = [("min", c.c_uint32), ("max", c.c_uint32)]


class Limits64(c.Structure):
    """``cranewasm_limits64_t`` (``max == NO_MAX64``: none)."""

    _fields_ = [("min", c.c_uint64), ("max", c.c_uint64)]


NO_MAX64 = 2**64 - 1


class EngineOptions(c.Structure):
    """``cranewasm_engine_options_t``."""

    _fields_ = [("consume_fuel", c.c_bool), ("epoch_interruption", c.c_bool), ("lazy_compilation", c.c_int8),
                ("bounds_checks", c.c_int8), ("max_wasm_stack", c.c_size_t)]


class StoreLimits(c.Structure):
    """``cranewasm_store_limits_t`` (a negative field: no cap)."""

    _fields_ = [("memory_size", c.c_int64), ("table_elements", c.c_int64), ("instances", c.c_int64),
                ("memories", c.c_int64), ("tables", c.c_int64)]


P = c.c_void_p
PV = c.POINTER(Vec)
PVal = c.POINTER(Val)
PS = c.POINTER(c.c_char_p)
Callback = c.CFUNCTYPE(P, P, PV, PV)
Finalizer = c.CFUNCTYPE(None, P)

# name: (result, argument types)
_SIGNATURES = {
    "wasm_engine_new": (P, []),
    "wasm_engine_delete": (None, [P]),
    "wasm_store_new": (P, [P]),
    "wasm_store_delete": (None, [P]),
    "wasm_byte_vec_new": (None, [PV, c.c_size_t, c.c_char_p]),
    "wasm_byte_vec_delete": (None, [PV]),
    "wasm_valtype_vec_new": (None, [PV, c.c_size_t, c.POINTER(P)]),
    "wasm_valtype_vec_delete": (None, [PV]),
    "wasm_extern_vec_delete": (None, [PV]),
    "wasm_importtype_vec_delete": (None, [PV]),
    "wasm_exporttype_vec_delete": (None, [PV]),
    "wasm_frame_vec_delete": (None, [PV]),
    "wasm_val_vec_delete": (None, [PV]),
    "cranewasm_wat2wasm": (c.c_bool, [c.c_char_p, c.c_size_t, PV]),
    # cranewasm's extensions (capi/src/ext/).
    "cranewasm_last_error": (c.c_bool, [PV]),
    "cranewasm_last_error_clear": (None, []),
    "cranewasm_engine_new_with_options": (P, [c.POINTER(EngineOptions)]),
    "cranewasm_engine_delete": (None, [P]),
    "cranewasm_engine_increment_epoch": (c.c_bool, [P]),
    "cranewasm_store_set_fuel": (c.c_bool, [P, c.c_uint64]),
    "cranewasm_store_get_fuel": (c.c_bool, [P, c.POINTER(c.c_uint64)]),
    "cranewasm_store_set_epoch_deadline": (c.c_bool, [P, c.c_uint64]),
    "cranewasm_store_set_limits": (c.c_bool, [P, c.POINTER(StoreLimits)]),
    "cranewasm_store_interrupt_handle": (P, [P]),
    "cranewasm_interrupt_handle_interrupt": (c.c_bool, [P]),
    "cranewasm_interrupt_handle_delete": (None, [P]),
    "cranewasm_trap_code": (c.c_bool, [P, c.POINTER(c.c_uint8)]),
    "cranewasm_trap_exit_status": (c.c_bool, [P, c.POINTER(c.c_int32)]),
    "cranewasm_trap_frame_func_name": (c.c_bool, [P, c.c_size_t, PV]),
    "cranewasm_trap_exception_payload": (c.c_bool, [P, PV]),
    "cranewasm_instance_export_tag": (P, [P, PV]),
    "wasm_instance_copy": (P, [P]),
    "cranewasm_trap_exception_tag": (P, [P]),
    "cranewasm_tag_type": (P, [P]),
    "cranewasm_tag_same": (c.c_bool, [P, P]),
    "cranewasm_tag_delete": (None, [P]),
    "cranewasm_trap_new_exception": (P, [P, P, PV]),
    "cranewasm_module_set_wasi_readonly_dirs": (None, [P, PS, c.c_uint32]),
    # GC references (capi/src/ext/gc_refs.rs; see _gc.py).
    "wasm_ref_copy": (P, [P]),
    "wasm_ref_same": (c.c_bool, [P, P]),
    "cranewasm_ref_gc_kind": (c.c_uint8, [P]),
    "cranewasm_ref_i31_new": (P, [P, c.c_int32]),
    "cranewasm_ref_i31_get": (c.c_bool, [P, c.c_bool, c.POINTER(c.c_int32)]),
    "cranewasm_ref_type_index": (c.c_bool, [P, P, c.POINTER(c.c_uint32)]),
    "cranewasm_struct_new": (P, [P, P, c.c_uint32, PV]),
    "cranewasm_struct_field_count": (c.c_uint32, [P]),
    "cranewasm_struct_field_type": (c.c_bool, [P, c.c_uint32, c.POINTER(c.c_uint8), c.POINTER(c.c_uint8),
                                               c.POINTER(c.c_bool)]),
    "cranewasm_struct_get": (c.c_bool, [P, c.c_uint32, c.c_bool, PVal]),
    "cranewasm_struct_set": (c.c_bool, [P, c.c_uint32, PVal]),
    "cranewasm_array_new": (P, [P, P, c.c_uint32, PVal, c.c_uint32]),
    "cranewasm_array_len": (c.c_bool, [P, c.POINTER(c.c_uint32)]),
    "cranewasm_array_elem_type": (c.c_bool, [P, c.POINTER(c.c_uint8), c.POINTER(c.c_uint8), c.POINTER(c.c_bool)]),
    "cranewasm_array_get": (c.c_bool, [P, c.c_uint32, c.c_bool, PVal]),
    "cranewasm_array_set": (c.c_bool, [P, c.c_uint32, PVal]),
    "wasm_extern_new_empty": (P, [P, c.c_uint8]),
    "wasm_runtime_set_log_level": (None, [c.c_int]),
    "wasm_valtype_new": (P, [c.c_uint8]),
    "wasm_valtype_delete": (None, [P]),
    "wasm_valtype_kind": (c.c_uint8, [P]),
    "wasm_functype_new": (P, [PV, PV]),
    "wasm_functype_delete": (None, [P]),
    "wasm_functype_params": (PV, [P]),
    "wasm_functype_results": (PV, [P]),
    "wasm_globaltype_new": (P, [P, c.c_uint8]),
    "wasm_globaltype_delete": (None, [P]),
    "wasm_globaltype_content": (P, [P]),
    "wasm_globaltype_mutability": (c.c_uint8, [P]),
    "wasm_tabletype_new": (P, [P, c.POINTER(Limits)]),
    "wasm_tabletype_delete": (None, [P]),
    "wasm_tabletype_element": (P, [P]),
    "wasm_tabletype_limits": (c.POINTER(Limits), [P]),
    "wasm_memorytype_new": (P, [c.POINTER(Limits)]),
    "wasm_memorytype_delete": (None, [P]),
    "wasm_memorytype_limits": (c.POINTER(Limits), [P]),
    "cranewasm_memorytype_new_shared": (P, [c.POINTER(Limits)]),
    "cranewasm_memorytype_is_shared": (c.c_bool, [P]),
    "cranewasm_memorytype_new64": (P, [c.POINTER(Limits64)]),
    "cranewasm_memorytype_is64": (c.c_bool, [P]),
    "cranewasm_memorytype_limits64": (c.POINTER(Limits64), [P]),
    "cranewasm_tabletype_new64": (P, [P, c.POINTER(Limits64)]),
    "cranewasm_tabletype_is64": (c.c_bool, [P]),
    "cranewasm_tabletype_limits64": (c.POINTER(Limits64), [P]),
    "wasm_externtype_kind": (c.c_uint8, [P]),
    "wasm_externtype_copy": (P, [P]),
    "wasm_externtype_delete": (None, [P]),
    "wasm_importtype_module": (PV, [P]),
    "wasm_importtype_name": (PV, [P]),
    "wasm_importtype_type": (P, [P]),
    "wasm_exporttype_name": (PV, [P]),
    "wasm_exporttype_type": (P, [P]),
    "wasm_module_new": (P, [P, PV]),
    "wasm_module_delete": (None, [P]),
    "wasm_module_validate": (c.c_bool, [P, PV]),
    "wasm_module_imports": (None, [P, PV]),
    "wasm_module_exports": (None, [P, PV]),
    "wasm_module_serialize": (None, [P, PV]),
    "wasm_module_deserialize": (P, [P, PV]),
    "wasm_instance_new": (P, [P, P, PV, c.POINTER(P)]),
    "wasm_instance_delete": (None, [P]),
    "wasm_instance_exports": (None, [P, PV]),
    "wasm_extern_kind": (c.c_uint8, [P]),
    "wasm_extern_delete": (None, [P]),
    "wasm_extern_as_func": (P, [P]),
    "wasm_extern_as_global": (P, [P]),
    "wasm_extern_as_table": (P, [P]),
    "wasm_extern_as_memory": (P, [P]),
    "wasm_func_as_extern": (P, [P]),
    "wasm_global_as_extern": (P, [P]),
    "wasm_table_as_extern": (P, [P]),
    "wasm_memory_as_extern": (P, [P]),
    "wasm_func_new_with_env": (P, [P, P, Callback, P, Finalizer]),
    "wasm_func_call": (P, [P, PV, PV]),
    "wasm_func_type": (P, [P]),
    "wasm_func_param_arity": (c.c_size_t, [P]),
    "wasm_func_result_arity": (c.c_size_t, [P]),
    "wasm_func_copy": (P, [P]),
    "wasm_func_delete": (None, [P]),
    "wasm_func_as_ref": (P, [P]),
    "wasm_ref_as_func": (P, [P]),
    "wasm_ref_delete": (None, [P]),
    "wasm_global_new": (P, [P, P, PVal]),
    "wasm_global_type": (P, [P]),
    "wasm_global_get": (None, [P, PVal]),
    "wasm_global_set": (None, [P, PVal]),
    "wasm_table_new": (P, [P, P, P]),
    "wasm_table_type": (P, [P]),
    "wasm_table_get": (P, [P, c.c_uint32]),
    "wasm_table_set": (c.c_bool, [P, c.c_uint32, P]),
    "wasm_table_size": (c.c_uint32, [P]),
    "wasm_table_grow": (c.c_bool, [P, c.c_uint32, P]),
    "wasm_memory_new": (P, [P, P]),
    "wasm_memory_type": (P, [P]),
    "wasm_memory_data": (c.c_void_p, [P]),
    "wasm_memory_data_size": (c.c_size_t, [P]),
    "wasm_memory_size": (c.c_uint32, [P]),
    "wasm_memory_grow": (c.c_bool, [P, c.c_uint32]),
    "wasm_trap_new": (P, [P, PV]),
    "wasm_trap_delete": (None, [P]),
    "wasm_trap_message": (None, [P, PV]),
    "wasm_trap_trace": (None, [P, PV]),
    "wasm_frame_func_index": (c.c_uint32, [P]),
    "wasm_frame_func_offset": (c.c_size_t, [P]),
    "wasm_frame_module_offset": (c.c_size_t, [P]),
    # wasm_export.h's WASI settings, on `*module` of a wasm_module_t (see
    # _wasi.py).
    "wasm_runtime_set_wasi_args_ex": (None, [P, PS, c.c_uint32, PS, c.c_uint32, PS, c.c_uint32, PS, c.c_int,
                                             c.c_int64, c.c_int64, c.c_int64]),
    "wasm_runtime_set_wasi_addr_pool": (None, [P, PS, c.c_uint32]),
    "wasm_runtime_set_wasi_ns_lookup_pool": (None, [P, PS, c.c_uint32]),
}

for _name, (_res, _args) in _SIGNATURES.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args
    globals()[_name] = _f

# The C allocator's free, for the bytes of v128 values handed out.
free = c.CDLL(None).free
free.restype = None
free.argtypes = [c.c_void_p]


def byte_vec(data: bytes) -> Vec:
    """A runtime-allocated byte vector holding a copy of ``data``."""
    v = Vec()
    lib.wasm_byte_vec_new(c.byref(v), len(data), data)
    return v


def last_error() -> str:
    """The calling thread's last error message from the library (empty if
    none), forgotten once read."""
    v = Vec()
    if not lib.cranewasm_last_error(c.byref(v)):
        return ""
    text = vec_bytes(v).decode("utf-8", "replace")
    lib.wasm_byte_vec_delete(c.byref(v))
    return text


def vec_bytes(v: Vec) -> bytes:
    return c.string_at(v.data, v.num_elems) if v.data and v.num_elems else b""


def name_str(v: Any) -> str:
    """A name the runtime handed out (NUL-terminated, NUL counted)."""
    raw = vec_bytes(v.contents if hasattr(v, "contents") else v)
    return raw[:-1].decode() if raw.endswith(b"\0") else raw.decode()


def elems(v: Vec) -> List[int]:
    """The pointers of a vector of pointers."""
    if not v.data:
        return []
    return list(c.cast(v.data, c.POINTER(c.c_void_p))[: v.num_elems])
