;; WASI call overhead, shared by benches/wasi.rs (ours) and
;; benches/wasi_compare.py (wasmtime): each export makes its call n times
;; from a wasm loop, so one host call's cost is the time over n.
(module
  (import "wasi_snapshot_preview1" "fd_write" (func $write (param i32 i32 i32 i32) (result i32)))
  (import "wasi_snapshot_preview1" "clock_time_get" (func $now (param i32 i64 i32) (result i32)))
  (memory (export "memory") 1)
  ;; iovec at 16: 16 bytes at 32
  (data (i32.const 16) "\20\00\00\00\10\00\00\00")
  (data (i32.const 32) "sixteen bytes!!\n")
  ;; fd_write of 16 bytes to stdout, n times; the ORed errnos.
  (func (export "write") (param $n i32) (result i32)
    (local $err i32)
    (loop $l
      (local.set $err (i32.or (local.get $err)
        (call $write (i32.const 1) (i32.const 16) (i32.const 1) (i32.const 8))))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $err))
  ;; clock_time_get of the monotonic clock, n times.
  (func (export "now") (param $n i32) (result i32)
    (local $err i32)
    (loop $l
      (local.set $err (i32.or (local.get $err) (call $now (i32.const 1) (i64.const 1) (i32.const 0))))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $err)))
