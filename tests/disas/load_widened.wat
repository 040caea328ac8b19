;; A pointer loaded from memory, tested against null, then dereferenced:
;; the loaded i32 is used both as an i32 (the test) and zero-extended (as
;; an address). It is loaded at 64 bits (`uload32.i64`, with an `ireduce`
;; for the test), so no `movl %eax, %eax` zero-extends it again before the
;; dereference (`Config::widen_loads`). A pointer carried around a loop in
;; a block parameter is not covered: its extension reads the parameter.
(module
  (memory 1)
  (func $deref (param $q i32) (result i32)
    (local $p i32)
    (if (result i32) (i32.eqz (local.tee $p (i32.load (local.get $q))))
      (then (i32.const 0))
      (else (i32.add (i32.load (local.get $p)) (i32.load offset=4 (local.get $p)))))))
