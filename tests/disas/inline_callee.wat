;; Inlining: a small callee is compiled into its caller, with no call, no
;; second stack check and no VMContext shuffle; the caller's own body is
;; what remains (the callee is still compiled on its own for other
;; callers, tables and exports). The callee's trap (division by zero)
;; stays in the inlined code with its trap code. Locations written
;; `@8000000N` are inline chains (entry N of the function's table: the call
;; site's wasm offset, then the callee instruction's; see compile/inline.rs).
(module
  (func $div (param i32 i32) (result i32)
    (i32.div_u (local.get 0) (local.get 1)))
  (func $twice (param i32) (result i32)
    (i32.add (local.get 0) (local.get 0)))
  (func $caller (param i32 i32) (result i32)
    (call $twice (call $div (local.get 0) (local.get 1)))))
