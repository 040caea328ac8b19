;; The inner loop of the matmul kernel as clang writes it for wasm32:
;; c[j] += a * b[j] with the addresses kept as i32 values stepped by 8.
;; The loop's address parameters are i64 zero extensions of those i32s
;; (`widen_params`): each iteration's `leal 8(%rdi), %edi` clears the upper
;; half, so the accesses use them without the `movl` that zero-extended
;; them on each access; the extension runs once, at the loop entry. The
;; step is a 64-bit add: the access at the address proves it far enough
;; below 4 GiB for the step not to wrap (`address_steps`). With AVX the
;; multiply and add take three operands.
(module
  (memory 1)
  (func $axpy (param $c i32) (param $b i32) (param $n i32) (param $a f64)
    (loop $next
      (f64.store (local.get $c)
        (f64.add (f64.load (local.get $c))
                 (f64.mul (local.get $a) (f64.load (local.get $b)))))
      (local.set $c (i32.add (local.get $c) (i32.const 8)))
      (local.set $b (i32.add (local.get $b) (i32.const 8)))
      (br_if $next (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))))
