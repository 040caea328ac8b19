;; wamr_funcs: function imports only (WAMR instantiates a module whose
;; function imports are missing; calling one traps).
(module
  (import "host" "f1" (func $f1 (result i32)))
  (import "host" "f2" (func $f2 (result i32)))
  (func (export "call_f1") (result i32) (call $f1))
  (func (export "call_f2") (result i32) (call $f2)))
