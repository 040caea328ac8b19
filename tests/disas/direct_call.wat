;; config: inlining=off
;; A call between functions of the module is a direct `call` (patched at
;; link time), passing the caller's VMContext on; no load of a function
;; pointer.
(module
  (func $callee (param i32) (result i32)
    (i32.add (local.get 0) (i32.const 1)))
  (func $caller (param i32) (result i32)
    (call $callee (local.get 0))))
