;; `select` on `eqz` of a local whose result is stored back to that local,
;; after other code: wasmi 2.0.0 picked the wrong operand (found by the
;; differential fuzzer in wasm-smith's division guards).
(module
  (global $g (mut i32) (i32.const 1))
  (func (export "f") (param i32) (result i32) (local i32)
    global.get $g
    drop
    local.get 0
    local.set 1
    i32.const 1
    local.get 1
    local.get 1
    i32.eqz
    select
    local.set 1
    local.get 1)
  (func (export "div") (param i32) (result i32) (local i32)
    global.get $g
    if
    end
    local.get 0
    local.set 1
    i32.const 1
    local.get 1
    local.get 1
    i32.eqz
    select
    local.set 1
    i32.const 100
    local.get 1
    i32.div_s))
