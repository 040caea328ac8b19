;; The loop of `address_step_unrolled` on an imported memory without a
;; maximum: that memory may be 4 GiB (its exporter declared 65536 pages),
;; so `$c + 8` may wrap and stays a 32-bit add, zero-extended.
(module
  (import "env" "memory" (memory 1))
  (func $pairs (param $c i32) (param $n i32) (param $a f64)
    (loop $next
      (f64.store (local.get $c) (f64.mul (local.get $a) (f64.load (local.get $c))))
      (f64.store (i32.add (local.get $c) (i32.const 8))
        (f64.mul (local.get $a) (f64.load (i32.add (local.get $c) (i32.const 8)))))
      (local.set $c (i32.add (local.get $c) (i32.const 16)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
