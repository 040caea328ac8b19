;; config: inlining=off
;; Every function checks the stack limit in its prologue with one load and
;; one compare (the limit is a copy in its own VMContext, not behind the store
;; context), so deep recursion traps as "call stack exhausted" without probes.
;; Also: recursion through direct calls, as the fib kernel does.
(module
  (func $fib (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else
        (i32.add
          (call $fib (i32.sub (local.get 0) (i32.const 1)))
          (call $fib (i32.sub (local.get 0) (i32.const 2))))))))
