;; multi_value: functions with several results, both ways across the API,
;; and long parameter lists.
(module
  (import "host" "swap4"
    (func $swap4 (param i32 i64 f32 f64) (result f64 f32 i64 i32)))
  (import "host" "triple" (func $triple (result i32 i32 i32)))
  (import "host" "sum20"
    (func $sum20 (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
                        i64 i64 i64 i64 i64 i64 i64 i64 i64 i64)
                 (result i64)))
  ;; Passes its arguments through the host's swap4 and returns what it gave.
  (func (export "via_host") (param i32 i64 f32 f64)
                            (result f64 f32 i64 i32)
    (call $swap4 (local.get 0) (local.get 1) (local.get 2) (local.get 3)))
  ;; (q, r) of an unsigned division.
  (func (export "divmod") (param i32 i32) (result i32 i32)
    (i32.div_u (local.get 0) (local.get 1))
    (i32.rem_u (local.get 0) (local.get 1)))
  ;; Eight results of mixed types.
  (func (export "eight") (result i32 i64 f32 f64 i32 i64 f32 f64)
    (i32.const 1) (i64.const 2) (f32.const 3.5) (f64.const 4.25)
    (i32.const -5) (i64.const -6) (f32.const -7.5) (f64.const -8.25))
  ;; a*100 + b*10 + c of the host's three results.
  (func (export "from_triple") (result i32)
    (local $a i32) (local $b i32) (local $c i32)
    (call $triple)
    (local.set $c) (local.set $b) (local.set $a)
    (i32.add (i32.add (i32.mul (local.get $a) (i32.const 100))
                      (i32.mul (local.get $b) (i32.const 10)))
             (local.get $c)))
  ;; 20 parameters into wasm (first + 1000 * last + 10 * the 10th), and
  ;; 20 into the host.
  (func (export "weigh20")
    (param i64 i64 i64 i64 i64 i64 i64 i64 i64 i64
           i64 i64 i64 i64 i64 i64 i64 i64 i64 i64) (result i64)
    (i64.add (i64.add (local.get 0) (i64.mul (local.get 19) (i64.const 1000)))
             (i64.mul (local.get 9) (i64.const 10))))
  (func (export "host_sum20") (result i64)
    (call $sum20 (i64.const 1) (i64.const 2) (i64.const 3) (i64.const 4)
                 (i64.const 5) (i64.const 6) (i64.const 7) (i64.const 8)
                 (i64.const 9) (i64.const 10) (i64.const 11) (i64.const 12)
                 (i64.const 13) (i64.const 14) (i64.const 15) (i64.const 16)
                 (i64.const 17) (i64.const 18) (i64.const 19)
                 (i64.const 20))))
