;; wamr_globals: imported globals (a mutable i32, a const i64) and an
;; exported const, each with accessors from wasm.
(module
  (import "host" "g" (global $g (mut i32)))
  (import "host" "c" (global $c i64))
  (global $k (export "k") i32 (i32.const 10))
  (global $v (export "v") (mut i64) (i64.const 20))
  (func (export "get_g") (result i32) (global.get $g))
  (func (export "set_g") (param i32) (global.set $g (local.get 0)))
  (func (export "get_c") (result i64) (global.get $c))
  (func (export "get_k") (result i32) (global.get $k))
  (func (export "get_v") (result i64) (global.get $v)))
