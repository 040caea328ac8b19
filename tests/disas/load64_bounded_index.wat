;; A 64-bit memory under guard pages: an address whose definition keeps
;; the access inside the 8 GiB reservation needs no check at all, as a
;; 32-bit index needs none (compile/func_env/ranges.rs bounds it). C's
;; `table[i & 0xff]` built for wasm64 is a constant table address plus the
;; zero-extended, masked and shifted index; a static array indexed by an
;; `unsigned` is its address plus the zero-extended index. Whatever of it
;; lies past the length faults in the reservation.
(module
  (memory i64 1)
  (func $lookup (param i32) (result i32)
    (i32.load
      (i64.add
        (i64.const 1024)
        (i64.shl (i64.extend_i32_u (i32.and (local.get 0) (i32.const 255))) (i64.const 2)))))
  (func $static_array (param i32) (result i32)
    (i32.load8_u (i64.add (i64.const 65536) (i64.extend_i32_u (local.get 0))))))
