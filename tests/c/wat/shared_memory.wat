;; shared_memory: a shared memory the module defines and exports, and an
;; atomic counter in it (the threads proposal).
(module
  (memory (export "mem") 1 4 shared)
  ;; add(x): atomically mem[0] += x, returning the old value
  (func (export "add") (param i32) (result i32)
    (i32.atomic.rmw.add (i32.const 0) (local.get 0))))
