;; Inlining (on) leaves self-recursion alone: fib keeps its two calls of
;; itself. (A one-level unroll, sized for the fib kernel, was measured on
;; the real programs, changed nothing there, and was removed: see
;; benches/README.md, "Issue 32".)
(module
  (func $fib (param i32) (result i32)
    (if (result i32) (i32.lt_u (local.get 0) (i32.const 2))
      (then (local.get 0))
      (else
        (i32.add
          (call $fib (i32.sub (local.get 0) (i32.const 1)))
          (call $fib (i32.sub (local.get 0) (i32.const 2))))))))
