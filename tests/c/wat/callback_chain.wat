;; callback_chain: wasm -> host -> wasm -> host, and a recursion that
;; alternates between wasm and the host for many levels.
(module
  (import "host" "h1" (func $h1 (param i32) (result i32)))
  (import "host" "h2" (func $h2 (param i32) (result i32)))
  (import "host" "down" (func $down (param i32) (result i32)))
  ;; w1(x) = 2 * h1(x + 1)
  (func (export "w1") (param i32) (result i32)
    (i32.mul (call $h1 (i32.add (local.get 0) (i32.const 1))) (i32.const 2)))
  ;; w2(x) = h2(3 * x) + 5
  (func (export "w2") (param i32) (result i32)
    (i32.add (call $h2 (i32.mul (local.get 0) (i32.const 3))) (i32.const 5)))
  ;; level(n) = down(n): the host calls level(n - 1) until n = 0.
  (func (export "level") (param i32) (result i32)
    (call $down (local.get 0))))
