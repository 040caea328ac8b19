;; simd: v128 values across the C API: arguments, results, a host function
;; and a mutable global.
(module
  (import "host" "swap_halves" (func $swap (param v128) (result v128)))
  (global $g (export "g") (mut v128) (v128.const i32x4 1 2 3 4))
  (func (export "add") (param v128 v128) (result v128)
    (i32x4.add (local.get 0) (local.get 1)))
  ;; The host swaps the two 64-bit halves; wasm then adds 1 to each lane.
  (func (export "via_host") (param v128) (result v128)
    (i32x4.add (call $swap (local.get 0)) (v128.const i32x4 1 1 1 1)))
  (func (export "sum_g") (result i32)
    (i32.add
      (i32.add (i32x4.extract_lane 0 (global.get $g))
               (i32x4.extract_lane 1 (global.get $g)))
      (i32.add (i32x4.extract_lane 2 (global.get $g))
               (i32x4.extract_lane 3 (global.get $g))))))
