;; call_indirect through frozen tables (module/frozen_tables.rs): defined,
;; not exported, never written by any function, filled only by
;; constant-offset segments, as clang's function-pointer table is. Their
;; elements are all this module's functions (or null) of type $t, so a
;; call of type $t needs neither the signature check nor the callee's
;; VMContext: bounds check, then the code address from the table's array
;; of them (VMTableDefinition::codes, made at instantiation), then the
;; call. $holes's null slots hold the address of a stub that traps as
;; "uninitialized element" (runtime/vm/null_call.rs), so its calls need no
;; null check either. Calls of another type ($u) load the funcref and keep
;; the signature check.
(module
  (type $t (func (param i32) (result i32)))
  (type $u (func (param i32 i32) (result i32)))
  (table $full 4 4 funcref)
  (table $holes 4 funcref)
  (elem (table $full) (i32.const 0) func $a $b $a $b)
  (elem (table $holes) (i32.const 1) func $a $b)
  (func $a (param i32) (result i32) (i32.add (local.get 0) (i32.const 1)))
  (func $b (param i32) (result i32) (i32.mul (local.get 0) (i32.const 3)))
  (func $loop (param $n i32) (param $acc i32) (result i32)
    (loop $l
      (local.set $acc (call_indirect $full (type $t) (local.get $acc) (i32.and (local.get $acc) (i32.const 3))))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n)))
    (local.get $acc))
  (func $other_type (param i32) (result i32)
    (call_indirect $full (type $u) (local.get 0) (local.get 0) (local.get 0)))
  (func $with_holes (param i32) (result i32)
    (call_indirect $holes (type $t) (local.get 0) (local.get 0))))
