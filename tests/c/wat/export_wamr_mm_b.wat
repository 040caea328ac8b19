;; export_wamr_multi_module.c: mB, registered by the host; it imports
;; from mA.
(module
  (import "mA" "A1" (func $a1 (result i32)))
  (func (export "B1") (result i32) (i32.add (call $a1) (i32.const 10))))
