;; The atomic counter of benches/atomics.rs and benches/atomics_compare.py:
;; `add(addr, n)` makes n sequentially consistent increments of the i32 at
;; addr of the shared memory and returns its final value.
(module
  (import "env" "memory" (memory 1 1 shared))
  (func (export "add") (param $addr i32) (param $n i32) (result i32)
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $n)))
        (drop (i32.atomic.rmw.add (local.get $addr) (i32.const 1)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (i32.atomic.load (local.get $addr))))
