;; A loop counting `i` up by 2 to a constant, as clang writes dispatch's
;; unrolled loop: `i + 2 != 4096`. Cranelift's optimiser rewrites the test
;; as `i != 4094`, which keeps `i` live beside `i + 2` up to the branch:
;; two registers and a copy on the back edge. The test is put back on the
;; stepped value (`i + 2 != 4096`: adds wrap, so equality is unchanged),
;; and `i` dies where `i + 2` is made (`Config::loop_passes`).
(module
  (memory 1)
  (func $sum (param $p i32) (result i32)
    (local $i i32) (local $s i32)
    (loop $next
      (local.set $s (i32.add (local.get $s)
        (i32.add (i32.load8_u (i32.add (local.get $p) (local.get $i)))
                 (i32.load8_u offset=1 (i32.add (local.get $p) (local.get $i))))))
      (br_if $next (i32.ne (local.tee $i (i32.add (local.get $i) (i32.const 2))) (i32.const 4096))))
    (local.get $s)))
