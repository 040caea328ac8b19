;; export_wamr_multi_module.c: mA, which the module reader supplies:
;; a function, a constant and a mutable global, a memory.
(module
  (func (export "A1") (result i32) (i32.const 11))
  (global (export "g") i32 (i32.const 7))
  (global $c (export "counter") (mut i32) (i32.const 100))
  (func (export "bump") (result i32)
    (global.set $c (i32.add (global.get $c) (i32.const 1)))
    (global.get $c))
  (memory (export "mem") 1)
  (func (export "peek") (param i32) (result i32) (i32.load (local.get 0))))
