;; externref: host references (wasm_foreign_t) passed into wasm, through a
;; host function, and kept in a table and a global.
(module
  (import "host" "echo" (func $echo (param externref) (result externref)))
  (table $t (export "refs") 4 externref)
  (global $g (export "gref") (mut externref) (ref.null extern))
  (func (export "id") (param externref) (result externref) (local.get 0))
  (func (export "through_host") (param externref) (result externref)
    (call $echo (local.get 0)))
  (func (export "is_null") (param externref) (result i32)
    (ref.is_null (local.get 0)))
  (func (export "stash") (param i32 externref)
    (table.set $t (local.get 0) (local.get 1)))
  (func (export "fetch") (param i32) (result externref)
    (table.get $t (local.get 0)))
  (func (export "set_g") (param externref) (global.set $g (local.get 0)))
  (func (export "get_g") (result externref) (global.get $g)))
