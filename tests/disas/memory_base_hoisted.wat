;; Memories never move, so the base address is a read-only VMContext load
;; that the optimiser hoists out of the loop: the loop body is the load,
;; the add and the loop control.
(module
  (memory 1)
  (func $sum (param $p i32) (param $n i32) (result i32) (local $s i32)
    (block $done
      (loop $next
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $s (i32.add (local.get $s) (i32.load8_u (local.get $p))))
        (local.set $p (i32.add (local.get $p) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $next)))
    (local.get $s)))
