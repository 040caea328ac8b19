;; config: bounds-checks=explicit
;; Explicit bounds checks (for hosts short of address space, and valgrind):
;; the end of the access (index + offset + size) is compared with the
;; memory's current length, read from its definition, before the access.
(module
  (memory 1)
  (func $load (param i32) (result i32)
    (i32.load offset=16 (local.get 0))))
