;; memory.fill and memory.copy call the runtime's builtins through the
;; VMContext's builtin table, with the index zero-extended to 64 bits. A
;; copy within one memory of at most 256 bytes, both ranges in bounds,
;; calls memory_move (memmove on host addresses) instead.
(module
  (memory 1)
  (func $fill (param i32 i32 i32)
    (memory.fill (local.get 0) (local.get 1) (local.get 2)))
  (func $copy (param i32 i32 i32)
    (memory.copy (local.get 0) (local.get 1) (local.get 2))))
