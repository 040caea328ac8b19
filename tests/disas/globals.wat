;; A global the module defines lives in the VMContext: global.get and
;; global.set are one load and one store at a constant offset.
(module
  (global $g (mut i64) (i64.const 0))
  (func $bump (param i64) (result i64)
    (global.set $g (i64.add (global.get $g) (local.get 0)))
    (global.get $g)))
