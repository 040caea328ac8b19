;; tables_export: an exported funcref table (3 entries, at most 6) filled by
;; an element segment, with call_indirect and accessors.
(module
  (type $i2i (func (param i32) (result i32)))
  (type $v2i (func (result i32)))
  (table $t (export "tab") 3 6 funcref)
  (func $add100 (export "add100") (type $i2i)
    (i32.add (local.get 0) (i32.const 100)))
  (func $double (export "double") (type $i2i)
    (i32.mul (local.get 0) (i32.const 2)))
  (func $seven (export "seven") (type $v2i) (i32.const 7))
  (elem (table $t) (i32.const 1) func $add100 $double)
  ;; call_t(index, x) = t[index](x)
  (func (export "call_t") (param i32 i32) (result i32)
    (call_indirect $t (type $i2i) (local.get 1) (local.get 0)))
  (func (export "size_t") (result i32) (table.size $t))
  (func (export "is_null_t") (param i32) (result i32)
    (ref.is_null (table.get $t (local.get 0))))
  ;; t[index] = seven, from wasm
  (func (export "set_t_seven") (param i32)
    (table.set $t (local.get 0) (ref.func $seven))))
