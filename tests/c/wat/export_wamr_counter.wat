;; export_wamr_host_threads.c: a counter in a shared memory, and what the
;; thread manager needs to spawn exec envs (WAMR's aux stack).
(module
  (memory 2 2 shared)
  (global $sp (mut i32) (i32.const 66560))
  (global (export "__heap_base") i32 (i32.const 70000))
  (global (export "__data_end") i32 (i32.const 1024))
  (func (export "add") (param $n i32)
    (loop $l
      (drop (i32.atomic.rmw.add (i32.const 0) (i32.const 1)))
      (local.set $n (i32.sub (local.get $n) (i32.const 1)))
      (br_if $l (local.get $n))))
  (func (export "get") (result i32) (i32.atomic.load (i32.const 0))))
