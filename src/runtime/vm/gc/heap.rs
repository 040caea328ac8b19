//! A store's GC heap (issue 40, stage 2): one reservation of 4 GiB plus a
//! guard, committed as allocation reaches it, in which objects are named
//! by their 32-bit offset. Compiled code bumps `VMStoreContext::gc_top`
//! within `gc_limit` and calls [`GcHeap::alloc`] (through the `gc_alloc`
//! builtin) when the chunk is exhausted. There is no collector yet: the
//! heap only grows, up to the store's limit, and is freed with the store.

use crate::environ::gc_layout::{ALIGN, HEADER};
use crate::environ::vmctx::VMStoreContext;

/// What an offset can reach: every 32-bit offset, plus a guard past it
/// for the field offsets compiled code adds to a (corrupted) reference,
/// so that no reference word can address memory outside the reservation.
/// Struct fields lie within 10,000 fields of 16 bytes of their start.
const RESERVATION: usize = (1 << 32) + (4 << 20);

/// Bytes committed at a time (fewer calls of the slow path, fewer
/// `mprotect`s).
const CHUNK: usize = 1 << 20;

/// The default bound of a store's heap when its limiter sets none.
pub const DEFAULT_MAX_BYTES: usize = 1 << 30;

/// The first offset handed out: offset 0 stays unused, so that no object
/// is at the address the null word would point at.
const FIRST: u32 = HEADER;

/// A store's GC heap. Its allocation state (top and limit) lives in the
/// store context, where compiled code bumps it.
pub(crate) struct GcHeap {
    /// The reservation's start, null until the first object.
    base: *mut u8,
    /// Bytes readable and writable from `base`.
    committed: usize,
}

impl Default for GcHeap {
    fn default() -> GcHeap {
        GcHeap { base: std::ptr::null_mut(), committed: 0 }
    }
}

impl GcHeap {
    /// `size` bytes (a multiple of [`ALIGN`]) for a new object, zeroed, at
    /// the offset returned; `None` when the heap would pass `max` bytes.
    /// `vm` is the store's context, whose top and limit move.
    pub(crate) fn alloc(&mut self, vm: &mut VMStoreContext, size: u64, max: usize) -> Option<u32> {
        debug_assert_eq!(size % u64::from(ALIGN), 0);
        let max = max.min(u32::MAX as usize & !(ALIGN as usize - 1));
        if self.base.is_null() {
            self.reserve()?;
            vm.gc_base = self.base;
            vm.gc_top = FIRST;
        }
        let top = vm.gc_top as usize;
        let end = usize::try_from(size).ok().and_then(|s| top.checked_add(s)).filter(|e| *e <= max)?;
        if end > self.committed {
            let want = end.div_ceil(CHUNK) * CHUNK;
            self.commit(want.min(max.div_ceil(page_size()) * page_size()))?;
        }
        vm.gc_top = end as u32;
        // The fast path must never pass `max`, nor the committed part.
        vm.gc_limit = self.committed.min(max) as u32;
        Some(top as u32)
    }

    /// The address of offset `o`, which an allocation returned (with
    /// room for what the caller reads or writes there).
    pub(crate) fn at(&self, o: u32) -> *mut u8 {
        debug_assert!((o as usize) < self.committed);
        // SAFETY: `o` is below the committed size, inside the reservation.
        unsafe { self.base.add(o as usize) }
    }

    fn reserve(&mut self) -> Option<()> {
        // SAFETY: a fresh anonymous mapping, inaccessible until committed;
        // nothing else refers to it.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                RESERVATION,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return None;
        }
        self.base = p.cast();
        Some(())
    }

    /// Makes the first `len` bytes accessible (fresh pages read as zero).
    fn commit(&mut self, len: usize) -> Option<()> {
        if len <= self.committed {
            return None;
        }
        // SAFETY: `committed..len` lies within our own reservation.
        let r = unsafe {
            libc::mprotect(
                self.base.add(self.committed).cast(),
                len - self.committed,
                libc::PROT_READ | libc::PROT_WRITE,
            )
        };
        if r != 0 {
            return None;
        }
        self.committed = len;
        Some(())
    }
}

fn page_size() -> usize {
    // SAFETY: sysconf has no preconditions.
    unsafe { libc::sysconf(libc::_SC_PAGESIZE) as usize }
}

impl Drop for GcHeap {
    fn drop(&mut self) {
        if !self.base.is_null() {
            // SAFETY: the reservation is ours; the store that owned the heap,
            // and with it every reference into it, is going away.
            unsafe { libc::munmap(self.base.cast(), RESERVATION) };
        }
    }
}
