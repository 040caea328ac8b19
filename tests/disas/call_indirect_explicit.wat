;; config: bounds-checks=explicit
;; call_indirect without relying on faults (the mode valgrind runs in): the
;; null check is an explicit test, and no load of the funcref is hoisted
;; above it.
(module
  (type $t (func (param i32) (result i32)))
  (table 4 funcref)
  (func $f (param i32 i32) (result i32)
    (call_indirect (type $t) (local.get 1) (local.get 0))))
