;; What tests/cross.sh runs compiled for aarch64 on x86-64 and natively on
;; aarch64: calls through a table (and its traps), other traps, exceptions
;; caught and uncaught, SIMD, atomics on a shared memory (LSE or not), and
;; memory and table growth. Each export takes and returns integers, so that
;; `iwasm -f NAME ARGS` prints its result.
(module
  (type $unop (func (param i32) (result i32)))
  (type $binop (func (param i32 i32) (result i32)))
  (memory 1 4 shared)
  (table $t 4 16 funcref)
  (tag $e (param i32))
  (elem (table $t) (i32.const 0) func $double $square $negate)
  (elem declare func $add)

  (func $double (type $unop) (i32.mul (local.get 0) (i32.const 2)))
  (func $square (type $unop) (i32.mul (local.get 0) (local.get 0)))
  (func $negate (type $unop) (i32.sub (i32.const 0) (local.get 0)))
  (func $add (type $binop) (i32.add (local.get 0) (local.get 1)))

  ;; Slot 3 is null, 4 and up are past the table; $add in slot 3 has the
  ;; wrong type for `$unop`.
  (func (export "dispatch") (param $i i32) (param $x i32) (result i32)
    (call_indirect $t (type $unop) (local.get $x) (local.get $i)))
  (func (export "put_add") (result i32)
    (table.set $t (i32.const 3) (ref.func $add))
    (call_indirect $t (type $unop) (i32.const 5) (i32.const 3)))
  (func (export "grow_table") (param i32) (result i32)
    (drop (table.grow $t (ref.func $square) (local.get 0)))
    (i32.add (table.size $t)
      (call_indirect $t (type $unop) (i32.const 9) (i32.sub (table.size $t) (i32.const 1)))))

  (func (export "div") (param i32 i32) (result i32) (i32.div_s (local.get 0) (local.get 1)))
  (func (export "load") (param i32) (result i32) (i32.load (local.get 0)))
  (func (export "grow_memory") (param i32) (result i32)
    (drop (memory.grow (local.get 0)))
    (i32.store (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 4)) (i32.const 42))
    (i32.add (memory.size) (i32.load (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 4)))))
  (func (export "unreachable") (result i32) unreachable)
  (func $deep (param i32) (result i32)
    (if (result i32) (i32.eqz (local.get 0))
      (then (i32.const 0))
      (else (i32.add (i32.const 1) (call $deep (i32.sub (local.get 0) (i32.const 1)))))))
  (func (export "recurse") (param i32) (result i32) (call $deep (local.get 0)))

  (func $thrower (param i32) (result i32)
    (if (i32.eqz (local.get 0)) (then (return (i32.const 7))))
    (throw $e (local.get 0)))
  (func (export "catch") (param i32) (result i32)
    (block $h (result i32)
      (try_table (result i32) (catch $e $h) (call $thrower (local.get 0)))
      (return))
    (i32.add (i32.const 1000)))
  (func (export "uncaught") (param i32) (result i32) (call $thrower (local.get 0)))

  ;; Lanes of integer and float vector arithmetic folded into one number.
  (func (export "simd") (param $x i32) (result i64)
    (local $v v128) (local $f v128)
    (local.set $v (i32x4.mul (i32x4.splat (local.get $x)) (v128.const i32x4 1 2 3 4)))
    (local.set $v (i32x4.add (local.get $v) (i8x16.shuffle 4 5 6 7 0 1 2 3 12 13 14 15 8 9 10 11 (local.get $v) (local.get $v))))
    (local.set $f (f32x4.sqrt (f32x4.convert_i32x4_s (local.get $v))))
    (i64.add
      (i64.extend_i32_u (i32x4.extract_lane 2 (local.get $v)))
      (i64.add
        (i64.shl (i64.extend_i32_u (i32x4.extract_lane 1 (i32x4.trunc_sat_f32x4_s (local.get $f)))) (i64.const 32))
        (i64.extend_i32_u (i8x16.bitmask (i8x16.lt_s (local.get $v) (v128.const i32x4 0 0 0 0)))))))

  ;; Atomic read-modify-writes: LSE instructions on a CPU with them,
  ;; load/store-exclusive loops without (ARMv8.0, the cross target's baseline).
  (func (export "atomics") (param $n i32) (result i64)
    (local $i i32)
    (loop $l
      (drop (i32.atomic.rmw.add (i32.const 64) (local.get $i)))
      (drop (i64.atomic.rmw.xor (i32.const 72) (i64.extend_i32_u (i32.mul (local.get $i) (i32.const 2654435761)))))
      (drop (i32.atomic.rmw.cmpxchg (i32.const 80) (local.get $i) (i32.add (local.get $i) (i32.const 1))))
      (br_if $l (i32.lt_u (local.tee $i (i32.add (local.get $i) (i32.const 1))) (local.get $n))))
    (i64.add (i64.atomic.load (i32.const 72))
      (i64.extend_i32_u (i32.add (i32.atomic.load (i32.const 64)) (i32.atomic.load (i32.const 80)))))))
