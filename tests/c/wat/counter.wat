;; counter: a small module with state, a host import and a memory, used by
;; the serialize, share, threads and lifecycle tests.
(module
  (import "host" "tick" (func $tick (param i32) (result i32)))
  (memory (export "mem") 1)
  (global $n (mut i32) (i32.const 0))
  ;; bump(x): n += 1; mem[0] = n; return tick(x) + n
  (func (export "bump") (param i32) (result i32)
    (global.set $n (i32.add (global.get $n) (i32.const 1)))
    (i32.store (i32.const 0) (global.get $n))
    (i32.add (call $tick (local.get 0)) (global.get $n)))
  (func (export "square") (param i32) (result i32)
    (i32.mul (local.get 0) (local.get 0))))
