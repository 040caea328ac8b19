;; wamr_start: a start function that traps, for the text of an
;; instantiation that fails.
(module (func $start (unreachable)) (start $start))
