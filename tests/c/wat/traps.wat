;; traps: one export per trap kind, a three-deep call chain that ends in
;; `unreachable` (for frames), a host function that traps, and recursion
;; without end (stack exhaustion).
(module
  (type $v2i (func (result i32)))
  (type $i2i (func (param i32) (result i32)))
  (import "host" "fail" (func $fail))                          ;; func 0
  (table $t 3 funcref)
  (table $t2 2 externref)
  (memory 1)
  (data $seg "abc")
  (elem (table $t) (i32.const 0) func $ok)
  (func $ok (export "ok") (result i32) (i32.const 1))         ;; func 1
  (func (export "unreachable") (unreachable))                  ;; func 2
  (func (export "oob_load") (result i32)                       ;; func 3
    (i32.load (i32.const 65536)))
  (func (export "oob_store")                                   ;; func 4
    (i32.store (i32.const 65534) (i32.const 1)))
  (func (export "div_zero") (result i32)                       ;; func 5
    (i32.div_s (i32.const 1) (i32.const 0)))
  (func (export "rem_zero") (result i64)                       ;; func 6
    (i64.rem_u (i64.const 1) (i64.const 0)))
  (func (export "overflow") (result i32)                       ;; func 7
    (i32.div_s (i32.const 0x80000000) (i32.const -1)))
  (func (export "nan_to_int") (result i32)                     ;; func 8
    (i32.trunc_f32_s (f32.const nan)))
  (func (export "big_to_int") (result i32)                     ;; func 9
    (i32.trunc_f64_u (f64.const 1e10)))
  (func (export "sig_mismatch") (result i32)                   ;; func 10
    (call_indirect $t (type $i2i) (i32.const 5) (i32.const 0)))
  (func (export "undefined_elem") (result i32)                 ;; func 11
    (call_indirect $t (type $v2i) (i32.const 3)))
  (func (export "uninit_elem") (result i32)                    ;; func 12
    (call_indirect $t (type $v2i) (i32.const 1)))
  (func (export "table_oob")                                   ;; func 13
    (drop (table.get $t2 (i32.const 2))))
  (func (export "table_fill_oob")                              ;; func 14
    (table.fill $t2 (i32.const 1) (ref.null extern) (i32.const 2)))
  (func (export "memory_fill_oob")                             ;; func 15
    (memory.fill (i32.const 65535) (i32.const 0) (i32.const 2)))
  (func (export "memory_init_oob")                             ;; func 16
    (memory.init $seg (i32.const 0) (i32.const 2) (i32.const 2)))
  (func $inner (unreachable))                                  ;; func 17
  (func $middle (call $inner))                                 ;; func 18
  (func (export "nested") (call $middle))                      ;; func 19
  (func (export "host_fail") (call $fail))                     ;; func 20
  (func $recurse (export "recurse") (call $recurse))           ;; func 21
  ;; Recursion with a depth argument, for a deep but finite stack.
  (func $depth (export "depth") (param i32) (result i32)       ;; func 22
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.const 0))
      (else (i32.add (i32.const 1)
                     (call $depth (i32.sub (local.get 0) (i32.const 1))))))))
