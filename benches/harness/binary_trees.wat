;; binary-trees (the Benchmarks Game's), on GC structs: `run(max_depth)`
;; builds a stretch tree of depth max_depth + 1, a long-lived tree of
;; max_depth, and for each depth d = 4, 6, .., max_depth
;; 2^(max_depth - d + 4) trees of depth d, checking each (counting its
;; nodes). Returns the sum of all checks, which the bench verifies.
(module
  (type $node (struct (field $l (ref null $node)) (field $r (ref null $node))))
  (func $make (param $d i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $d))
      (then (struct.new $node (ref.null $node) (ref.null $node)))
      (else (struct.new $node
        (call $make (i32.sub (local.get $d) (i32.const 1)))
        (call $make (i32.sub (local.get $d) (i32.const 1)))))))
  (func $check (param $n (ref $node)) (result i32)
    (local $l (ref null $node))
    (local.set $l (struct.get $node $l (local.get $n)))
    (if (result i32) (ref.is_null (local.get $l))
      (then (i32.const 1))
      (else (i32.add (i32.const 1)
        (i32.add (call $check (ref.as_non_null (local.get $l)))
                 (call $check (ref.as_non_null (struct.get $node $r (local.get $n)))))))))
  (func (export "run") (param $max i32) (result i32)
    (local $sum i32) (local $long (ref null $node)) (local $d i32) (local $i i32) (local $n i32)
    (local.set $sum (call $check (call $make (i32.add (local.get $max) (i32.const 1)))))
    (local.set $long (call $make (local.get $max)))
    (local.set $d (i32.const 4))
    (block $depths (loop $each_depth
      (br_if $depths (i32.gt_s (local.get $d) (local.get $max)))
      (local.set $n (i32.shl (i32.const 1) (i32.add (i32.sub (local.get $max) (local.get $d)) (i32.const 4))))
      (local.set $i (i32.const 0))
      (block $trees (loop $each_tree
        (br_if $trees (i32.ge_s (local.get $i) (local.get $n)))
        (local.set $sum (i32.add (local.get $sum) (call $check (call $make (local.get $d)))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $each_tree)))
      (local.set $d (i32.add (local.get $d) (i32.const 2)))
      (br $each_depth)))
    (i32.add (local.get $sum) (call $check (ref.as_non_null (local.get $long))))))
