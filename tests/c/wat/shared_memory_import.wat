;; shared_memory_import: the counter of shared_memory.wat over a shared
;; memory it imports.
(module
  (import "env" "mem" (memory 1 4 shared))
  (func (export "add") (param i32) (result i32)
    (i32.atomic.rmw.add (i32.const 0) (local.get 0))))
