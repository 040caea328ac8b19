;; Inlining inside `try_table`: a small callee called in a handler's body
;; is compiled into the caller as any other call is, so a call that may
;; throw costs what a plain call costs (here: nothing, it is gone). Its
;; throw stays a call of the runtime's `throw`, now a `try_call` to the
;; caller's handler, which the runtime finds from that call's return
;; address (vm::exception::throw_at).
(module
  (tag $e (param i32))
  (global $sink (mut i32) (i32.const 0))
  (func $work (param i32) (result i32)
    (if (i32.gt_u (local.get 0) (i32.const 1000)) (then (throw $e (local.get 0))))
    (global.set $sink (i32.add (global.get $sink) (local.get 0)))
    (i32.add (local.get 0) (i32.const 1)))
  (func $caller (param i32) (result i32)
    (block $caught (result i32)
      (try_table (result i32) (catch $e $caught)
        (call $work (local.get 0))))))
