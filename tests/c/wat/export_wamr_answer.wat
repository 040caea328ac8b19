;; export_wamr_undeclared.c, export_wamr_destroy.c: one function, and what
;; the thread manager needs to spawn exec envs (WAMR's aux stack).
(module
  (memory 2)
  (global $sp (mut i32) (i32.const 66560))
  (global (export "__heap_base") i32 (i32.const 70000))
  (global (export "__data_end") i32 (i32.const 1024))
  (func (export "answer") (result i32) (i32.const 42)))
