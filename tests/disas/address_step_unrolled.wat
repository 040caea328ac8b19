;; matmul's inner loop as clang unrolls it for wasm32: c[j] and c[j + 1]
;; at $c and $c + 8, with $c stepped by 16. The access at $c proves $c
;; small (memories stop 64 KiB short of 4 GiB), so `$c + 8` cannot wrap:
;; it is formed in 64 bits and folds into the second access's addressing
;; mode (`8(%rax, %rdi)`, no `leal`), and the step is one 64-bit add
;; (`address_steps`).
(module
  (memory 1)
  (func $pairs (param $c i32) (param $n i32) (param $a f64)
    (loop $next
      (f64.store (local.get $c) (f64.mul (local.get $a) (f64.load (local.get $c))))
      (f64.store (i32.add (local.get $c) (i32.const 8))
        (f64.mul (local.get $a) (f64.load (i32.add (local.get $c) (i32.const 8)))))
      (local.set $c (i32.add (local.get $c) (i32.const 16)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
