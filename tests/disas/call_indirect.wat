;; call_indirect: the table bounds check against the table's current
;; length, the null check (the signature load faults on a null funcref and
;; reports the null's trap code) and the signature check (one compare of
;; the funcref's id with a 32-bit immediate), then the call through the
;; funcref.
;; The table is exported (the host may write it), so none of the frozen-table
;; shortcuts of call_indirect_frozen_table apply.
(module
  (type $t (func (param i32) (result i32)))
  (table (export "t") 4 funcref)
  (func $f (param i32 i32) (result i32)
    (call_indirect (type $t) (local.get 1) (local.get 0))))
