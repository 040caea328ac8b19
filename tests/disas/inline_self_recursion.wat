;; A small self-recursive function is unrolled one level: each of fib's
;; two calls of itself gets one copy of its body, whose own calls stay
;; calls, so a call does the work of up to three (the bound is
;; `UNROLL_MAX_INSTS` translated instructions, see benches/README.md).
(module
  (func $fib (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else
        (i32.add
          (call $fib (i32.sub (local.get 0) (i32.const 1)))
          (call $fib (i32.sub (local.get 0) (i32.const 2))))))))
