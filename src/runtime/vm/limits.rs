//! A store's resource accounting, and every creation and growth of a
//! memory or table under its [`ResourceLimiter`]: the one place where
//! instantiation, the builtins and the host API ask before they allocate.

use super::instance::VMInstance;
use super::memory::VMMemory;
use super::store::StoreOpaque;
use super::table::VMTable;
use crate::environ::error::{Error, Result};
use crate::environ::module_info::ModuleInfo;
use crate::environ::types::{MemoryType, TableType};

/// A memory about to grow (or be created, from `current` 0), as a
/// [`ResourceLimiter`] sees it. Sizes are in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryGrowth {
    /// The memory's size now.
    pub current: usize,
    /// Its size after the growth.
    pub desired: usize,
    /// Its declared maximum, if any.
    pub maximum: Option<usize>,
    /// The size of all memories of the instance that defines this one (or
    /// of this memory alone, for one the host created), now.
    pub instance_total: usize,
    /// The size of all the store's memories now.
    pub store_total: usize,
}

/// Decides whether a store may grow or create memories and tables, and how
/// many instances, memories and tables it may hold. Set with
/// [`Store::set_limiter`](crate::Store::set_limiter).
pub trait ResourceLimiter: Send {
    /// Whether the memory may grow as `growth` says. Refusing makes
    /// `memory.grow` return -1 (and [`Memory::grow`](crate::Memory::grow)
    /// fail); refusing a creation fails the instantiation.
    fn memory_growing(&mut self, growth: &MemoryGrowth) -> bool;

    /// Whether a table may grow from `current` to `desired` elements
    /// (`current` 0: a creation). `maximum` is its declared maximum.
    fn table_growing(&mut self, current: u32, desired: u32, maximum: Option<u32>) -> bool;

    /// The most instances the store may hold at once.
    fn instances(&self) -> usize {
        usize::MAX
    }

    /// The most memories (defined by instances or created by the host) the
    /// store may hold at once.
    fn memories(&self) -> usize {
        usize::MAX
    }

    /// The most tables the store may hold at once.
    fn tables(&self) -> usize {
        usize::MAX
    }

    /// The most bytes the store's GC heap of struct and array objects may
    /// hold (1 GiB unless said; at most 4 GiB). An allocation past it traps
    /// with [`OutOfMemory`](crate::Trap::OutOfMemory).
    fn gc_heap_bytes(&self) -> usize {
        super::gc::heap::DEFAULT_MAX_BYTES
    }
}

/// Why a memory could not grow.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GrowFailureReason {
    /// The growth would pass the memory's maximum (declared, or lowered
    /// with [`InstanceLimits::max_memory_pages`](crate::InstanceLimits)).
    MaximumReached,
    /// The store's [`ResourceLimiter`] refused it.
    LimitReached,
    /// The host could not provide the memory.
    HostRefused,
}

/// A memory growth that failed, as the store's callback gets it (the
/// public `MemoryGrowFailure` names the instance by handle).
pub(crate) struct GrowFailure {
    pub delta_pages: u64,
    pub current_bytes: usize,
    pub memory_index: Option<u32>,
    /// The index in the store of the instance it concerns.
    pub instance: Option<usize>,
    pub reason: GrowFailureReason,
}

/// What the store calls when a memory fails to grow (see
/// [`Store::on_memory_grow_failure`](crate::Store::on_memory_grow_failure)).
pub(crate) type GrowFailureCallback = Box<dyn FnMut(&GrowFailure) + Send>;

/// What a store counts, and what limits it.
#[derive(Default)]
pub(crate) struct Limits {
    pub(crate) limiter: Option<Box<dyn ResourceLimiter>>,
    pub(crate) on_grow_failure: Option<GrowFailureCallback>,
    /// Bytes of all live memories.
    pub(crate) memory_bytes: usize,
    /// Live memories, tables and instances.
    memories: usize,
    tables: usize,
    instances: usize,
}

/// Where a memory growth comes from, for the failure report.
#[derive(Copy, Clone)]
pub(crate) struct GrowSite {
    /// The instance (index in the store) growing it, or that owns it.
    pub instance: Option<usize>,
    /// The memory's index in that instance.
    pub memory_index: Option<u32>,
}

fn refused(what: String) -> Error {
    Error::Resource(format!("{what}: refused by the store's resource limiter"))
}

impl Limits {
    /// Live instances.
    pub(crate) fn instance_count(&self) -> usize {
        self.instances
    }
}

impl StoreOpaque {
    /// Before instantiating a module with `info`: whether the store may
    /// hold one more instance and the memories and tables it defines.
    pub(crate) fn check_instantiation(&self, info: &ModuleInfo) -> Result<()> {
        let Some(limiter) = &self.limits.limiter else { return Ok(()) };
        let l = &self.limits;
        let memories = info.memories.len() - info.num_imported_memories;
        let tables = info.tables.len() - info.num_imported_tables;
        if l.instances >= limiter.instances() {
            return Err(refused(format!("instance {} of the store", l.instances + 1)));
        }
        if l.memories + memories > limiter.memories() {
            return Err(refused(format!("{} memories in the store", l.memories + memories)));
        }
        if l.tables + tables > limiter.tables() {
            return Err(refused(format!("{} tables in the store", l.tables + tables)));
        }
        Ok(())
    }

    /// Counts an instance that instantiation created.
    pub(crate) fn count_instance(&mut self) {
        self.limits.instances += 1;
    }

    /// A new memory of type `ty` (for an instance whose memories have
    /// `instance_total` bytes so far, or for the host), if the limiter
    /// allows it; counted in the store.
    pub(crate) fn create_memory(&mut self, ty: MemoryType, instance_total: usize) -> Result<VMMemory> {
        // Saturating: a minimum past the address space is refused below.
        let initial = usize::try_from(ty.minimum().saturating_mul(ty.page_size())).unwrap_or(usize::MAX);
        if let Some(limiter) = &mut self.limits.limiter {
            if self.limits.memories >= limiter.memories() {
                return Err(refused(format!("memory {} of the store", self.limits.memories + 1)));
            }
            let growth = MemoryGrowth {
                current: 0,
                desired: initial,
                maximum: ty.maximum().map(|m| usize::try_from(m.saturating_mul(ty.page_size())).unwrap_or(usize::MAX)),
                instance_total,
                store_total: self.limits.memory_bytes,
            };
            if !limiter.memory_growing(&growth) {
                return Err(refused(format!("memory of {} pages", ty.minimum())));
            }
        }
        let memory = VMMemory::new(ty, self.engine())?;
        self.limits.memories += 1;
        self.limits.memory_bytes += memory.byte_size();
        Ok(memory)
    }

    /// A new table of type `ty` with every element `init`, if the limiter
    /// allows it; counted in the store.
    pub(crate) fn create_table(&mut self, ty: TableType, init: usize) -> Result<VMTable> {
        if let Some(limiter) = &mut self.limits.limiter {
            if self.limits.tables >= limiter.tables() {
                return Err(refused(format!("table {} of the store", self.limits.tables + 1)));
            }
            let maximum = ty.maximum().map(|m| u32::try_from(m).unwrap_or(u32::MAX));
            if !limiter.table_growing(0, u32::try_from(ty.minimum()).unwrap_or(u32::MAX), maximum) {
                return Err(refused(format!("table of {} elements", ty.minimum())));
            }
        }
        let table = VMTable::new(ty, init)?;
        self.limits.tables += 1;
        Ok(table)
    }

    /// Grows `memory` by `delta` pages: the old size in pages, or `None`
    /// (after telling the failure callback) past its maximum, when the
    /// limiter refuses or when the host has no memory for it.
    ///
    /// # Safety
    /// `memory` must be a live memory of this store, not otherwise borrowed.
    pub(crate) unsafe fn grow_memory(&mut self, memory: *mut VMMemory, delta: u64, site: GrowSite) -> Option<u64> {
        // SAFETY: `memory` is a live memory of this store, not otherwise
        // borrowed (caller).
        unsafe {
            let (current, pages, max_pages, owner, page) = {
                let m = &*memory;
                (m.byte_size(), m.pages(), m.max_pages(), m.owner, m.declared_ty().page_size_log2())
            };
            let reason = match pages.checked_add(delta).filter(|p| *p <= max_pages) {
                None => GrowFailureReason::MaximumReached,
                Some(new_pages) => {
                    let instance_total = match owner.and_then(|i| self.instances[i].as_deref()) {
                        Some(instance) => instance.defined_memory_bytes(),
                        None => current,
                    };
                    let growth = MemoryGrowth {
                        current,
                        desired: (new_pages << page) as usize,
                        maximum: Some((max_pages << page) as usize),
                        instance_total,
                        store_total: self.limits.memory_bytes,
                    };
                    let allowed = match &mut self.limits.limiter {
                        Some(l) if delta > 0 => l.memory_growing(&growth),
                        _ => true,
                    };
                    match allowed.then(|| (*memory).grow(delta)) {
                        None => GrowFailureReason::LimitReached,
                        Some(None) => GrowFailureReason::HostRefused,
                        Some(Some(old)) => {
                            self.limits.memory_bytes += growth.desired - current;
                            return Some(old);
                        }
                    }
                }
            };
            if let Some(callback) = &mut self.limits.on_grow_failure {
                callback(&GrowFailure {
                    delta_pages: delta,
                    current_bytes: current,
                    memory_index: site.memory_index,
                    instance: site.instance,
                    reason,
                });
            }
            None
        }
    }

    /// Grows `table` by `delta` elements set to `init`: the old size, or
    /// `None` past its maximum or when the limiter refuses.
    ///
    /// # Safety
    /// `table` must be a live table of this store, not otherwise borrowed.
    pub(crate) unsafe fn grow_table(&mut self, table: *mut VMTable, delta: u32, init: usize) -> Option<u32> {
        // SAFETY: `table` is a live table of this store, not otherwise borrowed
        // (caller).
        unsafe {
            let t = &mut *table;
            let desired = t.len().checked_add(delta)?;
            if let Some(limiter) = &mut self.limits.limiter {
                let maximum = t.ty().maximum().map(|m| m as u32);
                if delta > 0 && !limiter.table_growing(t.len(), desired, maximum) {
                    return None;
                }
            }
            t.grow(delta, init)
        }
    }

    /// Forgets what a freed instance held.
    pub(crate) fn forget_instance(&mut self, instance: &VMInstance) {
        let l = &mut self.limits;
        l.instances -= 1;
        l.memories -= instance.defined_memory_count();
        l.tables -= instance.defined_table_count();
        l.memory_bytes -= instance.defined_memory_bytes();
    }
}
