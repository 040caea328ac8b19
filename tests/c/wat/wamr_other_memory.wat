;; wamr_other_memory: a memory and a table imported from a module other than
;; "env" (WAMR satisfies them from "env" only).
(module
  (import "lib" "mem" (memory 1 2))
  (import "lib" "tab" (table 1 funcref))
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0))))
