;; Exceptions as values at the host boundary: results, a global and a table
;; of exnref, and uncaught ones. They were read as externrefs whose data was
;; the exception's memory.
(module
  (tag $e (export "e") (param i32 i64))
  (global $g (export "g") (mut exnref) (ref.null exn))
  (table $t (export "t") 2 exnref)
  (func $catch (export "catch") (param i32) (result exnref)
    (block $h (result exnref)
      (try_table (catch_all_ref $h) (throw $e (local.get 0) (i64.const 7)))
      (ref.null exn)))
  (func (export "keep") (param i32)
    (global.set $g (call $catch (local.get 0)))
    (table.set $t (i32.and (local.get 0) (i32.const 1)) (call $catch (local.get 0))))
  (func (export "rethrow") (param i32) (throw_ref (call $catch (local.get 0))))
  (func (export "rethrow_global") (throw_ref (global.get $g))))
