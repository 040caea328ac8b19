;; call_indirect through a table whose size can never change (max == min,
;; as clang declares the table of function pointers): the bounds check
;; compares with a constant and the table's base is loaded once, out of
;; the loop. The null check is the signature load itself (it faults on a
;; null funcref with the null's trap code), and the expected signature id
;; is a 32-bit immediate.
;; The table is exported (the host may write it), so none of the frozen-table
;; shortcuts of call_indirect_frozen_table apply.
(module
  (type $t (func (param i32) (result i32)))
  (table (export "t") 16 16 funcref)
  (func $f (param $n i32) (param $acc i32) (result i32)
    (loop $l
      (local.set $acc (call_indirect (type $t) (local.get $acc) (i32.and (local.get $acc) (i32.const 15))))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (local.get $acc)))
