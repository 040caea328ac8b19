;; export_wamr_aux_stack.c: the stack pointer after the linker's
;; immutable __heap_base and __data_end (as WAMR's terminate sample
;; declares them), and after globals WAMR's loader skips: a mutable i64,
;; an immutable i32, a mutable i32 above __heap_base.
(module
  (memory 2)
  (global (export "__heap_base") i32 (i32.const 70000))
  (global (export "__data_end") i32 (i32.const 1020))
  (global (mut i64) (i64.const 4096))
  (global i32 (i32.const 4096))
  (global (mut i32) (i32.const 80000))
  (global $sp (mut i32) (i32.const 66560))
  (func (export "sp") (result i32) (global.get $sp)))
