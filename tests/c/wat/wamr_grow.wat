;; wamr_grow: a memory of 1 to 10 pages that wasm grows, for the cap of
;; InstantiationArgs.max_memory_pages.
(module
  (memory 1 10)
  (func (export "grow") (param i32) (result i32) (memory.grow (local.get 0))))
