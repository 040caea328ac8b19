;; GC benchmarks (issue 40), one module for both runtimes
;; (`benches/gc.rs` for ours, `benches/gc_compare.py` for wasmtime's).
;; Each export is one call that loops in wasm and returns a check value
;; that both runtimes must agree on.
(module
  (type $node (struct (field $left (ref null $node)) (field $right (ref null $node))))

  ;; A class hierarchy as Java or Kotlin compile it: each object's first
  ;; field is its "virtual method", which casts `this` back down.
  (rec
    (type $shape (sub (struct (field $area (ref $area)))))
    (type $area (func (param (ref $shape)) (result i64)))
    (type $rect (sub $shape (struct (field $area (ref $area)) (field $w i64) (field $h i64))))
    (type $square (sub final $rect (struct (field $area (ref $area)) (field $w i64) (field $h i64))))
    (type $circle (sub final $shape (struct (field $area (ref $area)) (field $r i64)))))
  (type $shapes (array (mut (ref null $shape))))

  (type $ints (array (mut i32)))
  (type $bytes (array (mut i8)))

  (elem declare func $rect_area $circle_area)

  ;; ---- binary-trees: the benchmarks game's, counting nodes ----------------
  (func $make (param $depth i32) (result (ref $node))
    (if (result (ref $node)) (i32.eqz (local.get $depth))
      (then (struct.new $node (ref.null $node) (ref.null $node)))
      (else
        (struct.new $node
          (call $make (i32.sub (local.get $depth) (i32.const 1)))
          (call $make (i32.sub (local.get $depth) (i32.const 1)))))))

  (func $count (param $tree (ref $node)) (result i64)
    (local $left (ref null $node))
    (local.set $left (struct.get $node $left (local.get $tree)))
    (if (result i64) (ref.is_null (local.get $left))
      (then (i64.const 1))
      (else
        (i64.add (i64.const 1)
          (i64.add
            (call $count (ref.as_non_null (local.get $left)))
            (call $count (ref.as_non_null (struct.get $node $right (local.get $tree)))))))))

  ;; A stretch tree of depth max+1, a tree of depth max that lives
  ;; throughout, and for depth 4, 6, ... max, 2^(max-depth+4) short-lived
  ;; trees of that depth. The sum of all their node counts.
  (func (export "binary_trees") (param $max i32) (result i64)
    (local $long (ref $node))
    (local $depth i32)
    (local $iterations i32)
    (local $i i32)
    (local $sum i64)
    (local.set $sum (call $count (call $make (i32.add (local.get $max) (i32.const 1)))))
    (local.set $long (call $make (local.get $max)))
    (local.set $depth (i32.const 4))
    (block $done
      (loop $depths
        (br_if $done (i32.gt_s (local.get $depth) (local.get $max)))
        (local.set $iterations
          (i32.shl (i32.const 1) (i32.add (i32.sub (local.get $max) (local.get $depth)) (i32.const 4))))
        (local.set $i (i32.const 0))
        (loop $trees
          (local.set $sum (i64.add (local.get $sum) (call $count (call $make (local.get $depth)))))
          (local.set $i (i32.add (local.get $i) (i32.const 1)))
          (br_if $trees (i32.lt_u (local.get $i) (local.get $iterations))))
        (local.set $depth (i32.add (local.get $depth) (i32.const 2)))
        (br $depths)))
    (i64.add (local.get $sum) (call $count (local.get $long))))

  ;; ---- a large live heap, for the pause of one collection ------------------
  ;; A list of `n` nodes (`left` is the next one), kept in a global (so
  ;; live until the store goes); returns n.
  (global $live (mut (ref null $node)) (ref.null $node))
  (func (export "live_list") (param $n i32) (result i32)
    (local $head (ref null $node)) (local $i i32)
    (block $done
      (loop $more
        (br_if $done (i32.eq (local.get $i) (local.get $n)))
        (local.set $head (struct.new $node (local.get $head) (ref.null $node)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $more)))
    (global.set $live (local.get $head))
    (local.get $i))

  ;; ---- virtual dispatch with casts -----------------------------------------
  (func $rect_area (type $area) (param $this (ref $shape)) (result i64)
    (local $r (ref $rect))
    (local.set $r (ref.cast (ref $rect) (local.get $this)))
    (i64.mul (struct.get $rect $w (local.get $r)) (struct.get $rect $h (local.get $r))))

  (func $circle_area (type $area) (param $this (ref $shape)) (result i64)
    (local $c (ref $circle))
    (local.set $c (ref.cast (ref $circle) (local.get $this)))
    (i64.mul (i64.const 3) (i64.mul (struct.get $circle $r (local.get $c)) (struct.get $circle $r (local.get $c)))))

  ;; 1024 shapes (rectangles, squares, circles), then `n` virtual calls
  ;; over them, each also testing whether the shape is a rectangle (a
  ;; non-final type: squares pass through the supertype check).
  (func (export "dispatch") (param $n i32) (result i64)
    (local $shapes (ref $shapes))
    (local $s (ref $shape))
    (local $i i32)
    (local $sum i64)
    (local.set $shapes (array.new_default $shapes (i32.const 1024)))
    (loop $fill
      (array.set $shapes (local.get $shapes) (local.get $i)
        (if (result (ref $shape)) (i32.eqz (i32.rem_u (local.get $i) (i32.const 3)))
          (then (struct.new $circle (ref.func $circle_area) (i64.extend_i32_u (local.get $i))))
          (else
            (if (result (ref $shape)) (i32.eq (i32.rem_u (local.get $i) (i32.const 3)) (i32.const 1))
              (then (struct.new $square (ref.func $rect_area)
                (i64.extend_i32_u (local.get $i)) (i64.extend_i32_u (local.get $i))))
              (else (struct.new $rect (ref.func $rect_area)
                (i64.extend_i32_u (local.get $i)) (i64.const 7)))))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $fill (i32.lt_u (local.get $i) (i32.const 1024))))
    (local.set $i (i32.const 0))
    (loop $calls
      (local.set $s (ref.as_non_null
        (array.get $shapes (local.get $shapes) (i32.and (local.get $i) (i32.const 1023)))))
      (local.set $sum (i64.add (local.get $sum)
        (call_ref $area (local.get $s) (struct.get $shape $area (local.get $s)))))
      (if (ref.test (ref $rect) (local.get $s))
        (then (local.set $sum (i64.add (local.get $sum) (i64.const 1)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $calls (i32.lt_u (local.get $i) (local.get $n))))
    (local.get $sum))

  ;; ---- array fill and copy ---------------------------------------------------
  ;; `n` rounds over two 64 Ki-element i32 arrays and two 64 KiB byte
  ;; arrays: fill one, copy it into the other at an odd offset, and read
  ;; one element back.
  (func (export "array_fill_copy") (param $n i32) (result i64)
    (local $a (ref $ints))
    (local $b (ref $ints))
    (local $x (ref $bytes))
    (local $y (ref $bytes))
    (local $k i32)
    (local $sum i64)
    (local.set $a (array.new_default $ints (i32.const 65536)))
    (local.set $b (array.new_default $ints (i32.const 65536)))
    (local.set $x (array.new_default $bytes (i32.const 65536)))
    (local.set $y (array.new_default $bytes (i32.const 65536)))
    (loop $rounds
      (array.fill $ints (local.get $a) (i32.const 0) (local.get $k) (i32.const 65536))
      (array.copy $ints $ints (local.get $b) (i32.const 1) (local.get $a) (i32.const 0) (i32.const 65535))
      (array.fill $bytes (local.get $x) (i32.const 3) (local.get $k) (i32.const 65533))
      (array.copy $bytes $bytes (local.get $y) (i32.const 0) (local.get $x) (i32.const 1) (i32.const 65535))
      (local.set $sum (i64.add (local.get $sum)
        (i64.add
          (i64.extend_i32_u (array.get $ints (local.get $b) (i32.and (local.get $k) (i32.const 65535))))
          (i64.extend_i32_u (array.get_u $bytes (local.get $y) (i32.and (local.get $k) (i32.const 65535)))))))
      (local.set $k (i32.add (local.get $k) (i32.const 1)))
      (br_if $rounds (i32.lt_u (local.get $k) (local.get $n))))
    (local.get $sum))
)
