//! The [`Memory`] handle: a linear memory of a store, as the embedder sees
//! it. The storage is a [`VMMemory`](super::vm::memory::VMMemory).

use super::store::{AsContext, AsContextMut, StoreContext, StoreContextMut};
use super::vm::limits::GrowSite;
use super::vm::memory::VMMemory;
use super::vm::stored::Stored;
use crate::environ::error::{Error, Result};
use crate::environ::types::MemoryType;

/// A linear memory in a store.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Memory(pub(crate) Stored<VMMemory>);

impl Memory {
    /// A new memory of type `ty` in the store.
    pub fn new(mut store: impl AsContextMut, ty: MemoryType) -> Result<Memory> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let memory = store.create_memory(ty, 0)?;
        Ok(Memory(Stored::push(store, memory)))
    }

    /// The memory's type, with its current size as minimum.
    pub fn ty(&self, store: impl AsContext) -> MemoryType {
        self.0.get(store.as_context().opaque()).ty()
    }

    /// The type the memory was created (or declared) with, whatever it has
    /// grown to since: what WAMR's C API reports.
    pub fn declared_ty(&self, store: impl AsContext) -> MemoryType {
        self.0.get(store.as_context().opaque()).declared_ty()
    }

    /// The most pages the memory can grow to: its maximum, at most 4 GiB,
    /// and for a memory of 64 KiB pages declared smaller than 4 GiB at
    /// most 65,535 (see `Config::address_steps`).
    pub fn max_size(&self, store: impl AsContext) -> u64 {
        self.0.get(store.as_context().opaque()).max_pages()
    }

    /// Current size in pages: of 64 KiB, or of the size the memory type
    /// gives ([`MemoryType::page_size`]). 64-bit wide for 64-bit memories
    /// and 1-byte pages.
    pub fn size(&self, store: impl AsContext) -> u64 {
        self.0.get(store.as_context().opaque()).pages()
    }

    /// Current size in bytes.
    #[inline]
    pub fn data_size(&self, store: impl AsContext) -> usize {
        self.0.get(store.as_context().opaque()).byte_size()
    }

    /// Grows by `delta` pages and returns the old size; an
    /// [`Error::MemoryGrow`] past the maximum, when the store's
    /// [`ResourceLimiter`](crate::ResourceLimiter) refuses, or when the
    /// host has no memory for it.
    pub fn grow(&self, mut store: impl AsContextMut, delta: u64) -> Result<u64> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let memory = self.0.get_mut(store);
        let site = GrowSite { instance: memory.owner, memory_index: None };
        let memory: *mut VMMemory = memory;
        // SAFETY: the memory belongs to `store` (checked by `get_mut`) and
        // no reference to it is kept across the call.
        unsafe { store.grow_memory(memory, delta, site) }.ok_or(Error::MemoryGrow { delta })
    }

    /// The memory's bytes. For a shared memory, other threads may change
    /// them meanwhile: use [`SharedMemory::data`](crate::SharedMemory::data)
    /// (cells) or atomics where that matters.
    pub fn data<'a, T: 'a>(&self, store: impl Into<StoreContext<'a, T>>) -> &'a [u8] {
        self.0.get(store.into().into_opaque()).data()
    }

    /// The memory's bytes, mutably (exclusive within the store; other
    /// threads may still reach a shared memory's bytes, as for
    /// [`data`](Self::data)).
    pub fn data_mut<'a, T: 'a>(&self, store: impl Into<StoreContextMut<'a, T>>) -> &'a mut [u8] {
        self.0.get_mut(store.into().into_opaque()).data_mut()
    }

    /// Base address of the memory. It stays valid as the memory grows.
    #[inline]
    pub fn data_ptr(&self, store: impl AsContext) -> *mut u8 {
        self.0.get(store.as_context().opaque()).base()
    }

    /// Copies `buf.len()` bytes out of the memory from `offset`; an
    /// [`Error::MemoryAccess`] when they are not all inside it.
    pub fn read(&self, store: impl AsContext, offset: usize, buf: &mut [u8]) -> Result<()> {
        let cx = store.as_context();
        let data = self.0.get(cx.opaque()).data();
        let src = offset.checked_add(buf.len()).and_then(|end| data.get(offset..end));
        buf.copy_from_slice(src.ok_or(Error::MemoryAccess { offset, len: buf.len() })?);
        Ok(())
    }

    /// Copies `buf` into the memory at `offset`; an [`Error::MemoryAccess`]
    /// when it does not fit.
    pub fn write(&self, mut store: impl AsContextMut, offset: usize, buf: &[u8]) -> Result<()> {
        let mut cx = store.as_context_mut();
        let data = self.0.get_mut(cx.opaque()).data_mut();
        let dst = offset.checked_add(buf.len()).and_then(|end| data.get_mut(offset..end));
        dst.ok_or(Error::MemoryAccess { offset, len: buf.len() })?.copy_from_slice(buf);
        Ok(())
    }
}
