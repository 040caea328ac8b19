//! Resource limits: how much memory, how many table elements, instances,
//! memories and tables a store may use, decided by a [`ResourceLimiter`]
//! the embedder gives the store; and the report of a memory growth that
//! failed, for hosts that log or react to it (WAMR's
//! `wasm_runtime_set_enlarge_mem_error_callback`).
//!
//! The runtime asks the limiter before every growth and creation
//! (`memory.grow`, `table.grow`, their host API counterparts, and the
//! memories and tables instantiation creates) and before every
//! instantiation. A refused growth is a failure the guest sees
//! (`memory.grow` returns -1) and the host API reports
//! ([`Error::MemoryGrow`](crate::Error::MemoryGrow)); a refused creation
//! fails the instantiation or constructor with [`Error::Resource`](crate::Error::Resource).

use super::instance::Instance;
use super::store::{forward_to_opaque, StoreOpaque};
use super::vm::limits::GrowFailure;
pub use super::vm::limits::{GrowFailureReason, MemoryGrowth, ResourceLimiter};
use crate::environ::types::MemoryType;

/// A ready-made [`ResourceLimiter`] with fixed caps; build it with
/// [`StoreLimits::builder`]. Every cap is absent unless set.
#[derive(Clone, Debug, Default)]
pub struct StoreLimits {
    memory_size: Option<usize>,
    instance_memory: Option<usize>,
    total_memory: Option<usize>,
    table_elements: Option<u32>,
    instances: Option<usize>,
    memories: Option<usize>,
    tables: Option<usize>,
    gc_heap: Option<usize>,
}

impl StoreLimits {
    /// A builder with no caps.
    pub fn builder() -> StoreLimitsBuilder {
        StoreLimitsBuilder(StoreLimits::default())
    }
}

/// Builds [`StoreLimits`].
#[derive(Clone, Debug)]
pub struct StoreLimitsBuilder(StoreLimits);

impl StoreLimitsBuilder {
    /// The most bytes one memory may have.
    pub fn memory_size(mut self, bytes: usize) -> Self {
        self.0.memory_size = Some(bytes);
        self
    }

    /// The most bytes the memories one instance defines may have together.
    pub fn instance_memory(mut self, bytes: usize) -> Self {
        self.0.instance_memory = Some(bytes);
        self
    }

    /// The most bytes all the store's memories may have together.
    pub fn total_memory(mut self, bytes: usize) -> Self {
        self.0.total_memory = Some(bytes);
        self
    }

    /// The most elements one table may have.
    pub fn table_elements(mut self, elements: u32) -> Self {
        self.0.table_elements = Some(elements);
        self
    }

    /// The most instances the store may hold.
    pub fn instances(mut self, n: usize) -> Self {
        self.0.instances = Some(n);
        self
    }

    /// The most memories the store may hold.
    pub fn memories(mut self, n: usize) -> Self {
        self.0.memories = Some(n);
        self
    }

    /// The most tables the store may hold.
    pub fn tables(mut self, n: usize) -> Self {
        self.0.tables = Some(n);
        self
    }

    /// The most bytes the store's GC heap may hold: its live objects and
    /// those made since the last collection (at most 2 GiB; default
    /// 1 GiB). A collection briefly needs as much again for the copies.
    pub fn gc_heap_size(mut self, bytes: usize) -> Self {
        self.0.gc_heap = Some(bytes);
        self
    }

    /// The limits.
    pub fn build(self) -> StoreLimits {
        self.0
    }
}

impl ResourceLimiter for StoreLimits {
    fn memory_growing(&mut self, g: &MemoryGrowth) -> bool {
        let added = g.desired - g.current;
        let within =
            |cap: Option<usize>, total: usize| cap.is_none_or(|c| total.checked_add(added).is_some_and(|t| t <= c));
        within(self.memory_size, g.current)
            && within(self.instance_memory, g.instance_total)
            && within(self.total_memory, g.store_total)
    }

    fn table_growing(&mut self, _current: u32, desired: u32, _maximum: Option<u32>) -> bool {
        self.table_elements.is_none_or(|cap| desired <= cap)
    }

    fn instances(&self) -> usize {
        self.instances.unwrap_or(usize::MAX)
    }

    fn memories(&self) -> usize {
        self.memories.unwrap_or(usize::MAX)
    }

    fn tables(&self) -> usize {
        self.tables.unwrap_or(usize::MAX)
    }

    fn gc_heap_bytes(&self) -> usize {
        self.gc_heap.unwrap_or(crate::runtime::vm::gc::heap::DEFAULT_MAX_BYTES)
    }
}

/// Limits of one instantiation ([`Instance::new_with_limits`]): WAMR's
/// `InstantiationArgs`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct InstanceLimits {
    /// Lowers the maximum of every memory the instance defines to this many
    /// pages, as WAMR's `max_memory_pages` does: never below a memory's
    /// initial size, never above its declared maximum. `None` (or 0, as
    /// in WAMR) keeps the declared maximums.
    pub max_memory_pages: Option<u32>,
}

impl InstanceLimits {
    /// Limits that lower memory maximums to `pages` (see
    /// [`max_memory_pages`](Self::max_memory_pages)).
    pub fn max_memory_pages(pages: u32) -> InstanceLimits {
        InstanceLimits { max_memory_pages: Some(pages) }
    }

    /// The type a memory declared as `ty` gets in the instance.
    pub fn memory_type(&self, ty: MemoryType) -> MemoryType {
        let mut ty = ty;
        if let Some(pages) = self.max_memory_pages.filter(|p| *p != 0) {
            // A memory without a maximum may have 65536 pages. Only the
            // maximum changes: a shared memory stays shared.
            let declared = ty.maximum().unwrap_or(1 << 16).max(ty.minimum());
            ty = ty.with_max(Some(u64::from(pages).clamp(ty.minimum(), declared)));
        }
        ty
    }
}

/// A memory growth that failed: what a store's
/// [`on_memory_grow_failure`](crate::Store::on_memory_grow_failure) callback gets.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct MemoryGrowFailure {
    /// The pages asked for.
    pub delta_pages: u64,
    /// The memory's size in bytes, unchanged.
    pub current_bytes: usize,
    /// The memory's index in the instance below, when known.
    pub memory_index: Option<u32>,
    /// The instance whose `memory.grow` failed, or for a growth through
    /// the host API the instance that defines the memory; `None` for a
    /// memory the host created.
    pub instance: Option<Instance>,
    /// Why.
    pub reason: GrowFailureReason,
}

impl StoreOpaque {
    /// Puts the store's memories, tables and instances under `limiter`,
    /// replacing any earlier one. What already exists stays as it is.
    pub fn set_limiter(&mut self, limiter: impl ResourceLimiter + 'static) {
        self.limits.limiter = Some(Box::new(limiter));
    }

    /// Calls `f` whenever a memory of the store fails to grow, from
    /// `memory.grow` or from [`Memory::grow`](crate::Memory::grow), before
    /// the failure is returned. `f` runs in the middle of the guest's call:
    /// it must not call into the store.
    pub fn on_memory_grow_failure(&mut self, mut f: impl FnMut(&MemoryGrowFailure) + Send + 'static) {
        let store = self.id();
        self.limits.on_grow_failure = Some(Box::new(move |g: &GrowFailure| {
            f(&MemoryGrowFailure {
                delta_pages: g.delta_pages,
                current_bytes: g.current_bytes,
                memory_index: g.memory_index,
                instance: g.instance.map(|index| Instance { store, index }),
                reason: g.reason,
            })
        }));
    }

    /// The bytes of all memories of the store.
    pub fn memory_bytes(&self) -> usize {
        self.limits.memory_bytes
    }
}

forward_to_opaque! {
    /// See [`StoreOpaque::set_limiter`].
    fn set_limiter(&mut self, limiter: impl ResourceLimiter + 'static);
    /// See [`StoreOpaque::on_memory_grow_failure`].
    fn on_memory_grow_failure(&mut self, f: impl FnMut(&MemoryGrowFailure) + Send + 'static);
    /// See [`StoreOpaque::memory_bytes`].
    fn memory_bytes(&mut self) -> usize;
}
