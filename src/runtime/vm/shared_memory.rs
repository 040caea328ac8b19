//! [`VMSharedMemory`]: the storage of a shared linear memory (the threads
//! proposal), used by several stores on several threads at once.
//!
//! It is reserved once, like every memory here, and never moves, so a base
//! address taken by any thread stays valid for the memory's life. Its
//! length is the one piece of state that changes: growth takes a lock (so
//! two grows cannot interleave), makes the new pages accessible first and
//! then publishes the new length with one atomic store, so a thread that
//! sees the new size (`memory.size`, or a bounds check) can use every byte
//! of it. Compiled code of every store reads the length through the same
//! [`VMMemoryDefinition`], which lives here.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use super::memory::LinearStorage;
use crate::environ::config::BoundsChecks;
use crate::environ::error::Result;
use crate::environ::types::MemoryType;
use crate::environ::vmctx::VMMemoryDefinition;
use crate::runtime::engine::Engine;

/// [`VMMemoryDefinition`] with an atomic length: the same layout, so
/// compiled code reads it as a definition (an aligned 8-byte load, atomic
/// on every target we compile for).
#[repr(C)]
struct SharedDefinition {
    base: *mut u8,
    length: AtomicUsize,
}

const _: () = assert!(std::mem::size_of::<SharedDefinition>() == std::mem::size_of::<VMMemoryDefinition>());
const _: () =
    assert!(std::mem::offset_of!(SharedDefinition, length) == std::mem::offset_of!(VMMemoryDefinition, length));

/// A shared memory's storage.
pub struct VMSharedMemory {
    definition: SharedDefinition,
    /// The reservation; locked while growing.
    storage: Mutex<LinearStorage>,
    ty: MemoryType,
    /// Whether the reservation has guard pages (see [`LinearStorage::suits`]).
    guarded: bool,
}

// SAFETY: `base` points at the reservation this object owns for its whole
// life; the length is atomic and only written under `storage`'s lock; the
// bytes themselves are shared memory by definition, accessed through raw
// pointers (or atomics) only.
unsafe impl Send for VMSharedMemory {}
// SAFETY: as for `Send`: nothing here is reached through `&self` without
// an atomic or the lock.
unsafe impl Sync for VMSharedMemory {}

impl VMSharedMemory {
    /// A shared memory of type `ty` (which must be shared) for `engine`'s
    /// bounds-check mode, reserved at its maximum.
    pub fn new(ty: MemoryType, engine: &Engine) -> Result<VMSharedMemory> {
        debug_assert!(ty.is_shared());
        let storage = LinearStorage::new(&ty, engine)?;
        let guarded = storage.suits(BoundsChecks::GuardPages);
        let length = AtomicUsize::new((ty.minimum() << ty.page_size_log2()) as usize);
        let definition = SharedDefinition { base: storage.base(), length };
        Ok(VMSharedMemory { definition, storage: Mutex::new(storage), ty, guarded })
    }

    /// Whether code compiled for `mode` may use this memory.
    pub fn suits(&self, mode: BoundsChecks) -> bool {
        self.guarded || mode == BoundsChecks::Explicit
    }

    /// The extent compiled code reads. Code only reads it; its length is
    /// written here, atomically.
    pub fn definition_ptr(&self) -> *mut VMMemoryDefinition {
        (&self.definition as *const SharedDefinition).cast_mut().cast()
    }

    /// The type the memory was created with.
    pub fn ty(&self) -> MemoryType {
        self.ty
    }

    /// Base address; it never changes.
    pub fn base(&self) -> *mut u8 {
        self.definition.base
    }

    /// Current size in bytes.
    #[inline]
    pub fn byte_size(&self) -> usize {
        self.definition.length.load(Ordering::Acquire)
    }

    /// Grows by `delta` pages; the old size in pages, or `None` past the
    /// maximum or when the host refuses the memory. Atomic with respect to
    /// other threads' growth and size queries.
    pub fn grow(&self, delta: u64) -> Option<u64> {
        let mut storage = self.storage.lock().unwrap_or_else(|e| e.into_inner());
        // Only grows, all under this lock, write the length.
        let current = self.definition.length.load(Ordering::Relaxed);
        let (old, end) = storage.grow(&self.ty, current, delta)?;
        // Release: the pages made accessible above are usable by whoever
        // reads the new length.
        self.definition.length.store(end, Ordering::Release);
        Some(old)
    }
}
