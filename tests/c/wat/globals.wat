;; globals: imported (const and mutable) and exported globals of every
;; numeric type, with accessors so the host can compare both views.
(module
  (import "host" "const_i32" (global $ci i32))
  (import "host" "var_i64" (global $vi (mut i64)))
  (global $f32 (export "var_f32") (mut f32) (f32.const 1.5))
  (global $f64 (export "const_f64") f64 (f64.const 2.25))
  (global $i32 (export "var_i32") (mut i32) (i32.const 7))
  (export "var_i64_again" (global $vi))
  (func (export "get_ci") (result i32) (global.get $ci))
  (func (export "get_vi") (result i64) (global.get $vi))
  (func (export "set_vi") (param i64) (global.set $vi (local.get 0)))
  (func (export "get_f32") (result f32) (global.get $f32))
  (func (export "set_f32") (param f32) (global.set $f32 (local.get 0)))
  (func (export "get_f64") (result f64) (global.get $f64))
  (func (export "get_i32") (result i32) (global.get $i32))
  (func (export "set_i32") (param i32) (global.set $i32 (local.get 0))))
