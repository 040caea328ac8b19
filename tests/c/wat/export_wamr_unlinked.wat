;; export_wamr_log_level.c: an import nothing provides (WAMR warns at
;; instantiation), and the linker's symbols (WAMR's loader reports them at
;; its verbose level).
(module
  (import "env" "nothing_provides_this" (func))
  (memory 1)
  (global $sp (mut i32) (i32.const 4096))
  (global (export "__heap_base") i32 (i32.const 8192))
  (global (export "__data_end") i32 (i32.const 1024)))
