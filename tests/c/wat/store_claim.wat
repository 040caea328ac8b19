;; store_claim: a call that stays inside its host import (tick) while
;; another thread tries the store, and a global, memory and table to try.
(module
  (import "host" "tick" (func $tick (param i32) (result i32)))
  (memory (export "mem") 1)
  (table (export "tab") 1 10 funcref)
  (global (export "g") (mut i32) (i32.const 1))
  ;; bump(x) = tick(x) + 1
  (func (export "bump") (param i32) (result i32)
    (i32.add (call $tick (local.get 0)) (i32.const 1)))
  (func (export "square") (param i32) (result i32)
    (i32.mul (local.get 0) (local.get 0))))
