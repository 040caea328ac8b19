;; export_wamr_import_memory.c: a shared env.memory, as a wasi-threads
;; program built with --import-memory imports it (WAMR's
;; inst-context-threads sample), with the linker's __heap_base and
;; __data_end and a stack pointer, so that threads can be spawned; and
;; the sample's natives to set and read an instance context.
(module
  (import "env" "memory" (memory 2 10 shared))
  (import "env" "set_context" (func $set_context (param i32)))
  (import "env" "get_context" (func $get_context (result i32)))
  (global $sp (mut i32) (i32.const 66560))
  (global (export "__heap_base") i32 (i32.const 70000))
  (global (export "__data_end") i32 (i32.const 1024))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "set") (param i32) (call $set_context (local.get 0)))
  (func (export "get") (result i32) (call $get_context)))
