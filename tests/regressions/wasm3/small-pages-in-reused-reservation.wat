;; A memory of 1-byte pages ending inside a host page, made in a reservation
;; an earlier memory of 64 KiB pages left accessible: shrinking the
;; accessible part from inside the page protected all of it, and reading the
;; memory crashed (seeds 8 then 16 of the first wasmtime run).
(module
  (memory $big (export "big") 2 5)
  (memory $small (export "small") 27 100 (pagesize 1))
  (func (export "put") (param i32 i32) (i32.store8 $small (local.get 0) (local.get 1)))
  (func (export "get") (param i32) (result i32) (i32.load8_u $small (local.get 0))))
