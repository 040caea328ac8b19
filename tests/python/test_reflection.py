"""Imports and exports reflection: every extern kind with its type, and
NUL-terminated counted names (ABI.md: Names)."""

import wamr.wasmcapi.ffi as ffi

from capi import NO_MAX, Instance, compile_module, in_child, runtime_name

MODULE = """(module
  (import "env" "f" (func (param i32 f64) (result i64)))
  (import "env" "g" (global (mut f32)))
  (import "env" "m" (memory 1 2))
  (import "env" "t" (table 3 funcref))
  (func (export "run") (param externref) (result i32 f32) (i32.const 0) (f32.const 0))
  (global (export "glob") i64 (i64.const 0))
  (export "mem" (memory 0))
  (export "tab" (table 0))
  (func (drop (memory.grow (i32.const 0)))))"""


def describe(ext):
    kind = ffi.wasm_externtype_kind(ext)
    if kind == ffi.WASM_EXTERN_FUNC:
        ft = ffi.wasm_externtype_as_functype(ext)
        p = ffi.dereference(ffi.wasm_functype_params(ft))
        r = ffi.dereference(ffi.wasm_functype_results(ft))
        return ("func", [ffi.wasm_valtype_kind(p.data[i]) for i in range(p.num_elems)], [ffi.wasm_valtype_kind(r.data[i]) for i in range(r.num_elems)])
    if kind == ffi.WASM_EXTERN_GLOBAL:
        gt = ffi.wasm_externtype_as_globaltype(ext)
        return ("global", ffi.wasm_valtype_kind(ffi.wasm_globaltype_content(gt)), ffi.wasm_globaltype_mutability(gt))
    if kind == ffi.WASM_EXTERN_TABLE:
        tt = ffi.wasm_externtype_as_tabletype(ext)
        lim = ffi.dereference(ffi.wasm_tabletype_limits(tt))
        return ("table", ffi.wasm_valtype_kind(ffi.wasm_tabletype_element(tt)), lim.min, lim.max)
    assert kind == ffi.WASM_EXTERN_MEMORY, f"extern kind {kind}"
    lim = ffi.dereference(ffi.wasm_memorytype_limits(ffi.wasm_externtype_as_memorytype(ext)))
    return ("memory", lim.min, lim.max)


def test_imports(store):
    module = compile_module(store, MODULE)
    vec = ffi.wasm_importtype_vec_t()
    ffi.wasm_module_imports(module, vec)
    found = {}
    for i in range(vec.num_elems):
        it = vec.data[i]
        key = (runtime_name(ffi.wasm_importtype_module(it).contents), runtime_name(ffi.wasm_importtype_name(it).contents))
        found[key] = describe(ffi.wasm_importtype_type(it))
    # Compared as a set: WAMR lists imports grouped by kind, not in module
    # order, and ABI.md leaves the order to the implementation.
    assert found == {
        ("env", "f"): ("func", [ffi.WASM_I32, ffi.WASM_F64], [ffi.WASM_I64]),
        ("env", "g"): ("global", ffi.WASM_F32, ffi.WASM_VAR),
        ("env", "m"): ("memory", 1, 2),
        ("env", "t"): ("table", ffi.WASM_FUNCREF, 3, NO_MAX),
    }
    assert vec.num_elems == 4
    ffi.wasm_importtype_vec_delete(vec)
    ffi.wasm_module_delete(module)


def test_exports(store):
    module = compile_module(store, MODULE)
    vec = ffi.wasm_exporttype_vec_t()
    ffi.wasm_module_exports(module, vec)
    found = [(runtime_name(ffi.wasm_exporttype_name(vec.data[i]).contents), describe(ffi.wasm_exporttype_type(vec.data[i]))) for i in range(vec.num_elems)]
    assert found == [
        ("run", ("func", [ffi.WASM_EXTERNREF], [ffi.WASM_I32, ffi.WASM_F32])),
        ("glob", ("global", ffi.WASM_I64, ffi.WASM_CONST)),
        ("mem", ("memory", 1, 2)),
        ("tab", ("table", ffi.WASM_FUNCREF, 3, NO_MAX)),
    ]
    ffi.wasm_exporttype_vec_delete(vec)
    ffi.wasm_module_delete(module)


def test_instance_exports_match_module_exports(store):
    module = compile_module(store, """(module
      (func (export "f")) (global (export "g") i32 (i32.const 0))
      (table (export "t") 1 funcref) (memory (export "m") 1))""")
    inst = Instance(store, module)
    for name, kind in [("f", ffi.WASM_EXTERN_FUNC), ("g", ffi.WASM_EXTERN_GLOBAL), ("t", ffi.WASM_EXTERN_TABLE), ("m", ffi.WASM_EXTERN_MEMORY)]:
        ext = inst.exports[name]
        assert ffi.wasm_extern_kind(ext) == kind, name
        et = ffi.wasm_extern_type(ext)
        assert et and ffi.wasm_externtype_kind(et) == kind, name
        ffi.wasm_externtype_delete(et)
    inst.release()
    ffi.wasm_module_delete(module)


def test_reflection_given_null(store):
    def run():
        assert not ffi.wasm_importtype_module(None)
        assert not ffi.wasm_importtype_name(None)
        assert not ffi.wasm_importtype_type(None)
        assert not ffi.wasm_exporttype_name(None)
        assert not ffi.wasm_exporttype_type(None)
        assert not ffi.wasm_extern_type(None)
        ffi.wasm_extern_kind(None)
        ffi.wasm_importtype_vec_delete(None)
        ffi.wasm_exporttype_vec_delete(None)

    in_child(run)
