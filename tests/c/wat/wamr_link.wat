;; wamr_link: imports of all four kinds, interleaved, for WAMR's grouping of
;; wasm_module_imports (functions, globals, memories, tables) and its linking
;; by kind and position. Memory and table come from "env", the module name
;; WAMR can satisfy them from; the exports read back what was linked.
(module
  (import "env" "g1" (global $g1 i32))
  (import "host" "f1" (func $f1 (result i32)))
  (import "env" "mem" (memory 1 2))
  (import "host" "g2" (global $g2 (mut i64)))
  (import "env" "tab" (table 2 4 funcref))
  (import "host" "f2" (func $f2 (param i32) (result i32)))
  (func (export "call_f1") (result i32) (call $f1))
  (func (export "call_f2") (param i32) (result i32) (call $f2 (local.get 0)))
  (func (export "get_g1") (result i32) (global.get $g1))
  (func (export "get_g2") (result i64) (global.get $g2))
  (func (export "set_g2") (param i64) (global.set $g2 (local.get 0)))
  (func (export "load") (param i32) (result i32) (i32.load8_u (local.get 0)))
  (func (export "store") (param i32 i32) (i32.store8 (local.get 0) (local.get 1)))
  (func (export "tab_size") (result i32) (table.size 0)))
