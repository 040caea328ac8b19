"""GC references from Python: structs, arrays and i31s come out of wasm as
AnyRef wrappers, go back in as the same objects, are read, written and
made by the host, survive collections while Python holds them, and every
misuse raises with the library's reason."""

import gc
import subprocess
import sys
from pathlib import Path

import pytest

import cranewasm as w

WAT = """(module
  (type $point (struct (field $x i32) (field $y (mut i32))))
  (type $bytes (array (mut i8)))
  (type $node (struct (field $next (ref null $node)) (field $v i32)))
  (type $strict (struct (field $p (ref $point)) (field f32) (field (mut f64)) (field i64) (field (mut i16))))
  (type $points (array (mut (ref $point))))
  (type $floats (array (mut f32)))
  (type $funcs (array (ref func)))
  (table $pts (export "points") 2 (ref null $point))
  (global $kept (export "kept") (mut anyref) (ref.null any))
  (table $t (export "table") 4 anyref)
  (func (export "make") (param i32 i32) (result (ref $point))
    (struct.new $point (local.get 0) (local.get 1)))
  (func (export "sum") (param (ref null $point)) (result i32)
    (i32.add (struct.get $point $x (local.get 0)) (struct.get $point $y (local.get 0))))
  (func (export "kind") (param anyref) (result i32)
    (if (result i32) (ref.is_null (local.get 0)) (then (i32.const 0))
      (else (if (result i32) (ref.test (ref i31) (local.get 0)) (then (i32.const 1))
        (else (if (result i32) (ref.test (ref struct) (local.get 0)) (then (i32.const 2))
          (else (if (result i32) (ref.test (ref array) (local.get 0)) (then (i32.const 3))
            (else (i32.const 4))))))))))
  (func (export "eq") (param eqref eqref) (result i32) (ref.eq (local.get 0) (local.get 1)))
  (func (export "i31") (param i32) (result i31ref) (ref.i31 (local.get 0)))
  (func (export "i31_get") (param (ref i31)) (result i32) (i31.get_s (local.get 0)))
  (func (export "keep") (param anyref) (global.set $kept (local.get 0)))
  (func (export "kept_ref") (result anyref) (global.get $kept))
  (func (export "bytes") (param i32) (result (ref $bytes))
    (array.new $bytes (i32.const -3) (local.get 0)))
  (func (export "byte_sum") (param (ref $bytes)) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (array.len (local.get 0))))
      (local.set $s (i32.add (local.get $s) (array.get_s $bytes (local.get 0) (local.get $i))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $s))
  (func (export "strict_sum") (param (ref $strict)) (result f64)
    (f64.add (f64.add (f64.promote_f32 (struct.get $strict 1 (local.get 0))) (struct.get $strict 2 (local.get 0)))
      (f64.add (f64.convert_i64_s (struct.get $strict 3 (local.get 0)))
        (f64.convert_i32_s (struct.get_s $strict 4 (local.get 0))))))
  (func (export "strict_point") (param (ref $strict)) (result (ref $point)) (struct.get $strict $p (local.get 0)))
  (func (export "points_sum") (param (ref $points)) (result i32)
    (local $i i32) (local $s i32)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (array.len (local.get 0))))
      (local.set $s (i32.add (local.get $s)
        (struct.get $point $x (array.get $points (local.get 0) (local.get $i)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $s))
  (func (export "internalize") (param externref) (result anyref) (any.convert_extern (local.get 0)))
  (func (export "kept_extern") (result externref) (extern.convert_any (global.get $kept)))
  (func (export "externalize") (param anyref) (result externref) (extern.convert_any (local.get 0)))
  (func (export "churn") (param $times i32)
    (local $l (ref null $node)) (local $i i32)
    (loop $again
      (local.set $l (ref.null $node)) (local.set $i (i32.const 1000))
      (loop $add
        (local.set $l (struct.new $node (local.get $l) (local.get $i)))
        (br_if $add (local.tee $i (i32.sub (local.get $i) (i32.const 1)))))
      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))))"""

# Type indices in WAT's type section.
POINT, BYTES, NODE, STRICT, POINTS, FLOATS, FUNCS = range(7)


@pytest.fixture
def module(engine):
    return w.Module(engine, WAT)


@pytest.fixture
def ex(store, module):
    return w.Instance(store, module).exports


def test_struct_result_read_write_and_pass_back(ex, module):
    p = ex.make(30, 12)
    assert isinstance(p, w.StructRef) and isinstance(p, w.AnyRef)
    assert len(p) == 2 and p[0] == 30 and p[1] == 12 and list(p) == [30, 12]
    assert p[-1] == 12 and p[-2] == 30
    assert p.field_type(0) == w.FieldType(w.ValType.i32(), 0, False)
    assert p.field_type(-1).mutable
    assert p.type_index(module) == POINT
    assert ex.sum(p) == 42 and ex.kind(p) == 2
    p[1] = 100
    assert p[1] == 100 and ex.sum(p) == 130  # wasm sees the host's write
    p[-1] = 2**32 - 1  # as i32.const accepts it: -1
    assert p[1] == -1
    assert repr(p) == "StructRef(2 fields)"


def test_immutable_field_and_wrong_values(ex):
    p = ex.make(1, 2)
    with pytest.raises(w.WasmError, match="field 0 of the struct is immutable"):
        p[0] = 5
    assert p[0] == 1
    with pytest.raises(TypeError, match="cannot pass 1.5 as i32"):
        p[1] = 1.5
    with pytest.raises(TypeError):
        p[1] = None
    assert p[1] == 2


def test_indices_out_of_range(ex):
    # IndexError, before the library is asked (Python's negative indices
    # count from the end).
    p = ex.make(1, 2)
    for bad in (2, -3, 10**12):
        with pytest.raises(IndexError, match="field index"):
            p[bad]
        with pytest.raises(IndexError):
            p[bad] = 1
    b = ex.bytes(4)
    for bad in (4, -5):
        with pytest.raises(IndexError, match="element index"):
            b[bad]
        with pytest.raises(IndexError):
            b[bad] = 0
    with pytest.raises(TypeError, match="indices are ints"):
        b["0"]
    with pytest.raises(TypeError):
        p[True]
    with pytest.raises(TypeError):
        b[0:2]


def test_packed_i8_array_signed_and_unsigned(ex, module):
    b = ex.bytes(5)
    assert isinstance(b, w.ArrayRef) and len(b) == 5 and b.type_index(module) == BYTES
    assert b.elem_type() == w.FieldType(w.ValType.i32(), 8, True)
    assert b[0] == 253 and b.get(0) == 253 and b.get(0, signed=True) == -3
    assert list(b) == [253] * 5
    b[1] = 0x105  # the low 8 bits: 5
    b[-1] = -1
    assert b[1] == 5 and b[4] == 255 and b.get(-1, signed=True) == -1
    assert ex.byte_sum(b) == -3 * 3 + 5 - 1
    assert repr(b) == "ArrayRef(5 elements)"


def test_host_made_structs_and_arrays_go_to_wasm(store, module, ex):
    p = w.StructRef.new(store, module, POINT, [5, 6])
    assert ex.sum(p) == 11 and p.type_index(module) == POINT
    d = w.StructRef.new(store, module, POINT)
    assert list(d) == [0, 0] and ex.sum(d) == 0
    b = w.ArrayRef.new(store, module, BYTES, 10, -1)
    assert len(b) == 10 and b[3] == 255 and b.get(3, signed=True) == -1
    b[0] = 5
    assert ex.byte_sum(b) == 5 - 9
    z = w.ArrayRef.new(store, module, BYTES, 3)
    assert list(z) == [0, 0, 0] and ex.byte_sum(z) == 0
    fl = w.ArrayRef.new(store, module, FLOATS, 2, 1.5)
    fl[1] = 2  # an int for an f32 element
    assert list(fl) == [1.5, 2.0]
    assert fl.elem_type().valtype == w.ValType.f32()
    # A struct type with a non-null reference field has no default: its
    # fields' types are learned from a first struct, so floats of either
    # width and a packed i16 land right.
    s = w.StructRef.new(store, module, STRICT, [p, 1.5, 2.25, -7, 0x1FFFE])
    assert s[0] == p and s[1] == 1.5 and s[2] == 2.25 and s[3] == -7
    assert s[4] == 0xFFFE and s.get(4, signed=True) == -2
    assert ex.strict_sum(s) == 1.5 + 2.25 - 7 - 2
    assert ex.strict_point(s) == p
    again = w.StructRef.new(store, module, STRICT, [d, 0.5, 0, 1, 2])
    assert ex.strict_sum(again) == 3.5 and again[0] == d
    # An array of non-null references: its element kind is the init's.
    arr = w.ArrayRef.new(store, module, POINTS, 3, p)
    assert all(x == p for x in arr)
    arr[1] = d
    assert ex.points_sum(arr) == 5 + 0 + 5
    assert [e.field_type(0) for e in (arr[0],)] == [w.FieldType(w.ValType.i32(), 0, False)]


def test_host_made_refused_with_reasons(store, module, engine):
    with pytest.raises(w.WasmError, match="not a struct type"):
        w.StructRef.new(store, module, BYTES)
    with pytest.raises(w.WasmError, match="not an array type"):
        w.ArrayRef.new(store, module, POINT, 1, 0)
    with pytest.raises(w.WasmError):
        w.ArrayRef.new(store, module, POINT, 1)
    with pytest.raises(TypeError, match="2 fields; 1 values"):
        w.StructRef.new(store, module, POINT, [1])
    with pytest.raises(w.WasmError, match="no default|not a value"):
        w.StructRef.new(store, module, STRICT)
    with pytest.raises(w.WasmError):
        w.StructRef.new(store, module, STRICT, [None, 1.0, 2.0, 3, 4])  # a null for (ref $point)
    with pytest.raises(w.WasmError):
        w.ArrayRef.new(store, module, POINTS, 2)  # no default for (ref $point)
    with pytest.raises(w.WasmError):
        w.ArrayRef.new(store, module, BYTES, 2**32 - 1)  # more than the heap holds
    with pytest.raises(ValueError):
        w.ArrayRef.new(store, module, BYTES, -1)
    with pytest.raises(TypeError):
        w.StructRef.new(store, "module", POINT)
    with pytest.raises(TypeError):
        w.StructRef.new(store, module, -1)
    with pytest.raises(w.WasmError, match="no type of that module"):
        w.I31.new(store, 1).type_index(module)
    other = w.Module(engine, "(module (type (struct (field i64))))")
    with pytest.raises(w.WasmError):
        w.StructRef.new(store, module, POINT, [1, 2]).type_index(other)


def test_i31_round_trip(store, ex):
    i = w.I31.new(store, -7)
    assert isinstance(i, w.I31) and i.value == -7 and i.unsigned == 0x7FFFFFF9
    assert ex.i31_get(i) == -7 and ex.kind(i) == 1
    r = ex.i31(1234)
    assert isinstance(r, w.I31) and r.value == 1234 and r == w.I31.new(store, 1234)
    assert ex.i31(-1).value == -1 and ex.i31(-1).unsigned == 2**31 - 1
    assert w.I31.new(store, 2**31 - 1).value == -1  # an unsigned 31-bit value
    assert repr(i) == "I31(-7)"
    with pytest.raises(ValueError):
        w.I31.new(store, 2**31)
    with pytest.raises(ValueError):
        w.I31.new(store, -(2**30) - 1)
    with pytest.raises(TypeError):
        w.I31.new(store, 1.0)
    with pytest.raises(TypeError):
        w.I31.new("store", 1)


def test_equality_is_ref_eq(ex):
    p = ex.make(1, 2)
    q = ex.make(1, 2)
    assert p != q and not ex.eq(p, q)  # equal fields, two objects
    ex.keep(p)
    k1, k2 = ex.kept_ref(), ex.kept_ref()
    assert k1 is not k2 and k1 == k2 and k1 == p and ex.eq(k1, k2) == 1
    assert p != "p" and p != 1
    with pytest.raises(TypeError):
        hash(p)
    with pytest.raises(TypeError):
        {p}


def test_anyref_global_and_table(store, ex):
    p = ex.make(3, 4)
    g = ex.kept
    assert g.value is None
    g.value = p
    assert g.value == p and ex.kept_ref() == p
    i = w.I31.new(store, -5)
    g.value = i
    assert g.value == i and g.value.value == -5
    g.value = None
    assert ex.kept_ref() is None
    t = ex.table
    t[0] = i
    t[1] = p
    assert t[0].value == -5 and t[1] == p and t[2] is None
    assert ex.sum(t[1]) == 7
    t[1] = None
    assert t[1] is None
    with pytest.raises(IndexError):
        t[4] = p
    # A table of a concrete type: its elements have the funcref kind code.
    pts = ex.points
    pts[0] = p
    assert pts[0] == p and pts[1] is None and ex.sum(pts[0]) == 7


def test_function_references_in_arrays(store, module, ex):
    fns = w.ArrayRef.new(store, module, FUNCS, 2, ex.make)
    assert fns.elem_type() == w.FieldType(w.ValType.funcref(), 0, False)
    made = fns[1](5, 6)
    assert isinstance(fns[0], w.Func) and made[1] == 6 and ex.sum(made) == 11


def test_host_data_made_internal(store, ex):
    # any.convert_extern of a Python object: a plain AnyRef, which calls,
    # globals and tables take, and which converts back to that same object.
    token = object()
    h = ex.internalize(token)
    assert type(h) is w.AnyRef and repr(h) == "AnyRef()"
    ex.kept.value = h
    assert ex.kept.value == h and ex.kept_ref() == h
    assert ex.kept_extern() is token
    ex.table[3] = h
    assert ex.table[3] == h
    assert ex.externalize(h) is token
    assert ex.internalize(None) is None


def test_gc_reference_through_an_externref_stays_one_wrapper(store):
    # An AnyRef where an externref goes is an opaque pointer to wasm; it
    # comes back as that same wrapper (not adopted a second time).
    m = w.Module(store.engine, '(module (func (export "id") (param externref) (result externref) local.get 0))')
    p = w.I31.new(store, 9)
    assert w.Instance(store, m).exports.id(p) is p
    assert p.value == 9


def test_held_refs_survive_collections(ex):
    held = [ex.make(i, 7 * i) for i in range(50)]
    # 2,000 lists of 1,000 nodes (16 bytes each): 32 MB of garbage, many
    # collections that move the held structs.
    for _ in range(20):
        ex.churn(100)
    for i, p in enumerate(held):
        assert p[0] == i and p[1] == 7 * i
        assert ex.sum(p) == 8 * i
    # Results dropped as they come: nothing accumulates.
    for i in range(5000):
        assert ex.make(i, 1)[0] == i
    gc.collect()
    assert held[49][1] == 343


def test_use_after_close(engine, module):
    store = w.Store(engine)
    ex = w.Instance(store, module).exports
    p, b, i, h = ex.make(1, 2), ex.bytes(2), w.I31.new(store, 3), ex.internalize("x")
    store.close()
    for call in (lambda: p[0], lambda: len(b), lambda: i.value, lambda: p.__setitem__(1, 3), lambda: p == i,
                 lambda: w.I31.new(store, 1), lambda: p.type_index(module)):
        with pytest.raises(w.StoreClosed):
            call()
    assert repr(p) == "StructRef(<store closed>)" and repr(i) == "I31(<store closed>)"
    assert repr(b) == "ArrayRef(<store closed>)" and repr(h) == "AnyRef(<store closed>)"
    with pytest.raises(w.StoreClosed):
        w.Table(store, w.TableType(w.ValType.externref(), 1), p)
    del p, b, i, h
    gc.collect()  # the store freed the objects: the wrappers free nothing


def test_another_stores_ref_is_refused(engine, module, ex, store):
    other = w.Store(engine)
    p2 = w.Instance(other, module).exports.make(1, 1)
    with pytest.raises(TypeError, match="belongs to another store"):
        ex.sum(p2)
    with pytest.raises(TypeError, match="belongs to another store"):
        ex.kept.value = w.I31.new(other, 1)
    with pytest.raises(TypeError, match="belongs to another store"):
        w.StructRef.new(store, module, STRICT, [p2, 1.0, 2.0, 3, 4])
    p = ex.make(1, 1)
    with pytest.raises(TypeError, match="belongs to another store"):
        w.ArrayRef.new(other, module, POINTS, 1, p)
    other.close()
    with pytest.raises(w.StoreClosed):
        p2[0]
    with pytest.raises(TypeError, match="belongs to another store"):
        ex.sum(p2)


def test_readme_example_runs():
    readme = (Path(__file__).resolve().parents[2] / "python" / "README.md").read_text()
    section = readme[readme.index("## GC references"):]
    code = section[section.index("```python\n") + 10:section.index("\n```", section.index("```python"))]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("2 3 4\n13\nFieldType(valtype=ValType.i32(), packed=0, mutable=False)\n"
                          "255 -1 [255, 255, 255, 255]\n-1\n3 False False\n")
