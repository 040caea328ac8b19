;; A 64-bit memory (memory64) under guard pages: three accesses at one
;; index with offsets the guard region covers share one compare of the
;; index with a constant (4 GiB: the reservation and its guard region
;; cover the rest, as for a 32-bit index; no length is loaded), and one
;; conditional move (`select_spectre_guard`) that replaces an index past
;; 4 GiB with 4 GiB: no branch to a trap, no speculative access outside
;; the memory, and the accesses keep base + index + offset addressing; the
;; fault in the guard region is the trap.
(module
  (memory i64 1)
  (func $sum3 (param i64) (result i64)
    (i64.add
      (i64.add (i64.load (local.get 0)) (i64.load offset=8 (local.get 0)))
      (i64.load offset=16 (local.get 0))))
  ;; clang's other form: the address stepped by an i64.add of a constant.
  ;; Once the index is known to be within the length (at most 4 GiB), the
  ;; step cannot wrap and the guard region covers it: still one compare.
  (func $sum2_stepped (param i64) (result i64)
    (i64.add (i64.load (local.get 0)) (i64.load (i64.add (local.get 0) (i64.const 8))))))
