;; call_indirect: the table bounds check, the null check and the
;; signature check (one compare of the expected signature id with the
;; funcref's), then the call through the funcref.
(module
  (type $t (func (param i32) (result i32)))
  (table 4 funcref)
  (func $f (param i32 i32) (result i32)
    (call_indirect (type $t) (local.get 1) (local.get 0))))
