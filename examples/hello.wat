;; Imports a host function and exports one that calls it.
(module
  (import "host" "greet" (func $greet (param i32 i32)))
  (import "host" "square" (func $square (param i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "Hello from WebAssembly!")
  (func (export "run") (param i32) (result i32)
    (call $greet (i32.const 16) (i32.const 23))
    (i32.add (call $square (local.get 0)) (i32.const 1))))
