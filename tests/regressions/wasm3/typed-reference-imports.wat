;; Tables and globals of a module's typed reference types, made by the host
;; for its imports: the host API refused a null for `(ref null $t)`.
(module
  (type $un (func (param i32) (result i32)))
  (import "" "t" (table $t 2 10 (ref null $un)))
  (import "" "g" (global $g (mut (ref null $un))))
  (func $double (type $un) (i32.mul (local.get 0) (i32.const 2)))
  (elem declare func $double)
  (func (export "fill") (param i32) (table.set $t (i32.and (local.get 0) (i32.const 1)) (ref.func $double)))
  (func (export "via_table") (param i32) (result i32)
    (call_ref $un (local.get 0) (table.get $t (i32.and (local.get 0) (i32.const 1)))))
  (func (export "via_global") (param i32) (result i32) (call_ref $un (local.get 0) (global.get $g))))
