;; memory_export: a memory of 2 pages, at most 5, with a data segment and
;; accessors for the host to compare its view against.
(module
  (memory (export "mem") 2 5)
  (data (i32.const 0x1000) "\01\02\03\04")
  (func (export "size") (result i32) (memory.size))
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0)))
  (func (export "load8") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store8") (param i32 i32)
    (i32.store8 (local.get 0) (local.get 1)))
  (func (export "load32") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "store64") (param i32 i64)
    (i64.store (local.get 0) (local.get 1)))
  (func (export "fill") (param i32 i32 i32)
    (memory.fill (local.get 0) (local.get 1) (local.get 2))))
