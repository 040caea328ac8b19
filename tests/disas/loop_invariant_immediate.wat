;; A loop whose bound is a loop-invariant `n & 0x7fe`, as clang writes a
;; loop unrolled twice (`j < (n & ~1)`; matmul's inner loop). Cranelift
;; hoists the `band` out of the loop, then rematerialises it next to its
;; use, which recomputed it (`movq; andl $0x7fe`) on every iteration; it
;; is computed once before this small, call-free inner loop instead
;; (`Config::loop_passes`).
(module
  (memory 1)
  (func $sum_pairs (param $p i32) (param $n i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $next
      (local.set $s (i32.add (local.get $s)
        (i32.load (i32.shl (local.get $i) (i32.const 2)))))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.ne (local.get $i) (i32.and (local.get $n) (i32.const 0x7fe)))))
    (i32.add (local.get $s) (local.get $n))))
