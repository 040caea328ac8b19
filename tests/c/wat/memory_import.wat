;; memory: imports a memory (1 page, at most 2) that the host created, with
;; accessors for the host to compare its view against.
(module
  (import "host" "mem" (memory 1 2))
  (func (export "load8") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store8") (param i32 i32)
    (i32.store8 (local.get 0) (local.get 1)))
  (func (export "size") (result i32) (memory.size)))
