;; Alias regions: linear memory, table elements and the runtime's own
;; state (globals, table and memory definitions) are disjoint, so a store
;; to linear memory does not make the mutable global (a C program's stack
;; pointer) stale: it is loaded once, not before every access.
(module
  (memory 1)
  (global $sp (mut i32) (i32.const 1024))
  (func $f (param i32) (result i32)
    (i32.store (global.get $sp) (local.get 0))
    (i32.store offset=4 (global.get $sp) (local.get 0))
    (i32.store offset=8 (global.get $sp) (local.get 0))
    (global.get $sp)))
