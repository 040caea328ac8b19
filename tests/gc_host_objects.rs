//! Struct and array objects made and read by the host (issue 40):
//! `StructRef` and `ArrayRef` with types from a module's type section,
//! passed to wasm and read back, packed fields, arrays of references, and
//! the errors for wrong stores, types, indices and immutable fields.

use cranewasm::*;

const WAT: &str = r#"(module
  (type $point (struct (field $x (mut i32)) (field $y (mut i64)) (field $tag i8)))
  (type $packed (struct (field $b (mut i8)) (field $h (mut i16)) (field $f (mut f64))))
  (type $bytes (array (mut i8)))
  (type $points (array (mut (ref null $point))))
  (type $frozen (array i32))
  (type $cell (struct (field $any (mut anyref)) (field $ext (mut externref))))
  (type $fn (func))
  (func (export "sum") (param $p (ref $point)) (result i64)
    (i64.add (i64.extend_i32_s (struct.get $point $x (local.get $p))) (struct.get $point $y (local.get $p))))
  (func (export "bump") (param $p (ref $point))
    (struct.set $point $x (local.get $p) (i32.add (struct.get $point $x (local.get $p)) (i32.const 1))))
  (func (export "make") (param i32) (result (ref $point))
    (struct.new $point (local.get 0) (i64.const 7) (i32.const 0x1ff)))
  (func (export "sum_points") (param $a (ref $points)) (result i64)
    (local $i i32) (local $s i64)
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
      (local.set $s (i64.add (local.get $s)
        (i64.extend_i32_s (struct.get $point $x (array.get $points (local.get $a) (local.get $i))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))
    (local.get $s))
  (func (export "null_at") (param $a (ref $points)) (param $i i32) (result i32)
    (ref.is_null (array.get $points (local.get $a) (local.get $i))))
  (func (export "byte_s") (param $a (ref $bytes)) (param $i i32) (result i32)
    (array.get_s $bytes (local.get $a) (local.get $i)))
  (func (export "set_byte") (param $a (ref $bytes)) (param $i i32) (param $v i32)
    (array.set $bytes (local.get $a) (local.get $i) (local.get $v)))
  (func (export "new_bytes") (param $n i32) (result (ref $bytes))
    (array.new $bytes (i32.const 0xfe) (local.get $n))))"#;

/// The module's type indices.
const POINT: u32 = 0;
const PACKED: u32 = 1;
const BYTES: u32 = 2;
const POINTS: u32 = 3;
const FROZEN: u32 = 4;
const CELL: u32 = 5;
const FN: u32 = 6;

fn setup() -> (Store<()>, Module, Instance) {
    let mut store = Store::<()>::default();
    let module = Module::new(store.engine(), WAT).unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    (store, module, instance)
}

fn call(store: &mut Store<()>, i: &Instance, name: &str, args: &[Val], results: usize) -> Vec<Val> {
    let f = i.get_func(&*store, name).unwrap();
    let mut out = vec![Val::I32(0); results];
    f.call(&mut *store, args, &mut out).unwrap();
    out
}

fn usage(e: Error) -> String {
    match e {
        Error::Usage(m) => m,
        e => panic!("expected a usage error, got {e:?}"),
    }
}

#[test]
fn a_host_struct_goes_to_wasm_which_reads_and_writes_it() {
    let (mut store, module, i) = setup();
    let p = StructRef::new(&mut store, &module, POINT, &[Val::I32(40), Val::I64(2), Val::I32(0x181)]).unwrap();
    assert_eq!(p.field_count(&store).unwrap(), 3);
    assert_eq!(call(&mut store, &i, "sum", &[p.into()], 1)[0].i64(), Some(42));
    call(&mut store, &i, "bump", &[p.into()], 0);
    assert_eq!(p.field(&store, 0).unwrap().i32(), Some(41));
    assert_eq!(call(&mut store, &i, "sum", &[p.into()], 1)[0].i64(), Some(43));
    // The host's writes are what wasm reads.
    p.set_field(&mut store, 1, Val::I64(-41)).unwrap();
    assert_eq!(call(&mut store, &i, "sum", &[p.into()], 1)[0].i64(), Some(0));
    // A packed field keeps its low 8 bits and reads zero-extended.
    assert_eq!(p.field(&store, 2).unwrap().i32(), Some(0x81));
}

#[test]
fn a_struct_wasm_made_is_read_by_the_host() {
    let (mut store, _module, i) = setup();
    let out = call(&mut store, &i, "make", &[Val::I32(-5)], 1);
    let any = out[0].anyref().unwrap().unwrap();
    assert!(any.as_array().is_none());
    let s = any.as_struct().expect("a struct");
    assert_eq!(s.field(&store, 0).unwrap().i32(), Some(-5));
    assert_eq!(s.field(&store, 1).unwrap().i64(), Some(7));
    assert_eq!(s.field(&store, 2).unwrap().i32(), Some(0xff));
    s.set_field(&mut store, 0, Val::I32(10)).unwrap();
    assert_eq!(call(&mut store, &i, "sum", &[s.into()], 1)[0].i64(), Some(17));
}

#[test]
fn packed_fields_and_floats_round_trip() {
    let (mut store, module, _i) = setup();
    let s = StructRef::new(&mut store, &module, PACKED, &[Val::I32(-1), Val::I32(0x12345), Val::f64(1.5)]).unwrap();
    assert_eq!(s.field(&store, 0).unwrap().i32(), Some(0xff));
    assert_eq!(s.field(&store, 1).unwrap().i32(), Some(0x2345));
    assert_eq!(s.field(&store, 2).unwrap().f64_value(), Some(1.5));
    s.set_field(&mut store, 1, Val::I32(-2)).unwrap();
    assert_eq!(s.field(&store, 1).unwrap().i32(), Some(0xfffe));
    // A packed field takes an I32 only.
    assert!(usage(s.set_field(&mut store, 0, Val::I64(1)).unwrap_err()).contains("not a value"));
}

#[test]
fn byte_arrays_between_host_and_wasm() {
    let (mut store, module, i) = setup();
    let a = ArrayRef::new(&mut store, &module, BYTES, Val::I32(0x80), 5).unwrap();
    assert_eq!(a.len(&store).unwrap(), 5);
    assert_eq!(a.get(&store, 4).unwrap().i32(), Some(0x80));
    // Wasm sign-extends what the host reads zero-extended.
    assert_eq!(call(&mut store, &i, "byte_s", &[a.into(), Val::I32(4)], 1)[0].i32(), Some(-128));
    call(&mut store, &i, "set_byte", &[a.into(), Val::I32(2), Val::I32(0x17)], 0);
    assert_eq!(a.get(&store, 2).unwrap().i32(), Some(0x17));
    a.set(&mut store, 0, Val::I32(0x1_01)).unwrap();
    assert_eq!(call(&mut store, &i, "byte_s", &[a.into(), Val::I32(0)], 1)[0].i32(), Some(1));
    let made = call(&mut store, &i, "new_bytes", &[Val::I32(3)], 1)[0].anyref().unwrap().unwrap();
    let made = made.as_array().expect("an array");
    assert!(made.as_object().is_array());
    assert_eq!(made.len(&store).unwrap(), 3);
    assert_eq!(made.get(&store, 1).unwrap().i32(), Some(0xfe));
}

#[test]
fn arrays_of_references_hold_host_structs() {
    let (mut store, module, i) = setup();
    let ps: Vec<Val> = (1..=4)
        .map(|x| StructRef::new(&mut store, &module, POINT, &[Val::I32(x), Val::I64(0), Val::I32(0)]).unwrap().into())
        .collect();
    let a = ArrayRef::new_fixed(&mut store, &module, POINTS, &ps).unwrap();
    assert_eq!(a.len(&store).unwrap(), 4);
    assert_eq!(call(&mut store, &i, "sum_points", &[a.into()], 1)[0].i64(), Some(10));
    // Element 3 read back is the same object: a write through it shows.
    let third = a.get(&store, 3).unwrap().anyref().unwrap().unwrap().as_struct().unwrap();
    third.set_field(&mut store, 0, Val::I32(100)).unwrap();
    assert_eq!(call(&mut store, &i, "sum_points", &[a.into()], 1)[0].i64(), Some(106));
    // Nulls, as either null a concrete type's field reads and takes.
    a.set(&mut store, 0, Val::AnyRef(None)).unwrap();
    assert!(matches!(a.get(&store, 0).unwrap(), Val::AnyRef(None)));
    a.set(&mut store, 1, Val::FuncRef(None)).unwrap();
    for (at, null) in [(0, 1), (1, 1), (2, 0)] {
        assert_eq!(call(&mut store, &i, "null_at", &[a.into(), Val::I32(at)], 1)[0].i32(), Some(null));
    }
    let filled = ArrayRef::new(&mut store, &module, POINTS, Val::AnyRef(None), 2).unwrap();
    assert!(matches!(filled.get(&store, 1).unwrap(), Val::AnyRef(None)));
    // Another type's object, an i31, a byte array: not points.
    let bytes = ArrayRef::new(&mut store, &module, BYTES, Val::I32(0), 1).unwrap();
    for wrong in [Val::from(bytes), Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_i32(1)))), Val::I32(0)] {
        assert!(usage(a.set(&mut store, 0, wrong).unwrap_err()).contains("not a value"));
    }
}

#[test]
fn anyref_and_externref_fields_keep_host_data_i31s_and_objects() {
    let (mut store, module, _i) = setup();
    let host = ExternRef::new(&mut store, 99u32);
    let data = AnyRef::convert_extern(host);
    let s = StructRef::new(&mut store, &module, CELL, &[Val::AnyRef(Some(data)), Val::ExternRef(Some(host))]).unwrap();
    let any = s.field(&store, 0).unwrap().anyref().unwrap().unwrap();
    let back = ExternRef::convert_any(any);
    assert_eq!(back.data(&store).downcast_ref::<u32>(), Some(&99));
    let ext = s.field(&store, 1).unwrap().externref().unwrap().unwrap();
    assert_eq!(ext.data(&store).downcast_ref::<u32>(), Some(&99));
    s.set_field(&mut store, 0, Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_i32(-3))))).unwrap();
    let i31 = s.field(&store, 0).unwrap().anyref().unwrap().unwrap().as_i31().unwrap();
    assert_eq!(i31.get_i32(), -3);
    s.set_field(&mut store, 0, s.into()).unwrap();
    let me = s.field(&store, 0).unwrap().anyref().unwrap().unwrap().as_struct().unwrap();
    assert_eq!(me.field_count(&store).unwrap(), 2);
}

#[test]
fn wrong_types_counts_and_kinds_are_errors() {
    let (mut store, module, _i) = setup();
    let e = StructRef::new(&mut store, &module, POINT, &[Val::I32(1)]).unwrap_err();
    assert!(usage(e).contains("3 fields; 1 values"));
    let e = StructRef::new(&mut store, &module, POINT, &[Val::I64(1), Val::I64(2), Val::I32(3)]).unwrap_err();
    assert!(usage(e).contains("field 0"));
    assert!(usage(StructRef::new(&mut store, &module, BYTES, &[]).unwrap_err()).contains("not a struct type"));
    assert!(usage(StructRef::new(&mut store, &module, FN, &[]).unwrap_err()).contains("not a struct type"));
    assert!(usage(StructRef::new(&mut store, &module, 99, &[]).unwrap_err()).contains("no type 99"));
    assert!(usage(ArrayRef::new(&mut store, &module, POINT, Val::I32(0), 1).unwrap_err()).contains("not an array"));
    assert!(usage(ArrayRef::new(&mut store, &module, BYTES, Val::F32(0), 1).unwrap_err()).contains("element 0"));
    let e = ArrayRef::new_fixed(&mut store, &module, BYTES, &[Val::I32(1), Val::I64(2)]).unwrap_err();
    assert!(usage(e).contains("element 1"));
    // A module of another engine.
    let other = Module::new(&Engine::default(), WAT).unwrap();
    assert!(matches!(StructRef::new(&mut store, &other, PACKED, &[]), Err(Error::WrongEngine)));
}

#[test]
fn out_of_bounds_and_immutable_are_errors() {
    let (mut store, module, _i) = setup();
    let p = StructRef::new(&mut store, &module, POINT, &[Val::I32(1), Val::I64(2), Val::I32(3)]).unwrap();
    assert!(usage(p.field(&store, 3).unwrap_err()).contains("past the struct's 3 fields"));
    assert!(usage(p.set_field(&mut store, 3, Val::I32(0)).unwrap_err()).contains("past"));
    assert!(usage(p.set_field(&mut store, 2, Val::I32(0)).unwrap_err()).contains("immutable"));
    assert_eq!(p.field(&store, 2).unwrap().i32(), Some(3));
    let a = ArrayRef::new_fixed(&mut store, &module, FROZEN, &[Val::I32(7), Val::I32(8)]).unwrap();
    assert_eq!(a.get(&store, 1).unwrap().i32(), Some(8));
    assert!(usage(a.get(&store, 2).unwrap_err()).contains("out of bounds"));
    assert!(usage(a.set(&mut store, 0, Val::I32(1)).unwrap_err()).contains("immutable"));
    assert!(usage(a.set(&mut store, u32::MAX, Val::I32(1)).unwrap_err()).contains("out of bounds"));
    let empty = ArrayRef::new_fixed(&mut store, &module, BYTES, &[]).unwrap();
    assert_eq!(empty.len(&store).unwrap(), 0);
    assert!(usage(empty.get(&store, 0).unwrap_err()).contains("out of bounds"));
}

#[test]
fn a_handle_of_another_store_is_refused() {
    let (mut store, module, _i) = setup();
    let mut other = Store::new(store.engine(), ());
    let p = StructRef::new(&mut store, &module, POINT, &[Val::I32(1), Val::I64(2), Val::I32(3)]).unwrap();
    assert!(matches!(p.field(&other, 0), Err(Error::WrongStore)));
    assert!(matches!(p.set_field(&mut other, 0, Val::I32(0)), Err(Error::WrongStore)));
    assert!(matches!(p.field_count(&other), Err(Error::WrongStore)));
    // Nor may another store's object go into a field.
    let a = ArrayRef::new(&mut other, &module, POINTS, Val::AnyRef(None), 1).unwrap();
    assert!(matches!(a.set(&mut other, 0, p.into()), Err(Error::WrongStore)));
    assert!(matches!(ArrayRef::new(&mut other, &module, POINTS, p.into(), 1), Err(Error::WrongStore)));
    assert!(matches!(a.len(&store), Err(Error::WrongStore)));
}

#[test]
fn a_root_scope_frees_the_handles_made_in_it() {
    let (mut store, module, _i) = setup();
    let kept = StructRef::new(&mut store, &module, POINT, &[Val::I32(1), Val::I64(2), Val::I32(3)]).unwrap();
    let (inner, read) = {
        let mut scope = RootScope::new(&mut store);
        let inner = ArrayRef::new(&mut scope, &module, BYTES, Val::I32(9), 2).unwrap();
        let read = kept.field(&scope, 0).unwrap();
        assert_eq!(inner.get(&scope, 1).unwrap().i32(), Some(9));
        (inner, read)
    };
    assert_eq!(read.i32(), Some(1));
    let e = inner.len(&store).unwrap_err();
    assert!(matches!(&e, Error::Resource(m) if m.contains("after its root scope")), "{e:?}");
    assert!(inner.get(&store, 0).is_err());
    // A handle made before the scope outlives it; one made after the
    // scope in the freed slot's place is not taken for the old one.
    let again = ArrayRef::new(&mut store, &module, BYTES, Val::I32(5), 1).unwrap();
    assert_eq!(kept.field(&store, 0).unwrap().i32(), Some(1));
    assert_eq!(again.get(&store, 0).unwrap().i32(), Some(5));
    assert!(inner.len(&store).is_err());
}

#[test]
fn a_full_heap_is_out_of_memory_and_the_store_goes_on() {
    let (mut store, module, _i) = setup();
    store.set_limiter(StoreLimits::builder().gc_heap_size(1 << 20).build());
    let e = ArrayRef::new(&mut store, &module, BYTES, Val::I32(0), 2 << 20).unwrap_err();
    assert!(e.to_string().contains("out of memory"), "{e}");
    let a = ArrayRef::new(&mut store, &module, BYTES, Val::I32(3), 1000).unwrap();
    assert_eq!(a.get(&store, 999).unwrap().i32(), Some(3));
}

#[test]
fn defaults_and_initialising_immutable_fields() {
    let (mut store, module, i) = setup();
    let p = StructRef::new_default(&mut store, &module, POINT).unwrap();
    assert_eq!(p.field(&store, 0).unwrap().i32(), Some(0));
    assert_eq!(p.field(&store, 1).unwrap().i64(), Some(0));
    // `init_field` writes an immutable field; `set_field` does not.
    assert!(p.set_field(&mut store, 2, Val::I32(5)).is_err());
    p.init_field(&mut store, 2, Val::I32(0x105)).unwrap();
    assert_eq!(p.field(&store, 2).unwrap().i32(), Some(5));
    p.init_field(&mut store, 0, Val::I32(30)).unwrap();
    assert_eq!(call(&mut store, &i, "sum", &[p.into()], 1)[0].i64(), Some(30));
    let a = ArrayRef::new_default(&mut store, &module, POINTS, 3).unwrap();
    assert!(matches!(a.get(&store, 2).unwrap(), Val::AnyRef(None)));
    let f = ArrayRef::new_default(&mut store, &module, FROZEN, 2).unwrap();
    f.init_elem(&mut store, 1, Val::I32(4)).unwrap();
    assert_eq!(f.get(&store, 1).unwrap().i32(), Some(4));
    assert!(usage(f.init_elem(&mut store, 2, Val::I32(4)).unwrap_err()).contains("out of bounds"));
    // A non-nullable reference field has no default.
    let strict =
        Module::new(store.engine(), "(module (type $t (struct)) (type $s (struct (field (ref $t)))))").unwrap();
    assert!(usage(StructRef::new_default(&mut store, &strict, 1).unwrap_err()).contains("field 0"));
    let t = StructRef::new_default(&mut store, &strict, 0).unwrap();
    let s = StructRef::new(&mut store, &strict, 1, &[t.into()]).unwrap();
    assert_eq!(
        s.field(&store, 0).unwrap().anyref().unwrap().unwrap().as_struct().unwrap().field_count(&store).unwrap(),
        0
    );
}

#[test]
fn a_pinned_handle_outlives_its_scope_until_unpinned() {
    let (mut store, module, _i) = setup();
    let pinned = {
        let mut scope = RootScope::new(&mut store);
        let a = ArrayRef::new(&mut scope, &module, BYTES, Val::I32(6), 4).unwrap();
        a.pin(&scope).unwrap()
    };
    assert_eq!(pinned.get(&store, 3).unwrap().i32(), Some(6));
    let other = Store::new(store.engine(), ());
    assert!(!pinned.unpin(&other));
    assert!(pinned.unpin(&store));
    assert!(pinned.len(&store).is_err());
    assert!(!pinned.unpin(&store), "a second unpin finds nothing");
    // A freed pinned root is reused, and the old handle stays refused.
    let s = StructRef::new_default(&mut store, &module, POINT).unwrap().pin(&store).unwrap();
    assert!(pinned.len(&store).is_err());
    assert_eq!(s.field_count(&store).unwrap(), 3);
}

#[test]
fn array_copy_and_element_addresses() {
    let (mut store, module, _i) = setup();
    let a = ArrayRef::new_fixed(&mut store, &module, BYTES, &(0..8).map(Val::I32).collect::<Vec<_>>()).unwrap();
    // Overlapping, forwards: 0..5 to 2..7.
    a.copy(&mut store, 2, &a, 0, 5).unwrap();
    let got: Vec<i32> = (0..8).map(|i| a.get(&store, i).unwrap().i32().unwrap()).collect();
    assert_eq!(got, [0, 1, 0, 1, 2, 3, 4, 7]);
    let b = ArrayRef::new(&mut store, &module, BYTES, Val::I32(9), 2).unwrap();
    a.copy(&mut store, 0, &b, 0, 2).unwrap();
    assert_eq!(a.get(&store, 1).unwrap().i32(), Some(9));
    assert!(usage(a.copy(&mut store, 7, &b, 0, 2).unwrap_err()).contains("out of bounds"));
    assert!(usage(a.copy(&mut store, 0, &b, 1, u32::MAX).unwrap_err()).contains("out of bounds"));
    let frozen = ArrayRef::new_fixed(&mut store, &module, FROZEN, &[Val::I32(1)]).unwrap();
    assert!(usage(a.copy(&mut store, 0, &frozen, 0, 1).unwrap_err()).contains("do not fit"));
    assert!(usage(frozen.copy(&mut store, 0, &frozen, 0, 1).unwrap_err()).contains("immutable"));
    frozen.init_copy(&mut store, 0, &frozen, 0, 1).unwrap();
    // Element addresses: packed bytes in place, until the next allocation.
    let p = a.elem_addr(&store, 3).unwrap();
    // SAFETY: nothing allocates between taking the address and using it.
    unsafe {
        assert_eq!(*p, 1);
        *p = 0x44;
    }
    assert_eq!(a.get(&store, 3).unwrap().i32(), Some(0x44));
    assert_eq!(a.elem_addr(&store, 8).unwrap() as usize - a.elem_addr(&store, 0).unwrap() as usize, 8);
    assert!(a.elem_addr(&store, 9).is_err());
}

#[test]
fn an_object_knows_its_type_in_any_module() {
    let (mut store, module, i) = setup();
    let sub = Module::new(
        store.engine(),
        "(module (type $point (struct (field $x (mut i32)) (field $y (mut i64)) (field $tag i8)))
           (type $base (sub (struct (field i32)))) (type $derived (sub $base (struct (field i32) (field i64)))))",
    )
    .unwrap();
    let p = StructRef::new_default(&mut store, &module, POINT).unwrap().as_object();
    assert!(p.is_instance_of(&store, &module, POINT).unwrap());
    assert!(!p.is_instance_of(&store, &module, PACKED).unwrap());
    assert!(!p.is_instance_of(&store, &module, 99).unwrap());
    // The same type declared by another module.
    assert!(p.is_instance_of(&store, &sub, 0).unwrap());
    assert_eq!(p.type_index_in(&store, &sub).unwrap(), Some(0));
    assert_eq!(p.type_index_in(&store, &module).unwrap(), Some(POINT));
    // Declared subtyping.
    let d = StructRef::new(&mut store, &sub, 2, &[Val::I32(1), Val::I64(2)]).unwrap().as_object();
    assert!(d.is_instance_of(&store, &sub, 1).unwrap() && d.is_instance_of(&store, &sub, 2).unwrap());
    assert_eq!(d.type_index_in(&store, &sub).unwrap(), Some(2));
    assert_eq!(d.type_index_in(&store, &module).unwrap(), None);
    let made = call(&mut store, &i, "new_bytes", &[Val::I32(1)], 1)[0].anyref().unwrap().unwrap();
    assert!(made.as_object().unwrap().is_instance_of(&store, &module, BYTES).unwrap());
    let other = Store::new(store.engine(), ());
    assert!(matches!(p.is_instance_of(&other, &module, POINT), Err(Error::WrongStore)));
}

#[test]
fn the_eq_view_holds_i31s_structs_and_arrays_only() {
    let (mut store, module, i) = setup();
    let s = StructRef::new_default(&mut store, &module, POINT).unwrap();
    let e = EqRef::from(s);
    assert_eq!(e.as_struct(), Some(s));
    assert!(e.as_array().is_none() && e.as_i31().is_none());
    assert_eq!(call(&mut store, &i, "sum", &[e.into()], 1)[0].i64(), Some(0));
    let a = ArrayRef::new_default(&mut store, &module, BYTES, 1).unwrap();
    assert_eq!(AnyRef::from(EqRef::from(a)).as_eq().unwrap().as_array(), Some(a));
    assert_eq!(EqRef::from(I31::wrapping_i32(-1)).as_i31().unwrap().get_i32(), -1);
    let host = AnyRef::convert_extern(ExternRef::new(&mut store, ()));
    assert!(host.as_eq().is_none());
}

#[test]
fn a_host_function_reads_and_makes_objects_and_its_handles_end_with_it() {
    use std::sync::{Arc, Mutex};
    let mut store = Store::<()>::default();
    let wat = r#"(module
      (type $point (struct (field $x (mut i32)) (field $y (mut i64)) (field $tag i8)))
      (import "host" "next" (func $next (param anyref) (result anyref)))
      (func (export "run") (param i32) (result i64)
        (local $p (ref $point))
        (local.set $p (ref.cast (ref $point)
          (call $next (struct.new $point (local.get 0) (i64.const 0) (i32.const 0)))))
        (i64.add (i64.extend_i32_s (struct.get $point $x (local.get $p))) (struct.get $point $y (local.get $p)))))"#;
    let module = Module::new(store.engine(), wat).unwrap();
    let kept: Arc<Mutex<Vec<StructRef>>> = Arc::default();
    let (m, k) = (module.clone(), kept.clone());
    let ty = FuncType::new([ValType::ANYREF], [ValType::ANYREF]);
    let next = Func::new(&mut store, ty, move |mut caller, params, results| {
        let given = params[0].anyref().unwrap().unwrap().as_struct().unwrap();
        let x = given.field(&caller, 0).unwrap().i32().unwrap();
        let made = StructRef::new(&mut caller, &m, 0, &[Val::I32(x * 2), Val::I64(1), Val::I32(0)]).unwrap();
        // One handle left to die with the call, one pinned to outlive it.
        k.lock().unwrap().extend([given, made.pin(&caller).unwrap()]);
        results[0] = made.into();
        Ok(())
    });
    let instance = Instance::new(&mut store, &module, &[next.into()]).unwrap();
    let run = instance.get_func(&store, "run").unwrap();
    let mut out = [Val::I64(0)];
    run.call(&mut store, &[Val::I32(20)], &mut out).unwrap();
    assert_eq!(out[0].i64(), Some(41));
    let kept = kept.lock().unwrap();
    assert!(kept[0].field(&store, 0).is_err(), "the argument's handle ended with the host call");
    assert_eq!(kept[1].field(&store, 0).unwrap().i32(), Some(40), "the pinned one did not");
}

/// Host-made objects across 50+ collections: field chains, pinned arrays and
/// element addresses stay right while their objects move.
#[test]
fn host_objects_survive_and_move() {
    let mut store = Store::<()>::default();
    let module = Module::new(
        store.engine(),
        r#"(module
      (type $point (struct (field $x (mut i32)) (field $next (mut (ref null $point)))))
      (type $points (array (mut (ref null $point))))
      (type $bytes (array (mut i8)))
      (func (export "sum") (param $a (ref $points)) (result i32)
        (local $i i32) (local $s i32)
        (block $done (loop $l
          (br_if $done (i32.ge_u (local.get $i) (array.len (local.get $a))))
          (local.set $s (i32.add (local.get $s) (struct.get $point $x (array.get $points (local.get $a) (local.get $i)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br $l)))
        (local.get $s))
      (func (export "garbage") (param $n i32)
        (block $done (loop $l
          (br_if $done (i32.eqz (local.get $n)))
          (drop (array.new_default $bytes (i32.const 100)))
          (local.set $n (i32.sub (local.get $n) (i32.const 1)))
          (br $l)))))"#,
    )
    .unwrap();
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let garbage = instance.get_func(&store, "garbage").unwrap();
    let sum = instance.get_func(&store, "sum").unwrap();
    let before = store.gc_stats().collections;
    let mut pts = Vec::new();
    for x in 0..50 {
        garbage.call(&mut store, &[Val::I32(10)], &mut []).unwrap();
        let p = StructRef::new(&mut store, &module, 0, &[Val::I32(x), Val::AnyRef(None)]).unwrap();
        if let Some(prev) = pts.last() {
            p.set_field(&mut store, 1, Val::from(*prev)).unwrap();
        }
        pts.push(p);
        store.gc();
    }
    let vals: Vec<Val> = pts.iter().map(|p| Val::from(*p)).collect();
    let a = ArrayRef::new_fixed(&mut store, &module, 1, &vals).unwrap();
    let pinned = a.pin(&store).unwrap();
    store.gc();
    garbage.call(&mut store, &[Val::I32(100)], &mut []).unwrap();
    let mut out = [Val::I32(0)];
    sum.call(&mut store, &[pinned.into()], &mut out).unwrap();
    assert_eq!(out[0].i32(), Some((0..50).sum()));
    // The chain through `next` fields survived the moves.
    let mut p = pts[49];
    for x in (0..49).rev() {
        p = p.field(&store, 1).unwrap().anyref().unwrap().unwrap().as_struct().unwrap();
        assert_eq!(p.field(&store, 0).unwrap().i32(), Some(x));
    }
    let b = ArrayRef::new(&mut store, &module, 2, Val::I32(3), 10).unwrap();
    store.gc();
    let addr = b.elem_addr(&store, 9).unwrap();
    assert_eq!(unsafe { *addr }, 3);
    assert!(store.gc_stats().collections > before + 50, "{:?}", store.gc_stats());
    assert!(pinned.unpin(&store));
    store.gc();
    assert_eq!(a.len(&store).unwrap(), 50);
}

#[test]
fn a_struct_passes_for_a_supertype_it_declares_and_no_other() {
    let mut store = Store::<()>::default();
    let wat = r#"(module
      (type $base (sub (struct (field i32))))
      (type $derived (sub $base (struct (field i32) (field i64))))
      (type $alike (struct (field i32)))
      (func (export "derived") (result (ref $derived)) (struct.new $derived (i32.const 7) (i64.const 1)))
      (func (export "alike") (result (ref $alike)) (struct.new $alike (i32.const 8)))
      (func (export "get") (param (ref $base)) (result i32) (struct.get $base 0 (local.get 0))))"#;
    let module = Module::new(store.engine(), wat).unwrap();
    let i = Instance::new(&mut store, &module, &[]).unwrap();
    let derived = call(&mut store, &i, "derived", &[], 1)[0];
    assert_eq!(call(&mut store, &i, "get", &[derived], 1)[0].i32(), Some(7));
    // Same fields, but not a declared subtype (and final): refused before
    // wasm reads it, as a null is for the non-null parameter.
    let alike = call(&mut store, &i, "alike", &[], 1)[0];
    let get = i.get_func(&store, "get").unwrap();
    let mut out = [Val::I32(0)];
    assert!(usage(get.call(&mut store, &[alike], &mut out).unwrap_err()).contains("where (ref"));
    assert!(usage(get.call(&mut store, &[Val::AnyRef(None)], &mut out).unwrap_err()).contains("where (ref"));
}

#[test]
fn a_null_of_a_struct_type_reads_as_a_null_anyref() {
    let mut store = Store::<()>::default();
    let wat = r#"(module
      (type $s (struct (field i32)))
      (type $f (func))
      (global $g (export "g") (mut (ref null $s)) (ref.null $s))
      (func (export "null_s") (result (ref null $s)) (ref.null $s))
      (func (export "null_f") (result (ref null $f)) (ref.null $f))
      (func (export "is_null") (param (ref null $s)) (result i32) (ref.is_null (local.get 0))))"#;
    let module = Module::new(store.engine(), wat).unwrap();
    let i = Instance::new(&mut store, &module, &[]).unwrap();
    assert!(matches!(call(&mut store, &i, "null_s", &[], 1)[0], Val::AnyRef(None)));
    // A null of a function type stays a null function reference.
    assert!(matches!(call(&mut store, &i, "null_f", &[], 1)[0], Val::FuncRef(None)));
    let g = i.get_global(&store, "g").unwrap();
    assert!(matches!(g.get(&mut store), Val::AnyRef(None)));
    // Both nulls pass for the type, in calls and globals.
    g.set(&mut store, Val::AnyRef(None)).unwrap();
    g.set(&mut store, Val::FuncRef(None)).unwrap();
    assert_eq!(call(&mut store, &i, "is_null", &[Val::AnyRef(None)], 1)[0].i32(), Some(1));
}
