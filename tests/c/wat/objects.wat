;; objects: one entity of each kind, for the object-model tests (handles,
;; references and their deletion in any order).
(module
  (func $twice (export "twice") (param i32) (result i32)
    (i32.mul (local.get 0) (i32.const 2)))
  (func (export "boom") (unreachable))
  (global (export "g") (mut i32) (i32.const 7))
  (table (export "t") 2 funcref)
  (elem (i32.const 0) $twice)
  (memory (export "m") 1))
