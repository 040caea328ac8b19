;; export_wamr_import_memory.c: env.memory imported, one page, no more.
(module
  (import "env" "memory" (memory 1 1))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0))))
