"""Zero-filled structs passed where an object is expected (row "foreign
pointers" of capi/README.md).

A ctypes binding can make `ffi.wasm_func_t()` and pass it by pointer as if
it were a function; WAMR's own binding tests do (`wasm_ref_delete(
wasm_ref_t())`). Such a struct has no fields in the binding, so ctypes
gives it 16 zero bytes inside the Python object. Each case below passes one
to a delete, copy, same, accessor or cast, in a forked child (a crash fails
that case alone), and checks the answer:

- where WAMR's answer comes from those zero bytes alone, that answer (it
  is what WAMR's callers see);
- where WAMR reads past them (into the Python object) or frees memory it
  does not own, it crashes or answers at random; there the answer is the
  one for a NULL argument, and the case is skipped against WAMR
  (CAPI_TEST_AGAINST_WAMR=1), which crashes.
"""

import ctypes as c
import os

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import functype, in_child

AGAINST_WAMR = os.environ.get("CAPI_TEST_AGAINST_WAMR", "0") not in ("", "0")


def zero(t):
    """A pointer to a zero-filled struct the binding made itself."""
    return c.pointer(t())


def unchanged_val(call):
    """Runs call(out) and returns whether *out kept its sentinel."""
    out = ffi.wasm_f64_val(1.5)
    call(out)
    return out.kind == ffi.WASM_F64 and out.of.f64 == 1.5


def empty_vec(vec_type, call):
    """Runs call(out) on a sentinel-filled vector; True if it came back
    empty (all zero)."""
    out = vec_type()
    c.memset(c.byref(out), 0x5A, c.sizeof(out))
    call(out)
    return out.size == 0 and not out.data and out.num_elems == 0


def untouched_vec(vec_type, call):
    """True if call(out) left a sentinel-filled vector as it was."""
    out = vec_type()
    c.memset(c.byref(out), 0x5A, c.sizeof(out))
    call(out)
    return out.size == 0x5A5A5A5A5A5A5A5A


@ffi.wasm_func_cb_decl
def nop(args, results):
    pass


# (id, call returning the answer, expected answer, WAMR's answer is defined)
# Answers are Python values: pointers become bool (non-NULL).
CASES = [
    # Deletes: WAMR frees the struct (not heap memory) except where noted.
    ("func_delete", lambda: ffi.wasm_func_delete(zero(ffi.wasm_func_t)), None, False),
    ("global_delete", lambda: ffi.wasm_global_delete(zero(ffi.wasm_global_t)), None, False),
    ("table_delete", lambda: ffi.wasm_table_delete(zero(ffi.wasm_table_t)), None, False),
    ("memory_delete", lambda: ffi.wasm_memory_delete(zero(ffi.wasm_memory_t)), None, False),
    ("extern_delete", lambda: ffi.wasm_extern_delete(zero(ffi.wasm_extern_t)), None, False),
    ("trap_delete", lambda: ffi.wasm_trap_delete(zero(ffi.wasm_trap_t)), None, False),
    ("foreign_delete", lambda: ffi.wasm_foreign_delete(zero(ffi.wasm_foreign_t)), None, False),
    ("frame_delete", lambda: ffi.wasm_frame_delete(zero(ffi.wasm_frame_t)), None, False),
    ("valtype_delete", lambda: ffi.wasm_valtype_delete(zero(ffi.wasm_valtype_t)), None, False),
    ("functype_delete", lambda: ffi.wasm_functype_delete(zero(ffi.wasm_functype_t)), None, False),
    ("globaltype_delete", lambda: ffi.wasm_globaltype_delete(zero(ffi.wasm_globaltype_t)), None, False),
    ("tabletype_delete", lambda: ffi.wasm_tabletype_delete(zero(ffi.wasm_tabletype_t)), None, False),
    ("memorytype_delete", lambda: ffi.wasm_memorytype_delete(zero(ffi.wasm_memorytype_t)), None, False),
    ("externtype_delete", lambda: ffi.wasm_externtype_delete(zero(ffi.wasm_externtype_t)), None, False),
    ("importtype_delete", lambda: ffi.wasm_importtype_delete(zero(ffi.wasm_importtype_t)), None, False),
    ("exporttype_delete", lambda: ffi.wasm_exporttype_delete(zero(ffi.wasm_exporttype_t)), None, False),
    # WAMR: a ref whose store is NULL is left alone; a module is freed with
    # its store only.
    ("ref_delete", lambda: ffi.wasm_ref_delete(zero(ffi.wasm_ref_t)), None, True),
    ("module_delete", lambda: ffi.wasm_module_delete(zero(ffi.wasm_module_t)), None, True),
    # Copies.
    ("func_copy", lambda: bool(ffi.wasm_func_copy(zero(ffi.wasm_func_t))), False, False),
    ("global_copy", lambda: bool(ffi.wasm_global_copy(zero(ffi.wasm_global_t))), False, False),
    ("table_copy", lambda: bool(ffi.wasm_table_copy(zero(ffi.wasm_table_t))), False, False),
    ("memory_copy", lambda: bool(ffi.wasm_memory_copy(zero(ffi.wasm_memory_t))), False, False),
    ("extern_copy", lambda: bool(ffi.wasm_extern_copy(zero(ffi.wasm_extern_t))), False, False),
    ("frame_copy", lambda: bool(ffi.wasm_frame_copy(zero(ffi.wasm_frame_t))), False, False),
    ("functype_copy", lambda: bool(ffi.wasm_functype_copy(zero(ffi.wasm_functype_t))), False, False),
    ("globaltype_copy", lambda: bool(ffi.wasm_globaltype_copy(zero(ffi.wasm_globaltype_t))), False, False),
    ("tabletype_copy", lambda: bool(ffi.wasm_tabletype_copy(zero(ffi.wasm_tabletype_t))), False, False),
    ("externtype_copy", lambda: bool(ffi.wasm_externtype_copy(zero(ffi.wasm_externtype_t))), False, False),
    ("importtype_copy", lambda: bool(ffi.wasm_importtype_copy(zero(ffi.wasm_importtype_t))), False, False),
    ("exporttype_copy", lambda: bool(ffi.wasm_exporttype_copy(zero(ffi.wasm_exporttype_t))), False, False),
    # WAMR: a ref whose store is NULL copies to NULL.
    ("ref_copy", lambda: bool(ffi.wasm_ref_copy(zero(ffi.wasm_ref_t))), False, True),
    # Same: a zero ref is not the same as NULL.
    ("ref_same_null", lambda: ffi.wasm_ref_same(zero(ffi.wasm_ref_t), None), False, True),
    ("func_same_null", lambda: ffi.wasm_func_same(zero(ffi.wasm_func_t), None), False, True),
    # Accessors of runtime objects.
    ("func_type", lambda: bool(ffi.wasm_func_type(zero(ffi.wasm_func_t))), False, False),
    ("func_param_arity", lambda: ffi.wasm_func_param_arity(zero(ffi.wasm_func_t)), 0, False),
    ("func_result_arity", lambda: ffi.wasm_func_result_arity(zero(ffi.wasm_func_t)), 0, False),
    ("global_type", lambda: bool(ffi.wasm_global_type(zero(ffi.wasm_global_t))), False, False),
    ("global_get", lambda: unchanged_val(lambda o: ffi.wasm_global_get(zero(ffi.wasm_global_t), o)), True, False),
    ("global_set", lambda: ffi.wasm_global_set(zero(ffi.wasm_global_t), ffi.wasm_i32_val(1)), None, False),
    ("table_size", lambda: ffi.wasm_table_size(zero(ffi.wasm_table_t)), 0, False),
    ("table_get", lambda: bool(ffi.wasm_table_get(zero(ffi.wasm_table_t), 0)), False, False),
    ("table_set", lambda: ffi.wasm_table_set(zero(ffi.wasm_table_t), 0, None), False, False),
    ("table_grow", lambda: ffi.wasm_table_grow(zero(ffi.wasm_table_t), 1, None), False, True),
    ("memory_data", lambda: bool(ffi.wasm_memory_data(zero(ffi.wasm_memory_t))), False, False),
    ("memory_size", lambda: ffi.wasm_memory_size(zero(ffi.wasm_memory_t)), 0, False),
    ("memory_data_size", lambda: ffi.wasm_memory_data_size(zero(ffi.wasm_memory_t)), 0, False),
    ("memory_grow", lambda: ffi.wasm_memory_grow(zero(ffi.wasm_memory_t), 1), False, True),
    ("extern_type", lambda: bool(ffi.wasm_extern_type(zero(ffi.wasm_extern_t))), False, False),
    ("instance_exports", lambda: empty_vec(ffi.wasm_extern_vec_t,
                                           lambda o: ffi.wasm_instance_exports(zero(ffi.wasm_instance_t), o)),
     True, True),
    ("trap_message", lambda: untouched_vec(ffi.wasm_byte_vec_t,
                                           lambda o: ffi.wasm_trap_message(zero(ffi.wasm_trap_t), o)),
     True, True),
    ("trap_origin", lambda: bool(ffi.wasm_trap_origin(zero(ffi.wasm_trap_t))), False, True),
    ("trap_trace", lambda: empty_vec(ffi.wasm_frame_vec_t,
                                     lambda o: ffi.wasm_trap_trace(zero(ffi.wasm_trap_t), o)), True, True),
    ("ref_get_host_info", lambda: bool(ffi.wasm_ref_get_host_info(zero(ffi.wasm_ref_t))), False, False),
    ("func_get_host_info", lambda: bool(ffi.wasm_func_get_host_info(zero(ffi.wasm_func_t))), False, False),
    ("func_set_host_info", lambda: ffi.wasm_func_set_host_info(zero(ffi.wasm_func_t), c.c_void_p(1)), None, False),
    ("module_imports", lambda: empty_vec(ffi.wasm_importtype_vec_t,
                                         lambda o: ffi.wasm_module_imports(zero(ffi.wasm_module_t), o)),
     True, False),
    # Accessors of types: WAMR reads the fields in the first 16 bytes.
    ("valtype_kind", lambda: ffi.wasm_valtype_kind(zero(ffi.wasm_valtype_t)), ffi.WASM_I32, True),
    ("externtype_kind", lambda: ffi.wasm_externtype_kind(zero(ffi.wasm_externtype_t)), ffi.WASM_EXTERN_FUNC, True),
    ("extern_kind", lambda: ffi.wasm_extern_kind(zero(ffi.wasm_extern_t)), ffi.WASM_EXTERN_FUNC, True),
    ("functype_params", lambda: bool(ffi.wasm_functype_params(zero(ffi.wasm_functype_t))), False, True),
    ("functype_results", lambda: bool(ffi.wasm_functype_results(zero(ffi.wasm_functype_t))), False, True),
    ("globaltype_content", lambda: bool(ffi.wasm_globaltype_content(zero(ffi.wasm_globaltype_t))), False, True),
    ("tabletype_element", lambda: bool(ffi.wasm_tabletype_element(zero(ffi.wasm_tabletype_t))), False, True),
    ("importtype_module", lambda: bool(ffi.wasm_importtype_module(zero(ffi.wasm_importtype_t))), False, True),
    ("importtype_name", lambda: bool(ffi.wasm_importtype_name(zero(ffi.wasm_importtype_t))), False, True),
    ("exporttype_name", lambda: bool(ffi.wasm_exporttype_name(zero(ffi.wasm_exporttype_t))), False, True),
    ("exporttype_type", lambda: bool(ffi.wasm_exporttype_type(zero(ffi.wasm_exporttype_t))), False, True),
    # Casts: WAMR's are pointer casts, and a ref needs a store.
    ("func_as_ref", lambda: bool(ffi.wasm_func_as_ref(zero(ffi.wasm_func_t))), False, True),
    ("global_as_ref", lambda: bool(ffi.wasm_global_as_ref(zero(ffi.wasm_global_t))), False, True),
    ("table_as_ref", lambda: bool(ffi.wasm_table_as_ref(zero(ffi.wasm_table_t))), False, True),
    ("memory_as_ref", lambda: bool(ffi.wasm_memory_as_ref(zero(ffi.wasm_memory_t))), False, True),
    ("foreign_as_ref", lambda: bool(ffi.wasm_foreign_as_ref(zero(ffi.wasm_foreign_t))), False, True),
    ("ref_as_func", lambda: bool(ffi.wasm_ref_as_func(zero(ffi.wasm_ref_t))), False, True),
    ("ref_as_foreign", lambda: bool(ffi.wasm_ref_as_foreign(zero(ffi.wasm_ref_t))), False, True),
]


@pytest.mark.parametrize("case", CASES, ids=[k[0] for k in CASES])
def test_zero_struct(engine, case):
    name, call, expected, wamr_defined = case
    if AGAINST_WAMR and not wamr_defined:
        pytest.skip("WAMR reads past the struct's zero bytes or frees it")

    def body():
        got = call()
        assert got == expected, f"{name}: got {got!r}, expected {expected!r}"
    in_child(body)


def same_pointer(p, q):
    return c.cast(p, c.c_void_p).value == c.cast(q, c.c_void_p).value


@pytest.mark.parametrize("kind", ["func", "global", "table", "memory"])
def test_zero_struct_as_extern_is_a_cast(engine, kind):
    # WAMR's wasm_X_as_extern returns its argument, which the caller may
    # pass on as it is.
    def body():
        p = zero(getattr(ffi, f"wasm_{kind}_t"))
        assert same_pointer(getattr(ffi, f"wasm_{kind}_as_extern")(p), p)
    in_child(body)


def test_zero_structs_as_arguments(store):
    # Zero structs in argument positions of constructors and links: refused
    # like NULL (WAMR reads past the zero bytes in each).
    if AGAINST_WAMR:
        pytest.skip("WAMR reads past the struct's zero bytes")

    def body():
        ft = functype([], [])
        assert not ffi.wasm_func_new(store, zero(ffi.wasm_functype_t), nop)
        assert not ffi.wasm_global_new(store, zero(ffi.wasm_globaltype_t), ffi.wasm_i32_val(0))
        assert not ffi.wasm_memory_new(store, zero(ffi.wasm_memorytype_t))
        assert not ffi.wasm_table_new(store, zero(ffi.wasm_tabletype_t), None)
        # A call of a zero function answers as for NULL (no trap).
        params, results = ffi.wasm_val_vec_t(), ffi.wasm_val_vec_t()
        assert not ffi.wasm_func_call(zero(ffi.wasm_func_t), params, results)
        ffi.wasm_functype_delete(ft)
    in_child(body)
