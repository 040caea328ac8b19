;; Guard pages (the default): a load is the memory base plus the
;; zero-extended index, with the static offset folded into the addressing
;; mode, and no compare: the reservation covers every address an i32 index
;; and offset can form, and a fault there is the trap.
(module
  (memory 1)
  (func $load (param i32) (result i32)
    (i32.load offset=16 (local.get 0)))
  (func $store (param i32 i64)
    (i64.store offset=8 (local.get 0) (local.get 1))))
