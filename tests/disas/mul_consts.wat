;; Multiplications by small constants (compile/mul_consts.rs): 5 is one
;; `lea`, the 24-byte element of $node one `lea` with the `* 8` folded into
;; the load's addressing mode, 31 a shift and a subtraction; 56 stays an
;; `imul`, since its form would take three instructions. $murmur_step is
;; hash.c's loop-carried step, `rotl(h, 27) * 5 + c`: one `lea` after the
;; rotation, where `imul` took three cycles on the chain.
(module
  (memory 1)
  (func $times5 (param i64) (result i64)
    (i64.mul (local.get 0) (i64.const 5)))
  (func $node (param $nodes i32) (param $i i32) (result i32)
    (i32.load offset=8 (i32.add (local.get $nodes) (i32.mul (local.get $i) (i32.const 24)))))
  (func $times31 (param i32) (result i32)
    (i32.mul (local.get 0) (i32.const 31)))
  (func $times56 (param i32) (result i32)
    (i32.mul (local.get 0) (i32.const 56)))
  (func $murmur_step (param $h i64) (result i64)
    (i64.add (i64.mul (i64.rotl (local.get $h) (i64.const 27)) (i64.const 5)) (i64.const 0x52dce729))))
