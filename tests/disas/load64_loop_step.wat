;; Loops over a 64-bit memory whose address is a loop parameter stepped
;; on every iteration, as clang strength-reduces `a[j]` for wasm64: the
;; address is clamped to 4 GiB once, on the way into the loop, and each
;; access masks it below 8 GiB (a copy and an `and`, beside the access and
;; off the one-add chain that steps the address) instead of comparing and
;; conditionally moving (`compile/loop_bounds64.rs`).
(module
  (memory i64 1)
  ;; The sieve's inner loop: the step is the prime, an index an access
  ;; before the loop proved to be in bounds.
  (func $mark (param $i i64) (param $n i32)
    (local $p i64) (local $j i32)
    (drop (i32.load8_u (local.get $i)))
    (local.set $p (i64.mul (local.get $i) (local.get $i)))
    (local.set $j (i32.wrap_i64 (local.get $p)))
    (loop $l
      (i32.store8 (local.get $p) (i32.const 1))
      (local.set $p (i64.add (local.get $p) (local.get $i)))
      (local.set $j (i32.add (local.get $j) (i32.wrap_i64 (local.get $i))))
      (br_if $l (i32.lt_u (local.get $j) (local.get $n)))))
  ;; matmul's inner loop: two pointers stepped by a constant, each
  ;; accessed at two offsets.
  (func $axpy (param $x i64) (param $y i64) (param $a f64) (param $n i32)
    (loop $l
      (f64.store (local.get $y)
        (f64.add (f64.load (local.get $y)) (f64.mul (local.get $a) (f64.load (local.get $x)))))
      (f64.store offset=8 (local.get $y)
        (f64.add (f64.load offset=8 (local.get $y)) (f64.mul (local.get $a) (f64.load offset=8 (local.get $x)))))
      (local.set $x (i64.add (local.get $x) (i64.const 16)))
      (local.set $y (i64.add (local.get $y) (i64.const 16)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))))
