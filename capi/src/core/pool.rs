//! WAMR's `Alloc_With_Pool`: the embedder gives `wasm_runtime_full_init` a
//! buffer (WAMR's `basic` sample: 512 KiB), and what the runtime allocates
//! on its behalf must fit in it.
//!
//! The memory itself still comes from the C allocator and the kernel (the
//! buffer is not carved up: Rust's allocations cannot be placed in it); the
//! pool is a budget of the buffer's size, charged with what WAMR takes from
//! its pool and released when that is freed:
//!
//! - a loaded module: its binary, its compiled code and the code's tables
//!   (WAMR: the loader's structures);
//! - an instance: its VMContext (globals, table and memory definitions,
//!   function references), its tables' elements, and a fixed part for the
//!   store and the C layer's bookkeeping (WAMR: the instance structures);
//! - an exec env: its `stack_size`, as WAMR's holds the wasm stack of that
//!   size (the instance's singleton too, with the instance's stack size);
//! - `wasm_runtime_malloc`/`_realloc` blocks, at their usable size.
//!
//! Linear memories are not charged, as WAMR 2.4's are not: it maps them
//! with `mmap`, outside the pool, and an app heap lives inside linear
//! memory. A module that a pool fits under WAMR therefore fits here too.
//!
//! Exhaustion fails as WAMR's does: `wasm_runtime_load` with "WASM module
//! load failed: allocate memory failed", instantiation with "WASM module
//! instantiate failed: allocate memory failed", `wasm_runtime_malloc` and
//! `wasm_runtime_create_exec_env` with NULL.
//! `wasm_runtime_get_mem_alloc_info` reports the budget.

use std::sync::{Mutex, MutexGuard};

/// The budget of the running pool, if the runtime was initialised with one.
struct Pool {
    /// Counts initialisations with a pool, so that a charge made under an
    /// earlier one is not released into a later one.
    generation: u64,
    capacity: usize,
    used: usize,
    highmark: usize,
}

static POOL: Mutex<Option<Pool>> = Mutex::new(None);
static GENERATION: Mutex<u64> = Mutex::new(0);

fn pool() -> MutexGuard<'static, Option<Pool>> {
    POOL.lock().unwrap_or_else(|e| e.into_inner())
}

/// What an instance takes besides what its module says (its store, the
/// instance's own structures and the C layer's): glibc's `mallinfo2`
/// counted 1,877 heap bytes per instance of an empty module (200
/// instances through `wasm_runtime_instantiate`), rounded up.
pub(crate) const INSTANCE_OVERHEAD: usize = 2 * 1024;

/// Starts a pool of `capacity` bytes (`wasm_runtime_full_init` with
/// `Alloc_With_Pool`), or none.
pub fn start(capacity: Option<usize>) {
    let mut generation = GENERATION.lock().unwrap_or_else(|e| e.into_inner());
    *generation += 1;
    *pool() = capacity.map(|capacity| Pool { generation: *generation, capacity, used: 0, highmark: 0 });
}

/// Bytes charged to the pool, released when dropped.
#[derive(Debug, Default)]
pub struct Charge {
    bytes: usize,
    generation: u64,
}

/// Charges `bytes`: `None` when a pool is running and they do not fit.
/// Without a pool everything fits, and nothing is held.
pub fn charge(bytes: usize) -> Option<Charge> {
    let mut guard = pool();
    let Some(p) = guard.as_mut() else { return Some(Charge::default()) };
    if bytes > p.capacity - p.used {
        return None;
    }
    p.used += bytes;
    p.highmark = p.highmark.max(p.used);
    Some(Charge { bytes, generation: p.generation })
}

impl Drop for Charge {
    fn drop(&mut self) {
        if self.bytes > 0 {
            release(self.bytes, self.generation);
        }
    }
}

fn release(bytes: usize, generation: u64) {
    if let Some(p) = pool().as_mut().filter(|p| p.generation == generation) {
        p.used = p.used.saturating_sub(bytes);
    }
}

/// For blocks of `wasm_runtime_malloc`, whose size is known again at
/// `free` (`malloc_usable_size`): charges `bytes` and forgets the charge,
/// false when they do not fit. Its generation is the current one.
pub fn charge_block(bytes: usize) -> bool {
    match charge(bytes) {
        Some(c) => {
            std::mem::forget(c);
            true
        }
        None => false,
    }
}

/// Releases a block's `bytes` charged by [`charge_block`].
pub fn release_block(bytes: usize) {
    let generation = pool().as_ref().map_or(0, |p| p.generation);
    release(bytes, generation);
}

/// Whether a pool is running.
pub fn active() -> bool {
    pool().is_some()
}

/// The pool's size, what is free of it and the most ever used.
pub fn info() -> Option<(usize, usize, usize)> {
    pool().as_ref().map(|p| (p.capacity, p.capacity - p.used, p.highmark))
}
