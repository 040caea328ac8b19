;; callback_env: two imported host functions that carry an env pointer.
(module
  (import "host" "count" (func $count (param i32) (result i32)))
  (import "host" "count2" (func $count2 (param i32) (result i32)))
  (func (export "run") (param i32) (result i32)
    (call $count (local.get 0)))
  (func (export "run2") (param i32) (result i32)
    (call $count2 (local.get 0))))
