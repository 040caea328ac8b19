;; Exception costs, the same module for us and for wasmtime
;; (benches/exceptions.rs, benches/exceptions_compare.py). Each export runs
;; its case n times in one call, so the time is compiled code's.
(module
  (tag $e (param i32))
  (global $sink (mut i32) (i32.const 0))
  ;; A callee that does a little work and returns.
  (func $work (param i32) (result i32)
    (global.set $sink (i32.add (global.get $sink) (local.get 0)))
    (i32.add (local.get 0) (i32.const 1)))
  ;; Throws after `depth` more frames.
  (func $throw_at (param $depth i32) (param $x i32)
    (if (i32.eqz (local.get $depth)) (then (throw $e (local.get $x))))
    (call $throw_at (i32.sub (local.get $depth) (i32.const 1)) (local.get $x)))
  ;; The same loop around the call, with and without the handler.
  (func (export "plain_call") (param $n i32) (result i32)
    (local $acc i32)
    (loop $l
      (block $caught (result i32)
        (local.set $acc (call $work (local.get $acc)))
        (i32.const 0))
      (drop)
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $acc))
  (func (export "call_in_try_table") (param $n i32) (result i32)
    (local $acc i32)
    (loop $l
      (block $caught (result i32)
        (try_table (catch $e $caught)
          (local.set $acc (call $work (local.get $acc))))
        (i32.const 0))
      (drop)
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $acc))
  (func $throw_catch (param $n i32) (param $depth i32) (result i32)
    (local $acc i32)
    (loop $l
      (block $caught (result i32)
        (try_table (catch $e $caught)
          (call $throw_at (local.get $depth) (local.get $n)))
        (i32.const 0))
      (local.set $acc (i32.add (local.get $acc)))
      (br_if $l (local.tee $n (i32.sub (local.get $n) (i32.const 1)))))
    (local.get $acc))
  ;; Depth 0: the callee throws, one frame up from the handler.
  (func (export "throw_catch_1") (param $n i32) (result i32)
    (call $throw_catch (local.get $n) (i32.const 0)))
  (func (export "throw_catch_10") (param $n i32) (result i32)
    (call $throw_catch (local.get $n) (i32.const 9))))
