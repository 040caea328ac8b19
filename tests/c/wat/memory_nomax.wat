;; memory_nomax: a memory without a maximum.
(module (memory (export "mem") 1))
