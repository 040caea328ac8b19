;; v128.store8_lane / v128.store16_lane with static offsets of 2^16 and more,
;; whose vector operand is not a constant: wasmi 2.0.0 trapped, lost the
;; store, or jumped to the offset as if it were code (found by the
;; differential fuzzer; why the oracle is wasmi 1.x).
(module
  (memory (export "mem") 4 7)
  (global $v (mut v128) (v128.const i16x8 0x1234 0x5678 0 0 0 0 0 0))
  (func (export "store16") (param i32) (result i32)
    (v128.store16_lane offset=65536 0 (local.get 0) (global.get $v))
    (i32.load16_u offset=65536 (local.get 0)))
  (func (export "store8") (param i32) (result i32)
    (v128.store8_lane offset=233307 1 (local.get 0) (global.get $v))
    (i32.load8_u offset=233307 (local.get 0)))
  (func (export "store_then_trap") (param i32)
    ;; The store must land before the out-of-bounds load traps.
    (v128.store16_lane offset=233307 0 (i32.const 0) (global.get $v))
    (drop (v128.load32_zero offset=39515 (local.get 0)))))
