;; calls: exports of several signatures for arity and kind checks, and one
;; that calls an import the host may leave unlinked.
(module
  (import "host" "maybe" (func $maybe (result i32)))
  (func (export "add") (param i32 i32) (result i32)
    (i32.add (local.get 0) (local.get 1)))
  (func (export "mix") (param i64 f32 f64) (result f64)
    (f64.add (f64.add (f64.convert_i64_s (local.get 0))
                      (f64.promote_f32 (local.get 1)))
             (local.get 2)))
  (func (export "none"))
  (func (export "call_maybe") (result i32) (call $maybe)))
