;; reflection: imports and exports of every kind, with names that test the
;; NUL-terminated, counted form (a multi-byte name, an empty name).
(module
  (import "env" "f" (func (param i32 f64) (result i64)))
  (import "env" "g" (global (mut f32)))
  (import "env" "t" (table 1 8 funcref))
  (import "env" "m" (memory 1 3))
  (import "other module" "\c3\bcn\c3\afcode" (func))
  (func (export "func") (param i64 externref) (result i32 f32)
    (i32.const 0) (f32.const 0))
  (global (export "glob") i64 (i64.const 1))
  (global (export "mglob") (mut f64) (f64.const 1))
  (table (export "tab") 2 externref)
  (export "mem" (memory 0))
  (export "" (func 0))
  (export "tab_import" (table 0)))
