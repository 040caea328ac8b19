;; hello: one imported host function, called with a value it must see, whose
;; result the export passes back.
(module
  (import "host" "hello" (func $hello (param i32) (result i32)))
  (func (export "run") (param i32) (result i32)
    (i32.add (call $hello (local.get 0)) (i32.const 1))))
