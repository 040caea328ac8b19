//! GC's collector (issue 40, stage 2b): programs that allocate far more
//! than their heap holds run to the right answer, cycles are collected,
//! and every kind of root (wasm frames, globals, tables, element segments,
//! exception payloads, host handles) keeps its objects, moved or not.
//! `tests/run-all.sh` runs this file again with `CRANEWASM_GC_STRESS=1`,
//! where every allocation of compiled code collects first.

use cranewasm::*;

fn call(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> Result<Val> {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("no export {name}"));
    let mut out = [Val::I32(0)];
    f.call(&mut *store, args, &mut out)?;
    Ok(out[0])
}

fn run(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) {
    let f = instance.get_func(&*store, name).unwrap_or_else(|| panic!("no export {name}"));
    f.call(&mut *store, args, &mut []).unwrap_or_else(|e| panic!("{name}: {e}"));
}

fn i32_of(store: &mut Store<()>, instance: &Instance, name: &str, args: &[Val]) -> i32 {
    call(store, instance, name, args).unwrap_or_else(|e| panic!("{name}: {e}")).i32().expect("an i32")
}

/// A store whose heap holds at most `mib` MiB.
fn small_store(mib: usize) -> Store<()> {
    let mut store = Store::<()>::default();
    store.set_limiter(StoreLimits::builder().gc_heap_size(mib << 20).build());
    store
}

fn instance(store: &mut Store<()>, wat: &str) -> Instance {
    let module = Module::new(store.engine(), wat).unwrap();
    Instance::new(&mut *store, &module, &[]).unwrap()
}

const PROGRAMS: &str = r#"(module
  (type $node (struct (field $l (ref null $node)) (field $r (ref null $node)) (field $v i32)))
  ;; A tree of depth d whose nodes hold their depth; built depth-first, so
  ;; collections happen while frames hold half-built subtrees.
  (func $make (param $d i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $d))
      (then (struct.new $node (ref.null $node) (ref.null $node) (i32.const 0)))
      (else (struct.new $node
        (call $make (i32.sub (local.get $d) (i32.const 1)))
        (call $make (i32.sub (local.get $d) (i32.const 1)))
        (local.get $d)))))
  (func $sum (param $n (ref null $node)) (result i32)
    (if (result i32) (ref.is_null (local.get $n))
      (then (i32.const 0))
      (else (i32.add (struct.get $node $v (local.get $n))
        (i32.add (call $sum (struct.get $node $l (local.get $n)))
                 (call $sum (struct.get $node $r (local.get $n))))))))
  (func (export "tree") (param i32) (result i32) (call $sum (call $make (local.get 0))))
  ;; `times` trees of depth d, all garbage but the last, whose sum is kept
  ;; beside one long-lived tree made first.
  (func (export "churn") (param $d i32) (param $times i32) (result i32)
    (local $keep (ref null $node)) (local $last i32)
    (local.set $keep (call $make (local.get $d)))
    (loop $again
      (local.set $last (call $sum (call $make (local.get $d))))
      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))
    (i32.add (local.get $last) (call $sum (local.get $keep))))
  ;; Rings of n links (cycles), made and dropped `times` times; the sum of
  ;; the last ring walked once.
  (type $link (struct (field $v i32) (field $next (mut (ref null $link)))))
  (func $ring (param $n i32) (result (ref $link))
    (local $first (ref null $link)) (local $p (ref null $link)) (local $i i32)
    (local.set $first (struct.new $link (i32.const 1) (ref.null $link)))
    (local.set $p (local.get $first))
    (local.set $i (i32.const 2))
    (loop $add
      (struct.set $link $next (local.get $p) (struct.new $link (local.get $i) (ref.null $link)))
      (local.set $p (ref.as_non_null (struct.get $link $next (local.get $p))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $add (i32.le_u (local.get $i) (local.get $n))))
    (struct.set $link $next (local.get $p) (local.get $first))
    (ref.as_non_null (local.get $first)))
  (func (export "rings") (param $n i32) (param $times i32) (result i32)
    (local $r (ref null $link)) (local $p (ref null $link)) (local $sum i32)
    (loop $again
      (local.set $r (call $ring (local.get $n)))
      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))
    (local.set $p (local.get $r))
    (loop $walk
      (local.set $sum (i32.add (local.get $sum) (struct.get $link $v (local.get $p))))
      (local.set $p (struct.get $link $next (local.get $p)))
      (br_if $walk (i32.eqz (ref.eq (local.get $p) (local.get $r)))))
    (local.get $sum))
  ;; Arrays of references and of bytes, made in a loop.
  (type $bytes (array (mut i8)))
  (type $refs (array (mut (ref null $bytes))))
  (func (export "arrays") (param $times i32) (result i32)
    (local $a (ref null $refs)) (local $i i32) (local $sum i32)
    (loop $again
      (local.set $a (array.new_default $refs (i32.const 64)))
      (local.set $i (i32.const 0))
      (loop $fill
        (array.set $refs (local.get $a) (local.get $i)
          (array.new $bytes (local.get $i) (i32.const 1000)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br_if $fill (i32.lt_u (local.get $i) (i32.const 64))))
      (br_if $again (local.tee $times (i32.sub (local.get $times) (i32.const 1)))))
    (local.set $i (i32.const 0))
    (loop $add
      (local.set $sum (i32.add (local.get $sum)
        (array.get_u $bytes (ref.as_non_null (array.get $refs (local.get $a) (local.get $i))) (i32.const 999))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $add (i32.lt_u (local.get $i) (i32.const 64))))
    (local.get $sum)))"#;

/// The sum `$sum` gives for a tree of depth `d`: each level k holds
/// 2^(d-k) nodes of value k.
fn tree_sum(d: i32) -> i32 {
    (1..=d).map(|k| k << (d - k)).sum()
}

#[test]
fn programs_allocating_far_more_than_the_heap_run_right() {
    let mut store = small_store(8);
    let i = instance(&mut store, PROGRAMS);
    // 200 trees of 32,767 nodes (24 bytes each): 150 MiB through 8 MiB.
    assert_eq!(i32_of(&mut store, &i, "churn", &[Val::I32(14), Val::I32(200)]), 2 * tree_sum(14));
    // 500 rings of 10,000 links: 120 MiB of cycles.
    assert_eq!(i32_of(&mut store, &i, "rings", &[Val::I32(10_000), Val::I32(500)]), 50_005_000);
    // 300 times 64 arrays of 1,000 bytes.
    assert_eq!(i32_of(&mut store, &i, "arrays", &[Val::I32(300)]), (0..64).sum::<i32>());
    let stats = store.gc_stats();
    assert!(stats.collections >= 30, "{stats:?}");
    assert!(stats.live_bytes < 2 << 20, "{stats:?}");
    assert!(stats.longest_pause <= stats.total_pause, "{stats:?}");
}

/// A bound below the first trigger (4 MiB), as WAMR's small default GC
/// heaps are: the bound itself is where the first collection comes.
#[test]
fn a_heap_bound_below_the_first_trigger_collects_at_the_bound() {
    let mut store = Store::<()>::default();
    store.set_limiter(StoreLimits::builder().gc_heap_size(256 << 10).build());
    let i = instance(&mut store, PROGRAMS);
    // 100 trees of 511 nodes: 1.2 MiB through 256 KiB.
    assert_eq!(i32_of(&mut store, &i, "churn", &[Val::I32(8), Val::I32(100)]), 2 * tree_sum(8));
    assert!(store.gc_stats().collections >= 4, "{:?}", store.gc_stats());
}

#[test]
fn a_deep_tree_survives_collections_while_it_is_built() {
    // Depth 17: 262,143 nodes, 6 MiB, built in a 16 MiB heap whose first
    // collection comes at 4 MiB, with frames holding subtrees.
    let mut store = small_store(16);
    let i = instance(&mut store, PROGRAMS);
    assert_eq!(i32_of(&mut store, &i, "tree", &[Val::I32(17)]), tree_sum(17));
    assert!(store.gc_stats().collections >= 1, "{:?}", store.gc_stats());
}

const ROOTS: &str = r#"(module
  (type $cell (struct (field $v (mut i32))))
  (type $cells (array (mut (ref null $cell))))
  (global $g (mut (ref null $cell)) (ref.null $cell))
  (global $init (ref $cell) (struct.new $cell (i32.const 11)))
  (table $t 4 anyref)
  (elem $seg (ref $cell) (struct.new $cell (i32.const 100)) (struct.new $cell (i32.const 200)))
  (tag $carry (param (ref $cell)))
  (global $caught (mut exnref) (ref.null exn))
  (func $garbage (param $n i32)
    (loop $again
      (drop (array.new_default $cells (i32.const 256)))
      (br_if $again (local.tee $n (i32.sub (local.get $n) (i32.const 1))))))
  (func (export "setup")
    (global.set $g (struct.new $cell (i32.const 1)))
    (table.set $t (i32.const 0) (struct.new $cell (i32.const 2)))
    (table.set $t (i32.const 1) (ref.i31 (i32.const 3)))
    ;; An exception whose payload holds a cell, caught and kept.
    (global.set $caught
      (block $h (result exnref)
        (try_table (catch_all_ref $h)
          (throw $carry (struct.new $cell (i32.const 4))))
        (unreachable))))
  (func (export "garbage") (param i32) (call $garbage (local.get 0)))
  (func (export "read") (result i32)
    (local $from_seg (ref null $cells))
    (local.set $from_seg (array.new_elem $cells $seg (i32.const 0) (i32.const 2)))
    (i32.add (i32.add (i32.add
      (struct.get $cell $v (global.get $g))
      (struct.get $cell $v (ref.cast (ref $cell) (table.get $t (i32.const 0)))))
      (i32.add (i31.get_u (ref.cast (ref i31) (table.get $t (i32.const 1))))
               (struct.get $cell $v (global.get $init))))
      (i32.add
        (i32.add (struct.get $cell $v (ref.as_non_null (array.get $cells (local.get $from_seg) (i32.const 0))))
                 (struct.get $cell $v (ref.as_non_null (array.get $cells (local.get $from_seg) (i32.const 1)))))
        (block $h (result (ref $cell))
          (try_table (catch $carry $h) (throw_ref (global.get $caught)))
          (unreachable))
        (struct.get $cell $v))))
  (func (export "get") (param anyref) (result i32) (struct.get $cell $v (ref.cast (ref $cell) (local.get 0))))
  (func (export "make") (param i32) (result anyref) (struct.new $cell (local.get 0))))"#;

#[test]
fn globals_tables_segments_and_exception_payloads_are_roots() {
    let mut store = small_store(8);
    let i = instance(&mut store, ROOTS);
    run(&mut store, &i, "setup", &[]);
    let expected = 1 + 2 + 3 + 11 + 100 + 200 + 4;
    assert_eq!(i32_of(&mut store, &i, "read", &[]), expected);
    for _ in 0..5 {
        // 500 arrays of 1 KiB each time: a collection at least.
        run(&mut store, &i, "garbage", &[Val::I32(500)]);
        store.gc();
        assert_eq!(i32_of(&mut store, &i, "read", &[]), expected);
    }
    assert!(store.gc_stats().collections >= 5);
}

#[test]
fn host_handles_follow_their_objects() {
    let mut store = small_store(8);
    let i = instance(&mut store, ROOTS);
    let held: Vec<Val> = (0..50).map(|n| call(&mut store, &i, "make", &[Val::I32(n)]).unwrap()).collect();
    for _ in 0..3 {
        run(&mut store, &i, "garbage", &[Val::I32(500)]);
        store.gc();
    }
    for (n, v) in held.iter().enumerate() {
        assert_eq!(i32_of(&mut store, &i, "get", &[*v]), n as i32);
    }
    // A host global holds its object through collections too.
    let ty = GlobalType::new(ValType::ANYREF, Mutability::Var);
    let g = Global::new(&mut store, ty, held[7]).unwrap();
    store.gc();
    let back = g.get(&store);
    assert_eq!(i32_of(&mut store, &i, "get", &[back]), 7);
}

#[test]
fn a_handle_made_in_a_root_scope_is_refused_after_it() {
    let mut store = small_store(8);
    let i = instance(&mut store, ROOTS);
    let outer = call(&mut store, &i, "make", &[Val::I32(5)]).unwrap();
    let inner = {
        let mut scope = RootScope::new(&mut store);
        let make = i.get_func(&scope, "make").unwrap();
        let mut out = [Val::I32(0)];
        make.call(&mut scope, &[Val::I32(6)], &mut out).unwrap();
        out[0]
    };
    store.gc();
    assert_eq!(i32_of(&mut store, &i, "get", &[outer]), 5);
    let e = call(&mut store, &i, "get", &[inner]).unwrap_err();
    assert!(e.to_string().contains("root scope"), "{e}");
}

#[test]
fn a_host_function_may_collect_while_wasm_frames_hold_objects() {
    let mut store = small_store(8);
    let module = Module::new(
        store.engine(),
        r#"(module
          (type $cell (struct (field i32)))
          (import "host" "collect" (func $collect))
          (func $inner (param $c (ref $cell)) (result i32)
            (call $collect)
            (struct.get $cell 0 (local.get $c)))
          (func (export "run") (result i32)
            (local $a (ref $cell))
            (local.set $a (struct.new $cell (i32.const 30)))
            (i32.add (call $inner (struct.new $cell (i32.const 12)))
                     (struct.get $cell 0 (local.get $a)))))"#,
    )
    .unwrap();
    let collect = Func::wrap(&mut store, |mut caller: Caller<'_, ()>| caller.as_context_mut().gc());
    let i = Instance::new(&mut store, &module, &[collect.into()]).unwrap();
    for _ in 0..3 {
        assert_eq!(i32_of(&mut store, &i, "run", &[]), 42);
    }
    assert!(store.gc_stats().collections >= 3, "{:?}", store.gc_stats());
}

/// Host data made internal is boxed in the heap each time the API passes
/// it to wasm: those boxes are garbage the collector reclaims too, though
/// wasm itself allocates nothing (16 bytes a box, 40 times the bound).
#[test]
fn boxes_of_host_data_passed_by_the_api_are_collected() {
    let mut store = small_store(1);
    let i = instance(
        &mut store,
        r#"(module
          (global $last (mut anyref) (ref.null any))
          (func (export "take") (param anyref) (result i32)
            (global.set $last (local.get 0))
            (ref.is_null (local.get 0))))"#,
    );
    let host = ExternRef::new(&mut store, 7u32);
    let any = Val::AnyRef(Some(AnyRef::convert_extern(host)));
    let take = i.get_func(&store, "take").unwrap();
    let global = Global::new(&mut store, GlobalType::new(ValType::ANYREF, Mutability::Var), Val::AnyRef(None)).unwrap();
    let mut out = [Val::I32(-1)];
    for n in 0..(40 << 20) / 16 / 10 {
        take.call(&mut store, &[any], &mut out).unwrap_or_else(|e| panic!("call {n}: {e}"));
        assert_eq!(out[0].i32(), Some(0));
        // A host global boxes it too.
        global.set(&mut store, any).unwrap_or_else(|e| panic!("global set {n}: {e}"));
    }
    assert!(store.gc_stats().collections > 0, "the boxes were collected");
}
