//! GC's heap objects (issue 40, stage 2a): struct and array programs run
//! to the right answer, a full heap traps "out of memory" and leaves the
//! store usable, a dropped store frees its heap, and host data boxed into
//! a struct field comes back the same (the collector: tests/gc_collect.rs).

use cranewasm::*;

#[path = "support/proc_status.rs"]
mod proc_status;
use proc_status::status_kib;

fn call(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> Result<Val> {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("no export {name}"));
    let mut out = [Val::I32(0)];
    f.call(&mut *store, args, &mut out)?;
    Ok(out[0])
}

fn instance(store: &mut Store<()>, wat: &str) -> Instance {
    let module = Module::new(store.engine(), wat).unwrap();
    Instance::new(&mut *store, &module, &[]).unwrap()
}

const TREES: &str = r#"(module
  (type $node (struct (field $l (ref null $node)) (field $r (ref null $node))))
  (func $make (param $d i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $d))
      (then (struct.new_default $node))
      (else (struct.new $node
        (call $make (i32.sub (local.get $d) (i32.const 1)))
        (call $make (i32.sub (local.get $d) (i32.const 1)))))))
  (func $count (param $n (ref null $node)) (result i32)
    (if (result i32) (ref.is_null (local.get $n))
      (then (i32.const 0))
      (else (i32.add (i32.const 1)
        (i32.add (call $count (struct.get $node $l (local.get $n)))
                 (call $count (struct.get $node $r (local.get $n))))))))
  (func (export "tree") (param i32) (result i32) (call $count (call $make (local.get 0))))
  ;; A ring of n nodes holding 1..n, walked `laps` times round.
  (type $link (struct (field $v i32) (field $next (mut (ref null $link)))))
  (func (export "ring") (param $n i32) (param $laps i32) (result i32)
    (local $first (ref null $link)) (local $last (ref null $link)) (local $p (ref null $link))
    (local $i i32) (local $sum i32) (local $steps i32)
    (local.set $first (struct.new $link (i32.const 1) (ref.null $link)))
    (local.set $last (local.get $first))
    (local.set $i (i32.const 2))
    (block $done (loop $add
      (br_if $done (i32.gt_u (local.get $i) (local.get $n)))
      (local.set $p (struct.new $link (local.get $i) (ref.null $link)))
      (struct.set $link $next (local.get $last) (local.get $p))
      (local.set $last (local.get $p))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $add)))
    ;; Close the cycle.
    (struct.set $link $next (local.get $last) (local.get $first))
    (local.set $p (local.get $first))
    (local.set $steps (i32.mul (local.get $n) (local.get $laps)))
    (block $end (loop $walk
      (br_if $end (i32.eqz (local.get $steps)))
      (local.set $sum (i32.add (local.get $sum) (struct.get $link $v (local.get $p))))
      (local.set $p (struct.get $link $next (local.get $p)))
      (local.set $steps (i32.sub (local.get $steps) (i32.const 1)))
      (br $walk)))
    (local.get $sum))
  ;; A byte array of `n` elements, filled, and its last element.
  (type $bytes (array (mut i8)))
  (func (export "bytes") (param $n i32) (result i32)
    (local $a (ref $bytes))
    (local.set $a (array.new_default $bytes (local.get $n)))
    (array.fill $bytes (local.get $a) (i32.const 0) (i32.const 7) (local.get $n))
    (array.get_u $bytes (local.get $a) (i32.sub (local.get $n) (i32.const 1))))
  ;; Host data through a struct field of type anyref and back.
  (type $box (struct (field anyref)))
  (func (export "through") (param externref) (result externref)
    (extern.convert_any (struct.get $box 0 (struct.new $box (any.convert_extern (local.get 0)))))))"#;

#[test]
fn binary_trees_and_a_cyclic_list_compute_the_right_answers() {
    let mut store = Store::<()>::default();
    let i = instance(&mut store, TREES);
    // A complete tree of depth d has 2^(d+1) - 1 nodes.
    for d in [0, 1, 5, 12] {
        assert_eq!(call(&mut store, &i, "tree", &[Val::I32(d)]).unwrap().i32(), Some((1 << (d + 1)) - 1));
    }
    // Three laps of a ring of 1000: three times 1 + ... + 1000.
    let sum = call(&mut store, &i, "ring", &[Val::I32(1000), Val::I32(3)]).unwrap();
    assert_eq!(sum.i32(), Some(3 * 500_500));
}

#[test]
fn a_full_heap_traps_out_of_memory_and_the_store_stays_usable() {
    let mut store = Store::<()>::default();
    store.set_limiter(StoreLimits::builder().gc_heap_size(4 << 20).build());
    let i = instance(&mut store, TREES);
    // 8 MiB of bytes do not fit in 4 MiB.
    let e = call(&mut store, &i, "bytes", &[Val::I32(8 << 20)]).unwrap_err();
    assert_eq!(e.downcast_ref::<Trap>(), Some(&Trap::OutOfMemory), "{e}");
    assert!(e.to_string().contains("out of memory"), "{e}");
    // The same store allocates what still fits, and computes right.
    assert_eq!(call(&mut store, &i, "bytes", &[Val::I32(1 << 20)]).unwrap().i32(), Some(7));
    assert_eq!(call(&mut store, &i, "tree", &[Val::I32(4)]).unwrap().i32(), Some(31));
    // Filling the rest with small objects traps the same way.
    let e = call(&mut store, &i, "tree", &[Val::I32(20)]).unwrap_err();
    assert_eq!(e.downcast_ref::<Trap>(), Some(&Trap::OutOfMemory), "{e}");
}


#[test]
fn a_dropped_store_frees_its_heap() {
    let engine = Engine::default();
    let module = Module::new(&engine, TREES).unwrap();
    let (rss, vm) = (status_kib("VmRSS:"), status_kib("VmSize:"));
    for _ in 0..20 {
        let mut store = Store::new(&engine, ());
        let i = Instance::new(&mut store, &module, &[]).unwrap();
        // 16 MiB written: resident while the store lives.
        assert_eq!(call(&mut store, &i, "bytes", &[Val::I32(16 << 20)]).unwrap().i32(), Some(7));
    }
    // Leaked, 20 heaps would hold 320 MiB resident and 80 GiB of address
    // space; other tests of this binary use a few MiB at most.
    let rss_growth = status_kib("VmRSS:").saturating_sub(rss);
    let vm_growth = status_kib("VmSize:").saturating_sub(vm);
    assert!(rss_growth < 160 << 10, "RSS grew by {rss_growth} KiB");
    assert!(vm_growth < 16 << 20, "address space grew by {vm_growth} KiB");
}

#[test]
fn host_data_boxed_into_a_struct_field_comes_back_the_same() {
    let mut store = Store::<()>::default();
    let i = instance(&mut store, TREES);
    let e = ExternRef::new(&mut store, 42u32);
    let back = call(&mut store, &i, "through", &[Val::ExternRef(Some(e))]).unwrap();
    let back = back.externref().flatten().expect("not null");
    assert_eq!(back.data(&store).downcast_ref::<u32>(), Some(&42));
    assert_eq!(back, e, "the same host reference");
    let null = call(&mut store, &i, "through", &[Val::ExternRef(None)]).unwrap();
    assert_eq!(null.externref(), Some(None));
}

#[test]
fn a_struct_from_one_store_is_refused_by_another() {
    let mut a = Store::<()>::default();
    let mut b = Store::<()>::default();
    let wat = r#"(module (type $s (struct (field i32)))
        (func (export "make") (result anyref) (struct.new $s (i32.const 5)))
        (func (export "is_struct") (param anyref) (result i32) (ref.test (ref struct) (local.get 0))))"#;
    let ia = instance(&mut a, wat);
    let ib = instance(&mut b, wat);
    let s = call(&mut a, &ia, "make", &[]).unwrap();
    assert!(matches!(s, Val::AnyRef(Some(r)) if r.as_object().is_some_and(|o| !o.is_array())));
    assert_eq!(call(&mut a, &ia, "is_struct", &[s]).unwrap().i32(), Some(1));
    let e = call(&mut b, &ib, "is_struct", &[s]).unwrap_err();
    assert!(matches!(e, Error::WrongStore), "{e}");
}

#[test]
fn fields_of_every_storage_type_keep_their_values() {
    let mut store = Store::<()>::default();
    let wat = r#"(module
        (type $all (struct (field (mut i8)) (field (mut i16)) (field (mut i64)) (field (mut f64))
                           (field (mut v128)) (field (mut funcref)) (field (mut externref)) (field (mut i31ref))))
        (type $vs (array (mut v128)))
        (type $hs (array (mut i16)))
        (type $ft (func (result i32)))
        (func $f (export "f") (type $ft) (i32.const 77))
        (func (export "run") (param externref) (result i32)
          (local $s (ref $all)) (local $sum i32)
          (local.set $s (struct.new $all (i32.const -1) (i32.const 0x18001) (i64.const 0x100000002)
            (f64.const 2.5) (v128.const i32x4 1 2 3 4) (ref.func $f) (local.get 0) (ref.i31 (i32.const -5))))
          ;; -1 as i8: 255 unsigned, -1 signed; 0x18001 as i16: 0x8001.
          (local.set $sum (i32.add (struct.get_u $all 0 (local.get $s)) (struct.get_s $all 0 (local.get $s))))
          (local.set $sum (i32.add (local.get $sum) (struct.get_u $all 1 (local.get $s))))
          (local.set $sum (i32.add (local.get $sum) (i32.wrap_i64 (i64.shr_u (struct.get $all 2 (local.get $s)) (i64.const 32)))))
          (local.set $sum (i32.add (local.get $sum) (i32.trunc_f64_s (f64.mul (struct.get $all 3 (local.get $s)) (f64.const 2)))))
          (local.set $sum (i32.add (local.get $sum) (i32x4.extract_lane 3 (struct.get $all 4 (local.get $s)))))
          (local.set $sum (i32.add (local.get $sum) (call_ref $ft (ref.cast (ref $ft) (struct.get $all 5 (local.get $s))))))
          (local.set $sum (i32.add (local.get $sum) (ref.is_null (struct.get $all 6 (local.get $s)))))
          (local.set $sum (i32.add (local.get $sum) (i31.get_s (struct.get $all 7 (local.get $s)))))
          ;; A v128 array filled and read back; a packed array's copy.
          (local.set $sum (i32.add (local.get $sum) (i32x4.extract_lane 2
            (array.get $vs (array.new $vs (v128.const i32x4 9 8 7 6) (i32.const 3)) (i32.const 2)))))
          (local.set $sum (i32.add (local.get $sum) (array.get_s $hs
            (array.new_fixed $hs 3 (i32.const 1) (i32.const -2) (i32.const 0x10003)) (i32.const 1))))
          (local.get $sum)))"#;
    let i = instance(&mut store, wat);
    let e = ExternRef::new(&mut store, 1u32);
    let expected = 255 - 1 + 0x8001 + 1 + 5 + 4 + 77 - 5 + 7 - 2;
    assert_eq!(call(&mut store, &i, "run", &[Val::ExternRef(Some(e))]).unwrap().i32(), Some(expected));
}
