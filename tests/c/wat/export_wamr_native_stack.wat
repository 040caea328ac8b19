;; export_wamr_native_stack.c: WAMR's native-stack-overflow sample's app
;; (testapp.c, as wat), and a recursion that calls the host at its
;; deepest point.
(module
  (import "env" "host_consume_stack_and_call_indirect" (func $consume_and_call (param i32 i32 i32) (result i32)))
  (import "env" "host_consume_stack" (func $host_consume_stack (param i32) (result i32)))
  (import "env" "host_at_bottom" (func $host_at_bottom))
  (import "env" "printf" (func $printf (param i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "at the bottom: %d %f|\n\00")
  (table 3 funcref)
  (elem (i32.const 1) func $consume_stack_cb $host_consume_stack_cb)
  (func $consume_stack_cb (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0)) (then (i32.const 0))
      (else (i32.add (call $consume_stack_cb (i32.sub (local.get 0) (i32.const 1))) (i32.const 1)))))
  (func $host_consume_stack_cb (param i32) (result i32) (call $host_consume_stack (local.get 0)))
  (func (export "test1") (param $native_stack i32) (param $recurse_count i32) (result i32)
    (drop (call $consume_and_call (i32.const 1) (local.get $recurse_count) (local.get $native_stack)))
    (i32.const 42))
  (func (export "test2") (param $native_stack i32) (param $recurse_count i32) (result i32)
    (drop (call $consume_and_call (i32.const 2) (i32.const 6000) (local.get $native_stack)))
    (i32.const 42))
  ;; rec(n): n frames down, then the host (a native, then printf).
  (func $rec (export "rec") (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0))
      (then
        (call $host_at_bottom)
        (i32.store (i32.const 128) (i32.const 7))
        (f64.store (i32.const 136) (f64.const 2.5))
        (call $printf (i32.const 16) (i32.const 128)))
      (else (i32.add (call $rec (i32.sub (local.get 0) (i32.const 1))) (i32.const 1))))))
