;; memory64.c: a 64-bit memory imported from the host and exported again,
;; with i64 addresses.
(module
  (import "host" "mem" (memory $m i64 1 4))
  (export "mem" (memory $m))
  (func (export "store8") (param i64 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "load8") (param i64) (result i32) (i32.load8_u (local.get 0)))
  (func (export "size") (result i64) (memory.size)))
