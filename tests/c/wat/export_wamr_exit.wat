;; export_wamr_wasi_exit.c: a WASI command whose _start calls
;; proc_exit(status), status stored at address 0 by the host first; and
;; a reactor-style function returning normally.
(module
  (import "wasi_snapshot_preview1" "proc_exit" (func $proc_exit (param i32)))
  (memory (export "memory") 1)
  (func (export "_start") (call $proc_exit (i32.load (i32.const 0))))
  (func (export "exit_with") (param i32) (call $proc_exit (local.get 0)))
  (func (export "fine") (result i32) (i32.const 1)))
