;; export_wamr_aux_stack.c: a stack pointer, but no __heap_base and
;; __data_end exports: WAMR finds no aux stack.
(module
  (memory 2)
  (global $sp (mut i32) (i32.const 66560))
  (func (export "sp") (result i32) (global.get $sp)))
