;; export_wamr_terminate.c: WAMR's terminate sample's app (testapp.wat):
;; block_forever reads fd 0 (a pipe nothing writes to). Its globals are
;; the sample's "fake globals to make wasm_set_aux_stack happy": the stack
;; pointer after the immutable __heap_base and __data_end.
(module
  (func $fd_read (import "wasi_snapshot_preview1" "fd_read") (param i32 i32 i32 i32) (result i32))
  (func $block_forever (export "block_forever")
    (i32.store (i32.const 100) (i32.const 200))
    (i32.store (i32.const 104) (i32.const 1))
    (drop (call $fd_read (i32.const 0) (i32.const 100) (i32.const 1) (i32.const 300)))
    unreachable)
  (func (export "_start") (call $block_forever))
  (func (export "malloc") (param i32) (result i32)
    local.get 0
    i32.const 65535
    i32.add
    i32.const 65536
    i32.div_u
    memory.grow
    local.set 0
    local.get 0
    i32.const -1
    i32.eq
    if
      i32.const 0
      return
    end
    local.get 0
    i32.const 65536
    i32.mul)
  (func (export "free") (param i32))
  (memory (export "memory") 1)
  (global (export "__heap_base") i32 (i32.const 0x10000))
  (global (export "__data_end") i32 (i32.const 0x10000))
  (global (mut i32) (i32.const 0x10000)))
