;; A call to an imported function goes through its funcref, whose address
;; the VMContext holds: load the code pointer and the callee's context,
;; then one indirect call.
(module
  (import "host" "f" (func $f (param i32) (result i32)))
  (func $caller (param i32) (result i32)
    (call $f (local.get 0))))
