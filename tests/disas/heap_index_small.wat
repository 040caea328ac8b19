;; Heap addresses from indices of known range (func_env/ranges.rs). A
;; wasm32 address is base + zext(i32 index) + offset; when the index is
;; (x << k) + c and x's range (a mask, an 8/16-bit zero-extending load, a
;; right shift, an xor of those) shows the i32 shift and add cannot wrap, the address is
;; base + (zext(x) << k) + (c + offset): one x64 addressing mode instead
;; of shl, add, zero-extension and add. $unbounded keeps the i32 shift,
;; which may drop bits, then zero-extends.
(module
  (memory 1)
  (func $masked (param i32) (result i32)
    (i32.load offset=16 (i32.shl (i32.and (local.get 0) (i32.const 0xff)) (i32.const 2))))
  (func $byte_indexed (param i32) (result f64)
    (f64.load (i32.add (i32.shl (i32.load8_u (local.get 0)) (i32.const 3)) (i32.const 1024))))
  (func $halfword_indexed (param i32) (param i32)
    (i32.store16 offset=4 (i32.add (i32.shl (i32.load16_u (local.get 0)) (i32.const 1)) (i32.const 512)) (local.get 1)))
  (func $shifted_right (param i32) (result i32)
    (i32.load (i32.add (i32.shl (i32.shr_u (local.get 0) (i32.const 4)) (i32.const 2)) (i32.const 8))))
  ;; A CRC's table lookup as clang writes it: crc32.c's inner loop.
  (func $crc_step (param $crc i32) (param $p i32) (result i32)
    (i32.xor
      (i32.load offset=1024
        (i32.shl (i32.xor (i32.and (local.get $crc) (i32.const 255)) (i32.load8_u (local.get $p))) (i32.const 2)))
      (i32.shr_u (local.get $crc) (i32.const 8))))
  (func $unbounded (param i32) (result i32)
    (i32.load offset=16 (i32.shl (local.get 0) (i32.const 2)))))
