;; tables_import: call_indirect through a table the host provides.
(module
  (type $i2i (func (param i32) (result i32)))
  (import "host" "tab" (table $ht 2 10 funcref))
  (func (export "call_ht") (param i32 i32) (result i32)
    (call_indirect $ht (type $i2i) (local.get 1) (local.get 0)))
  (func (export "size_ht") (result i32) (table.size $ht)))
