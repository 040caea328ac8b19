//! [`VMMemory`]: a linear memory of a store, its reservation and growth.
//!
//! A memory reserves its whole address range when it is created and never
//! moves: growing only makes more of the reservation accessible. With
//! guard pages (the default) the reservation is 8 GiB — every address a
//! 32-bit index plus a 32-bit offset can form — and a 64 KiB tail
//! (`GUARD_TAIL_BYTES`), so compiled code needs no
//! bounds checks for 32-bit memories of 64 KiB pages. 64-bit memories (at
//! most 4 GiB here, `MAX_MEMORY_BYTES`) use the same reservation, whose
//! upper half is then the guard region of a one-compare check. With
//! explicit checks it is just the maximum size.
//!
//! Sizes are in bytes; pages are of the memory type's size (64 KiB, or 1
//! byte with the custom-page-sizes proposal).
//!
//! A shared memory's storage is a [`VMSharedMemory`] that several stores
//! (on several threads) hold at once; each store's `VMMemory` then only
//! refers to it, and compiled code reads the shared extent.

use std::sync::Arc;

use super::memory_image::MemoryImage;
use super::memory_pool::{MemoryPool, Reservation};
use super::shared_memory::VMSharedMemory;
use super::store::StoreOpaque;
use super::stored::StoreOwned;
use crate::environ::config::BoundsChecks;
use crate::environ::error::{Error, Result};
use crate::environ::types::{max_pages, MemoryType, GUARDED_RESERVATION_BYTES};
use crate::environ::vmctx::VMMemoryDefinition;
use crate::runtime::engine::Engine;

/// Reservation with guard pages: 4 GiB of index space, 4 GiB of offsets
/// (compiled code relies on its size, see `compile::func_env::bounds64`).
const GUARDED_RESERVATION: usize = GUARDED_RESERVATION_BYTES as usize;

/// A reservation whose first bytes are accessible: the storage of local
/// and shared memories alike. It goes back to the engine's pool (guarded
/// reservations) or to the system when dropped.
pub struct LinearStorage {
    reservation: Option<Reservation>,
    /// Where the reservation goes back to, for guarded memories.
    pool: Option<Arc<MemoryPool>>,
    /// Whether the reservation covers every address compiled code without
    /// bounds checks can form.
    guarded: bool,
}

impl LinearStorage {
    /// A reservation for memories of type `ty` in `engine`'s bounds-check
    /// mode, with its minimum size accessible (and zero).
    pub fn new(ty: &MemoryType, engine: &Engine) -> Result<LinearStorage> {
        let max = max_pages(ty);
        if ty.minimum() > max {
            return Err(Error::Resource(format!("memory minimum {} exceeds its maximum", ty.minimum())));
        }
        let (reservation, pool, guarded) = match engine.config().bounds_checks {
            BoundsChecks::GuardPages => {
                let pool = engine.memory_pool().clone();
                (pool.take(GUARDED_RESERVATION)?, Some(pool), true)
            }
            BoundsChecks::Explicit => {
                let size = ((max << ty.page_size_log2()) as usize).max(region::page::size());
                (Reservation::new(size)?, None, false)
            }
        };
        let mut storage = LinearStorage { reservation: Some(reservation), pool, guarded };
        storage.reservation_mut().set_accessible((ty.minimum() << ty.page_size_log2()) as usize)?;
        Ok(storage)
    }

    fn reservation_mut(&mut self) -> &mut Reservation {
        self.reservation.as_mut().expect("present until drop")
    }

    /// Base address of the reservation; it never changes.
    pub fn base(&self) -> *mut u8 {
        self.reservation.as_ref().expect("present until drop").base()
    }

    /// Whether code compiled for `mode` may use this storage: code without
    /// bounds checks needs the guarded reservation.
    pub fn suits(&self, mode: BoundsChecks) -> bool {
        self.guarded || mode == BoundsChecks::Explicit
    }

    /// Grows a memory of type `ty` and `old_bytes` by `delta` pages: the
    /// old size in pages and the new size in bytes, or `None` past the
    /// maximum or when the host refuses the memory.
    pub fn grow(&mut self, ty: &MemoryType, old_bytes: usize, delta: u64) -> Option<(u64, usize)> {
        let old = old_bytes as u64 >> ty.page_size_log2();
        let new = old.checked_add(delta)?;
        if new > max_pages(ty) {
            return None;
        }
        let end = (new << ty.page_size_log2()) as usize;
        if end > self.reservation_mut().len() {
            return None;
        }
        self.reservation_mut().set_accessible(end).ok()?;
        Some((old, end))
    }
}

impl Drop for LinearStorage {
    fn drop(&mut self) {
        if let (Some(pool), Some(r)) = (&self.pool, self.reservation.take()) {
            pool.give(r);
        }
    }
}

/// Where a memory's bytes are.
enum Storage {
    /// Owned by this memory alone; `VMMemory::definition` is its extent.
    Local(LinearStorage),
    /// Shared with other stores; its extent is the shared one.
    Shared(Arc<VMSharedMemory>),
}

/// A memory of a store. Instances reach it through
/// [`definition_ptr`](Self::definition_ptr).
pub struct VMMemory {
    /// The extent of a local memory (unused for a shared one).
    definition: VMMemoryDefinition,
    storage: Storage,
    ty: MemoryType,
    /// The instance that defined this memory (None for host-created ones).
    pub(crate) owner: Option<usize>,
}

impl VMMemory {
    /// A memory of type `ty` for `engine`'s bounds-check mode: a new shared
    /// memory when `ty` is shared.
    pub fn new(ty: MemoryType, engine: &Engine) -> Result<VMMemory> {
        if ty.is_shared() {
            return VMMemory::from_shared(Arc::new(VMSharedMemory::new(ty, engine)?), engine);
        }
        let storage = LinearStorage::new(&ty, engine)?;
        let definition =
            VMMemoryDefinition { base: storage.base(), length: (ty.minimum() << ty.page_size_log2()) as usize };
        Ok(VMMemory { definition, storage: Storage::Local(storage), ty, owner: None })
    }

    /// This store's view of `shared`; fails when code of `engine` could not
    /// use its reservation (see [`LinearStorage::suits`]).
    pub fn from_shared(shared: Arc<VMSharedMemory>, engine: &Engine) -> Result<VMMemory> {
        if !shared.suits(engine.config().bounds_checks) {
            return Err(Error::Resource(
                "a shared memory made for explicit bounds checks cannot be used by an engine with guard pages".into(),
            ));
        }
        let ty = shared.ty();
        let definition = VMMemoryDefinition { base: shared.base(), length: 0 };
        Ok(VMMemory { definition, storage: Storage::Shared(shared), ty, owner: None })
    }

    /// The extent compiled code reads: this memory's own, or the shared one.
    pub fn definition_ptr(&mut self) -> *mut VMMemoryDefinition {
        match &self.storage {
            Storage::Local(_) => &mut self.definition,
            Storage::Shared(s) => s.definition_ptr(),
        }
    }

    /// The shared storage, if this memory is shared.
    pub fn shared(&self) -> Option<&Arc<VMSharedMemory>> {
        match &self.storage {
            Storage::Local(_) => None,
            Storage::Shared(s) => Some(s),
        }
    }

    /// Current size in pages (of the type's page size).
    pub fn pages(&self) -> u64 {
        self.byte_size() as u64 >> self.ty.page_size_log2()
    }

    /// Current size in bytes.
    #[inline]
    pub fn byte_size(&self) -> usize {
        match &self.storage {
            Storage::Local(_) => self.definition.length,
            Storage::Shared(s) => s.byte_size(),
        }
    }

    /// The largest size this memory may grow to, in pages.
    pub fn max_pages(&self) -> u64 {
        max_pages(&self.ty)
    }

    /// The memory's type with its current size as minimum, as import
    /// matching sees it.
    pub fn ty(&self) -> MemoryType {
        self.ty.with_min(self.pages())
    }

    /// The type the memory was created (or declared) with.
    pub fn declared_ty(&self) -> MemoryType {
        self.ty
    }

    /// Base address of the accessible bytes; it never changes.
    #[inline]
    pub fn base(&self) -> *mut u8 {
        self.definition.base
    }

    /// Grows by `delta` pages; the old size in pages, or `None` past the
    /// maximum or when the host refuses the memory.
    pub fn grow(&mut self, delta: u64) -> Option<u64> {
        match &mut self.storage {
            Storage::Local(storage) => {
                let (old, end) = storage.grow(&self.ty, self.definition.length, delta)?;
                self.definition.length = end;
                Some(old)
            }
            Storage::Shared(s) => s.grow(delta),
        }
    }

    /// Maps `image` as this new memory's initial contents, in place of
    /// copying its module's data segments. Shared memories have no images
    /// (see `Module::memory_images`).
    pub(crate) fn map_image(&mut self, image: &MemoryImage) -> Result<()> {
        match &mut self.storage {
            Storage::Local(storage) => storage.reservation_mut().map_image(image),
            Storage::Shared(_) => Err(Error::Resource("a shared memory has no copy-on-write image".into())),
        }
    }

    /// The accessible bytes. Other threads may write a shared memory's
    /// bytes meanwhile (see [`SharedMemory`](crate::SharedMemory)).
    pub fn data(&self) -> &[u8] {
        // SAFETY: the first `byte_size` bytes are mapped read+write, and
        // stay so while the memory (owned by the borrowed store) lives.
        unsafe { std::slice::from_raw_parts(self.base(), self.byte_size()) }
    }

    /// The accessible bytes, mutably.
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` gives exclusive access within
        // the store (other threads only reach a shared memory's bytes).
        unsafe { std::slice::from_raw_parts_mut(self.base(), self.byte_size()) }
    }
}

impl StoreOwned for VMMemory {
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>> {
        &mut store.memories
    }
}
