//! [`VMMemory`]: a linear memory's storage, its reservation and growth.
//!
//! A memory reserves its whole address range when it is created and never
//! moves: growing only makes more of the reservation accessible. With
//! guard pages (the default) the reservation is 8 GiB — every address a
//! 32-bit index plus a 32-bit offset can form — so compiled code needs no
//! bounds checks. With explicit checks it is just the maximum size.

use std::sync::Arc;

use super::memory_image::MemoryImage;
use super::memory_pool::{MemoryPool, Reservation};
use super::stored::StoreOwned;
use crate::config::BoundsChecks;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::runtime::store::StoreOpaque;
use crate::types::MemoryType;
use crate::vmctx::VMMemoryDefinition;

pub const WASM_PAGE_SIZE: usize = 65536;
/// Pages addressable with a 32-bit index.
pub const MAX_PAGES: u32 = 65536;
/// Reservation with guard pages: 4 GiB of index space, 4 GiB of offsets.
const GUARDED_RESERVATION: usize = 8 << 30;

/// A memory's storage. Instances point at `definition`, so it comes first.
#[repr(C)]
pub struct VMMemory {
    pub(crate) definition: VMMemoryDefinition,
    reservation: Option<Reservation>,
    /// Where the reservation goes back to, for guarded memories.
    pool: Option<Arc<MemoryPool>>,
    ty: MemoryType,
    /// The instance that defined this memory (None for host-created ones).
    pub(crate) owner: Option<usize>,
}

impl VMMemory {
    /// A memory of type `ty` for `engine`'s bounds-check mode.
    pub fn new(ty: MemoryType, engine: &Engine) -> Result<VMMemory> {
        let max = ty.limits.max.unwrap_or(MAX_PAGES).min(MAX_PAGES);
        if ty.limits.min > max {
            return Err(Error::Resource(format!("memory minimum {} exceeds its maximum", ty.limits.min)));
        }
        let (reservation, pool) = match engine.config().bounds_checks {
            BoundsChecks::GuardPages => {
                let pool = engine.memory_pool().clone();
                (pool.take(GUARDED_RESERVATION)?, Some(pool))
            }
            BoundsChecks::Explicit => {
                let size = (max as usize * WASM_PAGE_SIZE).max(region::page::size());
                (Reservation::new(size)?, None)
            }
        };
        let mut memory = VMMemory {
            definition: VMMemoryDefinition { base: reservation.base(), length: 0 },
            reservation: Some(reservation),
            pool,
            ty,
            owner: None,
        };
        let initial = ty.limits.min as usize * WASM_PAGE_SIZE;
        memory.reservation_mut().set_accessible(initial)?;
        memory.definition.length = initial;
        Ok(memory)
    }

    fn reservation_mut(&mut self) -> &mut Reservation {
        self.reservation.as_mut().expect("present until drop")
    }

    /// Current size in pages.
    pub fn pages(&self) -> u32 {
        (self.definition.length / WASM_PAGE_SIZE) as u32
    }

    /// Current size in bytes.
    pub fn byte_size(&self) -> usize {
        self.definition.length
    }

    /// The largest size this memory may grow to, in pages.
    pub fn max_pages(&self) -> u32 {
        self.ty.limits.max.unwrap_or(MAX_PAGES).min(MAX_PAGES)
    }

    /// The memory's type with its current size as minimum, as import
    /// matching sees it.
    pub fn ty(&self) -> MemoryType {
        MemoryType::new(self.pages(), self.ty.limits.max)
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
    pub fn grow(&mut self, delta: u32) -> Option<u32> {
        let old = self.pages();
        let new = old.checked_add(delta)?;
        if new > self.max_pages() {
            return None;
        }
        let end = new as usize * WASM_PAGE_SIZE;
        if end > self.reservation_mut().len() {
            return None;
        }
        self.reservation_mut().set_accessible(end).ok()?;
        self.definition.length = end;
        Some(old)
    }

    /// Maps `image` as this new memory's initial contents, in place of
    /// copying its module's data segments.
    pub(crate) fn map_image(&mut self, image: &MemoryImage) -> Result<()> {
        self.reservation_mut().map_image(image)
    }

    /// The accessible bytes.
    pub fn data(&self) -> &[u8] {
        // SAFETY: the first `length` bytes are mapped read+write.
        unsafe { std::slice::from_raw_parts(self.definition.base, self.definition.length) }
    }

    /// The accessible bytes, mutably.
    pub fn data_mut(&mut self) -> &mut [u8] {
        // SAFETY: as above, and `&mut self` gives exclusive access.
        unsafe { std::slice::from_raw_parts_mut(self.definition.base, self.definition.length) }
    }
}

impl Drop for VMMemory {
    fn drop(&mut self) {
        if let (Some(pool), Some(r)) = (&self.pool, self.reservation.take()) {
            pool.give(r);
        }
    }
}

impl StoreOwned for VMMemory {
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>> {
        &mut store.memories
    }
}
