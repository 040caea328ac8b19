;; wamr_calls: calls whose argument and result vectors are not what the
;; signature asks for, host traps with messages of every shape, and the
;; wasm trap texts WAMR gives.
(module
  (import "host" "fail" (func $fail))
  (global $count (mut i32) (i32.const 0))
  (func $tick (global.set $count (i32.add (global.get $count) (i32.const 1))))
  (func (export "count") (result i32) (global.get $count))
  ;; Side effect, then a result / a trap.
  (func (export "tick_result") (result i32) (call $tick) (global.get $count))
  (func (export "tick_trap") (result i32) (call $tick) (unreachable))
  (func (export "tick_two") (result i32 i64)
    (call $tick) (global.get $count) (i64.const 7))
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1)))
  (func (export "id_i32") (param i32) (result i32) (local.get 0))
  (func (export "id_f32") (param f32) (result f32) (local.get 0))
  (func (export "id_i64") (param i64) (result i64) (local.get 0))
  (func (export "id_f64") (param f64) (result f64) (local.get 0))
  (func (export "host_fail") (call $fail))
  (func $rec (export "recurse") (call $rec)))
