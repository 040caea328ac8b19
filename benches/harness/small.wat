;; The "small module" of the overhead benchmarks (C harness and Rust micro
;; benchmarks): a little of everything a typical module declares, so that
;; compiling and instantiating it does representative work.
(module
  (type $i32_i32 (func (param i32) (result i32)))
  (import "env" "host_inc" (func $host_inc (type $i32_i32)))
  (memory (export "memory") 1)
  (global $calls (mut i32) (i32.const 0))
  (table 4 funcref)
  (elem (i32.const 0) $inc $dec $host_loop $inc)
  (data (i32.const 16) "cranewasm benchmark data segment")

  ;; call_i32: the cheapest possible i32 -> i32 export.
  (func $inc (export "inc") (type $i32_i32)
    (i32.add (local.get 0) (i32.const 1)))

  (func $dec (type $i32_i32)
    (global.set $calls (i32.add (global.get $calls) (i32.const 1)))
    (i32.sub (local.get 0) (i32.const 1)))

  ;; host_roundtrip: n wasm -> host -> wasm calls; returns host_inc applied n
  ;; times to 0, i.e. n.
  (func $host_loop (export "host_loop") (param $n i32) (result i32)
    (local $acc i32)
    (block $done
      (loop $again
        (br_if $done (i32.eqz (local.get $n)))
        (local.set $acc (call $host_inc (local.get $acc)))
        (local.set $n (i32.sub (local.get $n) (i32.const 1)))
        (br $again)))
    (local.get $acc))

  ;; Reads back what the host wrote through wasm_memory_data.
  (func (export "load") (param $addr i32) (result i32)
    (i32.load8_u (local.get $addr))))
