;; export_wamr_import_memory.c: env.memory imported without a maximum.
(module
  (import "env" "memory" (memory 1))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0))))
