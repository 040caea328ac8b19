;; export_wamr_calls.c: reference parameters and results of
;; wasm_runtime_call_wasm, _a and _v. Functions $f1 and $f2 are the
;; module's functions 0 and 1 (no imports): WAMR's funcref cells.
(module
  (table $t 4 externref)
  (table $ft 4 funcref)
  (elem (table $ft) (i32.const 1) func $f1 $f2)
  (type $r (func (result i32)))
  (func $f1 (result i32) (i32.const 11))
  (func $f2 (result i32) (i32.const 22))
  (func (export "set") (param i32 externref) (table.set $t (local.get 0) (local.get 1)))
  (func (export "get") (param i32) (result externref) (table.get $t (local.get 0)))
  (func (export "ext_then_i32") (param externref i32) (result i32) (local.get 1))
  (func (export "is_null") (param externref) (result i32) (ref.is_null (local.get 0)))
  (func (export "call_funcref") (param funcref) (result i32)
    (table.set $ft (i32.const 0) (local.get 0))
    (call_indirect $ft (type $r) (i32.const 0)))
  (func (export "get_funcref") (param i32) (result funcref) (table.get $ft (local.get 0)))
  (func (export "add") (param i32 i32) (result i32) (i32.add (local.get 0) (local.get 1))))
