;; export_wamr_aux_stack.c: __data_end above __heap_base: WAMR finds no
;; aux stack.
(module
  (memory 2)
  (global $sp (mut i32) (i32.const 66560))
  (global (export "__heap_base") i32 (i32.const 1024))
  (global (export "__data_end") i32 (i32.const 70000))
  (func (export "sp") (result i32) (global.get $sp)))
