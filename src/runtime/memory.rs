//! Linear memories: reservation, growth, and the [`Memory`] handle.
//!
//! A memory reserves its whole address range when it is created and never
//! moves: growing only makes more of the reservation accessible. With
//! guard pages (the default) the reservation is 8 GiB — every address a
//! 32-bit index plus a 32-bit offset can form — so compiled code needs no
//! bounds checks. With explicit checks it is just the maximum size.

use std::ptr::NonNull;
use std::sync::Arc;

use super::memory_pool::{MemoryPool, Reservation};
use crate::engine::Engine;

use super::store::{AsContext, AsContextMut, StoreId, StoreOpaque};
use crate::config::BoundsChecks;
use crate::error::{Error, Result};
use crate::types::MemoryType;
use crate::vmctx::VMMemoryDefinition;

pub const WASM_PAGE_SIZE: usize = 65536;
/// Pages addressable with a 32-bit index.
pub const MAX_PAGES: u32 = 65536;
/// Reservation with guard pages: 4 GiB of index space, 4 GiB of offsets.
const GUARDED_RESERVATION: usize = 8 << 30;

/// A memory's storage. Instances point at `definition`, so it comes first.
#[repr(C)]
pub struct LinearMemory {
    pub(crate) definition: VMMemoryDefinition,
    reservation: Option<Reservation>,
    /// Where the reservation goes back to, for guarded memories.
    pool: Option<Arc<MemoryPool>>,
    ty: MemoryType,
    /// The instance that defined this memory (None for host-created ones).
    pub(crate) owner: Option<usize>,
}

// SAFETY: the reservation is plain memory owned by this object; access is
// serialised by the owning store.
unsafe impl Send for LinearMemory {}

impl LinearMemory {
    /// A memory of type `ty` for `engine`'s bounds-check mode.
    pub fn new(ty: MemoryType, engine: &Engine) -> Result<LinearMemory> {
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
        let mut memory = LinearMemory {
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

impl Drop for LinearMemory {
    fn drop(&mut self) {
        if let (Some(pool), Some(r)) = (&self.pool, self.reservation.take()) {
            pool.give(r);
        }
    }
}

/// A linear memory in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Memory {
    pub(crate) store: StoreId,
    pub(crate) ptr: NonNull<LinearMemory>,
}

// SAFETY: a handle is an id; it is only dereferenced with its store.
unsafe impl Send for Memory {}
// SAFETY: a shared `&Memory` only lets one copy the id and pointer; every
// dereference still goes through its store, which is borrowed for it.
unsafe impl Sync for Memory {}

impl Memory {
    /// A new memory of type `ty` in the store.
    pub fn new(mut store: impl AsContextMut, ty: MemoryType) -> Result<Memory> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let engine = store.engine().clone();
        Ok(Memory::from_owned(store, LinearMemory::new(ty, &engine)?))
    }

    pub(crate) fn from_owned(store: &mut StoreOpaque, memory: LinearMemory) -> Memory {
        let mut boxed = Box::new(memory);
        let ptr = NonNull::from(&mut *boxed);
        store.memories.push(boxed);
        Memory { store: store.id(), ptr }
    }

    #[inline]
    pub(crate) fn get<'a>(&self, store: &'a StoreOpaque) -> &'a LinearMemory {
        store.assert_owns(self.store);
        // SAFETY: the store owns the memory and outlives the borrow.
        unsafe { self.ptr.as_ref() }
    }

    #[allow(clippy::mut_from_ref)]
    #[inline]
    pub(crate) fn get_mut<'a>(&self, store: &'a mut StoreOpaque) -> &'a mut LinearMemory {
        store.assert_owns(self.store);
        // SAFETY: as above; `&mut StoreOpaque` gives exclusive access.
        unsafe { &mut *self.ptr.as_ptr() }
    }

    /// The memory's type, with its current size as minimum.
    pub fn ty(&self, store: impl AsContext) -> MemoryType {
        self.get(store.as_context().opaque()).ty()
    }

    /// The type the memory was created (or declared) with, whatever it has
    /// grown to since: what WAMR's C API reports.
    pub fn declared_ty(&self, store: impl AsContext) -> MemoryType {
        self.get(store.as_context().opaque()).ty
    }

    /// Current size in 64 KiB pages.
    pub fn size(&self, store: impl AsContext) -> u32 {
        self.get(store.as_context().opaque()).pages()
    }

    /// Current size in bytes.
    pub fn data_size(&self, store: impl AsContext) -> usize {
        self.get(store.as_context().opaque()).byte_size()
    }

    /// Grows by `delta` pages and returns the old size, or an error past
    /// the maximum.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u32) -> Result<u32> {
        self.get_mut(store.as_context_mut().opaque())
            .grow(delta)
            .ok_or_else(|| Error::Usage(format!("memory cannot grow by {delta} pages")))
    }

    /// The memory's bytes.
    pub fn data<'a, T: 'a>(&self, store: impl Into<super::store::StoreContext<'a, T>>) -> &'a [u8] {
        let cx = store.into();
        self.get(&cx.0.opaque).data()
    }

    /// The memory's bytes, mutably.
    pub fn data_mut<'a, T: 'a>(&self, store: impl Into<super::store::StoreContextMut<'a, T>>) -> &'a mut [u8] {
        let cx = store.into();
        self.get_mut(&mut cx.0.opaque).data_mut()
    }

    /// Base address of the memory. It stays valid as the memory grows.
    pub fn data_ptr(&self, store: impl AsContext) -> *mut u8 {
        self.get(store.as_context().opaque()).definition.base
    }

    /// Copies `buf.len()` bytes out of the memory from `offset`.
    pub fn read(&self, store: impl AsContext, offset: usize, buf: &mut [u8]) -> Result<()> {
        let cx = store.as_context();
        let data = self.get(cx.opaque()).data();
        let src = offset.checked_add(buf.len()).and_then(|end| data.get(offset..end));
        buf.copy_from_slice(src.ok_or_else(|| Error::Usage("memory read out of bounds".into()))?);
        Ok(())
    }

    /// Copies `buf` into the memory at `offset`.
    pub fn write(&self, mut store: impl AsContextMut, offset: usize, buf: &[u8]) -> Result<()> {
        let mut cx = store.as_context_mut();
        let data = self.get_mut(cx.opaque()).data_mut();
        let dst = offset.checked_add(buf.len()).and_then(|end| data.get_mut(offset..end));
        dst.ok_or_else(|| Error::Usage("memory write out of bounds".into()))?.copy_from_slice(buf);
        Ok(())
    }
}
