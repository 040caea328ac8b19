//! [`SharedMemory`]: a linear memory shared between threads (the threads
//! proposal), usable by several stores at once.
//!
//! Stores are single-threaded, so threads that run wasm on one memory each
//! have their own store (and instance); the memory itself is this handle,
//! which is `Send + Sync` and cheap to clone. In a store it appears as an
//! ordinary [`Memory`] ([`SharedMemory::to_memory`]), so it is imported,
//! exported and matched like any memory; [`Memory::to_shared`] gives the
//! handle back.
//!
//! The memory is reserved at its maximum when created and never moves, so
//! [`data_ptr`](SharedMemory::data_ptr) and [`data`](SharedMemory::data)
//! stay valid for as long as the handle lives, however it grows.

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::time::Duration;

use super::memory::Memory;
use super::store::{AsContext, AsContextMut};
use super::vm::memory::VMMemory;
use super::vm::parking_lot;
use super::vm::shared_memory::VMSharedMemory;
use super::vm::stored::Stored;
use crate::environ::error::{Error, Result};
use crate::environ::trap::{Trap, TrapCode};
use crate::environ::types::MemoryType;
use crate::runtime::engine::Engine;

pub use super::vm::parking_lot::WaitResult;

/// A shared linear memory.
///
/// ```
/// use cranewasm::{Engine, MemoryType, SharedMemory};
/// let engine = Engine::default();
/// let memory = SharedMemory::new(&engine, MemoryType::shared(1, 4))?;
/// let other_thread = memory.clone();
/// std::thread::spawn(move || other_thread.grow(1)).join().unwrap()?;
/// assert_eq!(memory.size(), 2);
/// # Ok::<(), cranewasm::Error>(())
/// ```
#[derive(Clone)]
pub struct SharedMemory(pub(crate) Arc<VMSharedMemory>);

impl SharedMemory {
    /// A new shared memory of type `ty`, which must be shared
    /// ([`MemoryType::shared`]); its bounds-check mode is `engine`'s.
    pub fn new(engine: &Engine, ty: MemoryType) -> Result<SharedMemory> {
        if !ty.is_shared() {
            return Err(Error::Usage("SharedMemory::new needs a shared memory type".into()));
        }
        Ok(SharedMemory(Arc::new(VMSharedMemory::new(ty, engine)?)))
    }

    /// The memory's type, with its current size as minimum.
    pub fn ty(&self) -> MemoryType {
        self.0.ty().with_min(self.size())
    }

    /// Current size in pages (of the type's page size).
    pub fn size(&self) -> u64 {
        self.0.byte_size() as u64 >> self.0.ty().page_size_log2()
    }

    /// Current size in bytes. It only ever grows.
    pub fn data_size(&self) -> usize {
        self.0.byte_size()
    }

    /// Grows by `delta` pages and returns the old size; an
    /// [`Error::MemoryGrow`] past the maximum. Atomic with respect to other
    /// threads' growth and `memory.size`.
    pub fn grow(&self, delta: u64) -> Result<u64> {
        self.0.grow(delta).ok_or(Error::MemoryGrow { delta })
    }

    /// Base address of the memory: valid for reads and writes of
    /// [`data_size`](Self::data_size) bytes for as long as this handle (or
    /// any clone, or a store using the memory) lives. Other threads may
    /// access the bytes at the same time: use atomics or synchronise.
    pub fn data_ptr(&self) -> *mut u8 {
        self.0.base()
    }

    /// The current bytes, as cells other threads may change at any time.
    pub fn data(&self) -> &[UnsafeCell<u8>] {
        // SAFETY: the first `data_size` bytes are mapped read+write for as
        // long as `self` lives (the memory never moves or shrinks), and
        // `UnsafeCell` makes no promise that nobody else writes them.
        unsafe { std::slice::from_raw_parts(self.0.base().cast::<UnsafeCell<u8>>(), self.0.byte_size()) }
    }

    /// The memory as a [`Memory`] of `store`, to import into instances or
    /// use with the `Memory` API there. Fails when the store's engine
    /// compiles without bounds checks and this memory was made by an engine
    /// that checks them (its reservation has no guard pages).
    pub fn to_memory(&self, mut store: impl AsContextMut) -> Result<Memory> {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let memory = VMMemory::from_shared(self.0.clone(), store.engine())?;
        Ok(Memory(Stored::push(store, memory)))
    }

    /// The host address of the `size`-byte cell at `addr`, checked as an
    /// atomic access is: aligned, then in bounds.
    fn cell(&self, addr: u64, size: u64) -> Result<usize> {
        if !addr.is_multiple_of(size) {
            return Err(Trap::from_code(TrapCode::HeapMisaligned).into());
        }
        match addr.checked_add(size) {
            Some(end) if end <= self.0.byte_size() as u64 => Ok(self.0.base() as usize + addr as usize),
            _ => Err(Trap::from_code(TrapCode::MemoryOutOfBounds).into()),
        }
    }

    /// `memory.atomic.notify` from the host: wakes up to `count` threads
    /// waiting on the 4-byte cell at `addr`; how many were woken.
    pub fn atomic_notify(&self, addr: u64, count: u32) -> Result<u32> {
        Ok(parking_lot::notify(self.cell(addr, 4)?, count))
    }

    /// `memory.atomic.wait32` from the host: waits while the 4-byte cell at
    /// `addr` holds `expected`, until notified or `timeout` passes (none:
    /// forever).
    pub fn atomic_wait32(&self, addr: u64, expected: u32, timeout: Option<Duration>) -> Result<WaitResult> {
        let cell = self.cell(addr, 4)?;
        // SAFETY: an aligned cell inside the memory, which `self` keeps
        // mapped for the whole wait.
        Ok(unsafe { parking_lot::wait(cell, expected, timeout) })
    }

    /// `memory.atomic.wait64` from the host, on an 8-byte cell.
    pub fn atomic_wait64(&self, addr: u64, expected: u64, timeout: Option<Duration>) -> Result<WaitResult> {
        let cell = self.cell(addr, 8)?;
        // SAFETY: as in `atomic_wait32`.
        Ok(unsafe { parking_lot::wait(cell, expected, timeout) })
    }
}

impl std::fmt::Debug for SharedMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedMemory").field("base", &self.0.base()).field("size", &self.size()).finish()
    }
}

impl Memory {
    /// The shared memory behind this memory, if it is shared: a handle
    /// other threads (and their stores) can use.
    pub fn to_shared(&self, store: impl AsContext) -> Option<SharedMemory> {
        self.0.get(store.as_context().opaque()).shared().cloned().map(SharedMemory)
    }
}
