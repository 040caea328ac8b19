;; config: bounds-checks=explicit
;; call_indirect without relying on faults (the mode valgrind runs in): the
;; null check is an explicit test, and no load of the funcref is hoisted
;; above it.
;; The table is exported (the host may write it), so none of the frozen-table
;; shortcuts of call_indirect_frozen_table apply.
(module
  (type $t (func (param i32) (result i32)))
  (table (export "t") 4 funcref)
  (func $f (param i32 i32) (result i32)
    (call_indirect (type $t) (local.get 1) (local.get 0))))
