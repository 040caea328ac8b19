;; Quicksort's partition scan `while (a[i] < pivot) i++;` followed by a use
;; of `i`, as clang writes it: a one-block loop that steps `i` before its
;; branch, with the old `i` live after the exit. Cranelift kept `i` and
;; `i + 1` in two registers and copied one into the other on the back
;; edge (a block of its own: `mov; jmp` per iteration). The old `i` is
;; recomputed as `(i + 1) - 1` in the exit block instead, so the loop
;; needs one register and no copy (`Config::loop_passes`).
(module
  (memory 1)
  (func $scan (param $a i32) (param $pivot i32) (result i32)
    (local $i i32) (local $j i32)
    (loop $next
      (local.set $j (local.get $i))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $next (i32.lt_u (i32.load (i32.add (local.get $a) (i32.shl (local.get $j) (i32.const 2))))
                             (local.get $pivot))))
    (local.get $j)))
