"""WAMR's import order and linking, through WAMR's binding (rows "imports:"
and "linking:" of capi/README.md; the C side is tests/c/wamr_link.c).

wasm_module_imports lists the imports grouped by kind (functions, globals,
memories, tables), each group in module order; wasm_instance_new links the
vector by kind and position: the i-th function extern to the i-th imported
function, the i-th global to the i-th imported global, however the kinds are
interleaved. Memory and table externs are not linked: the instance gets the
memory and table it declares (from "env", where WAMR can satisfy them).
"""

import ctypes as c

import pytest
import wamr.wasmcapi.ffi as ffi

from capi import call_ok, compile_module, functype, runtime_name, take_trap

# Every kind interleaved, as in tests/c/wat/wamr_link.wat.
INTERLEAVED = """(module
  (import "env" "g1" (global $g1 i32))
  (import "host" "f1" (func $f1 (result i32)))
  (import "env" "mem" (memory 1 2))
  (import "host" "g2" (global $g2 (mut i64)))
  (import "env" "tab" (table 2 4 funcref))
  (import "host" "f2" (func $f2 (param i32) (result i32)))
  (func (export "call_f1") (result i32) (call $f1))
  (func (export "call_f2") (param i32) (result i32) (call $f2 (local.get 0)))
  (func (export "get_g1") (result i32) (global.get $g1))
  (func (export "get_g2") (result i64) (global.get $g2))
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "tab_size") (result i32) (table.size 0)))"""

KINDS = {"func": ffi.WASM_EXTERN_FUNC, "global": ffi.WASM_EXTERN_GLOBAL,
         "memory": ffi.WASM_EXTERN_MEMORY, "table": ffi.WASM_EXTERN_TABLE}


@ffi.wasm_func_cb_decl
def f1_cb(args, results):
    results.contents.data[0] = ffi.wasm_i32_val(111)


@ffi.wasm_func_cb_decl
def f2_cb(args, results):
    results.contents.data[0] = ffi.wasm_i32_val(args.contents.data[0].of.i32 + 1000)


def make_externs(store):
    """The six externs the module imports, by import name."""
    def global_(kind, mut, val):
        gt = ffi.wasm_globaltype_new(ffi.wasm_valtype_new(kind), mut)
        g = ffi.wasm_global_new(store, gt, val)
        ffi.wasm_globaltype_delete(gt)
        assert g
        return ffi.wasm_global_as_extern(g)

    t1, t2 = functype([], ["i32"]), functype(["i32"], ["i32"])
    limits_m, limits_t = ffi.wasm_limits_new(1, 2), ffi.wasm_limits_new(2, 4)
    mt = ffi.wasm_memorytype_new(limits_m)
    tt = ffi.wasm_tabletype_new(ffi.wasm_valtype_new(ffi.WASM_FUNCREF), limits_t)
    ext = {
        "f1": ffi.wasm_func_as_extern(ffi.wasm_func_new(store, t1, f1_cb)),
        "f2": ffi.wasm_func_as_extern(ffi.wasm_func_new(store, t2, f2_cb)),
        "g1": global_(ffi.WASM_I32, False, ffi.wasm_i32_val(5)),
        "g2": global_(ffi.WASM_I64, True, ffi.wasm_i64_val(7)),
        "mem": ffi.wasm_memory_as_extern(ffi.wasm_memory_new(store, mt)),
        "tab": ffi.wasm_table_as_extern(ffi.wasm_table_new(store, tt, None)),
    }
    for t in (t1, t2):
        ffi.wasm_functype_delete(t)
    ffi.wasm_memorytype_delete(mt)
    ffi.wasm_tabletype_delete(tt)
    return ext


def instantiate(store, module, externs):
    """wasm_instance_new with a borrowed vector over a ctypes array (the
    externs stay ours); returns (instance, trap message)."""
    data = ffi.list_to_carray(c.POINTER(ffi.wasm_extern_t), *externs)
    vec = ffi.wasm_extern_vec_t(len(externs), c.cast(data, c.POINTER(c.POINTER(ffi.wasm_extern_t))),
                                len(externs), c.sizeof(c.c_void_p), None)
    trap = c.POINTER(ffi.wasm_trap_t)()
    inst = ffi.wasm_instance_new(store, module, vec, c.byref(trap))
    return inst, (take_trap(trap) if trap else None)


def exports(module, inst):
    """The exported functions by name: copies, which the store frees (the
    vectors are deleted here)."""
    types, externs = ffi.wasm_exporttype_vec_t(), ffi.wasm_extern_vec_t()
    ffi.wasm_module_exports(module, types)
    ffi.wasm_instance_exports(inst, externs)
    out = {}
    for i in range(types.num_elems):
        name = runtime_name(ffi.wasm_exporttype_name(types.data[i]).contents)
        out[name] = ffi.wasm_func_copy(ffi.wasm_extern_as_func(externs.data[i]))
    ffi.wasm_extern_vec_delete(externs)
    ffi.wasm_exporttype_vec_delete(types)
    return out


def test_imports_are_grouped_by_kind(store):
    module = compile_module(store, INTERLEAVED)
    imports = ffi.wasm_importtype_vec_t()
    ffi.wasm_module_imports(module, imports)
    got = []
    for it in ffi.wasm_vec_to_list(imports):
        got.append((runtime_name(ffi.wasm_importtype_module(it).contents),
                    runtime_name(ffi.wasm_importtype_name(it).contents),
                    ffi.wasm_externtype_kind(ffi.wasm_importtype_type(it))))
    assert got == [("host", "f1", KINDS["func"]), ("host", "f2", KINDS["func"]),
                   ("env", "g1", KINDS["global"]), ("host", "g2", KINDS["global"]),
                   ("env", "mem", KINDS["memory"]), ("env", "tab", KINDS["table"])]
    ffi.wasm_importtype_vec_delete(imports)
    ffi.wasm_module_delete(module)


@pytest.mark.parametrize("order", [
    ["f1", "f2", "g1", "g2", "mem", "tab"],   # wasm_module_imports' order
    ["g1", "f1", "mem", "g2", "tab", "f2"],   # the module's order
    ["tab", "mem", "g1", "f1", "g2", "f2"],   # any interleaving of kinds
    ["f1", "f2", "g1", "g2"],                 # no memory or table
], ids=["grouped", "module-order", "interleaved", "no-memory-table"])
def test_linked_by_kind_and_position(store, order):
    module = compile_module(store, INTERLEAVED)
    ext = make_externs(store)
    inst, trap = instantiate(store, module, [ext[n] for n in order])
    assert trap is None and inst, f"instantiation failed: {trap}"
    f = exports(module, inst)
    assert call_ok(f["call_f1"]) == [111]
    assert call_ok(f["call_f2"], ("i32", 1)) == [1001]
    assert call_ok(f["get_g1"]) == [5]
    assert call_ok(f["get_g2"]) == [7]
    assert call_ok(f["tab_size"]) == [2]
    call_ok(f["store"], ("i32", 65535), ("i32", 9))
    assert call_ok(f["load"], ("i32", 65535)) == [9]
    ffi.wasm_module_delete(module)


def test_functions_follow_position_not_name(store):
    module = compile_module(store, INTERLEAVED)
    ext = make_externs(store)
    inst, trap = instantiate(store, module, [ext[n] for n in ["f2", "f1", "g1", "g2"]])
    assert not inst
    assert trap == "wasm_instance_new_with_args_ex failed: Failed to validate imports"
    ffi.wasm_module_delete(module)


def test_wamr_binding_suite_module(store):
    # The module of WAMR's own binding tests imports a global, then a
    # function; the tests give [function, global].
    module = compile_module(store, """(module
      (import "mod" "g0" (global i32))
      (import "mod" "f0" (func (param f32) (result f64)))
      (func (export "f1") (param i32 i64)))""")
    ext = make_externs(store)
    ft = functype(["f32"], ["f64"])
    func = ffi.wasm_func_as_extern(ffi.wasm_func_new(store, ft, f1_cb))
    ffi.wasm_functype_delete(ft)
    inst, trap = instantiate(store, module, [func, ext["g1"]])
    assert trap is None and inst, f"instantiation failed: {trap}"
    ffi.wasm_module_delete(module)


def test_missing_global_fails_missing_function_traps(store):
    module = compile_module(store, INTERLEAVED)
    ext = make_externs(store)
    inst, trap = instantiate(store, module, [ext[n] for n in ["f1", "f2", "g1"]])
    assert not inst
    assert trap == ("wasm_instance_new_with_args_ex failed: WASM module instantiate "
                    "failed: failed to link import global (host, g2)")
    inst, trap = instantiate(store, module, [ext[n] for n in ["g1", "g2", "f1"]])
    assert trap is None and inst, f"instantiation failed: {trap}"
    f = exports(module, inst)
    assert call_ok(f["call_f1"]) == [111]
    params = ffi.wasm_val_vec_t()
    ffi.wasm_val_vec_new(params, 1, ffi.list_to_carray(ffi.wasm_val_t, ffi.wasm_i32_val(1)))
    results = ffi.wasm_val_vec_t()
    ffi.wasm_val_vec_new_uninitialized(results, 1)
    t = ffi.wasm_func_call(f["call_f2"], params, results)
    assert take_trap(t) == "Exception: failed to call unlinked import function (host, f2)"
    ffi.wasm_val_vec_delete(params)
    ffi.wasm_val_vec_delete(results)
    ffi.wasm_module_delete(module)
