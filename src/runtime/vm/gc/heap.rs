//! A store's GC heap (issue 40, stage 2): one reservation of 4 GiB plus a
//! guard, in which objects are named by their 32-bit offset. The
//! reservation holds two semispaces of 2 GiB; objects are allocated in
//! one, and the collector (`collect.rs`) copies the live ones into the
//! other and releases the first. Compiled code bumps
//! `VMStoreContext::gc_top` within `gc_limit` and calls the `gc_alloc`
//! builtin when the chunk is exhausted or the next collection is due.

use std::time::Duration;

use crate::environ::gc_layout::{ALIGN, HEADER};
use crate::environ::vmctx::VMStoreContext;

/// What an offset can reach: every 32-bit offset, plus a guard past it
/// for the field offsets compiled code adds to a (corrupted) reference,
/// so that no reference word can address memory outside the reservation.
/// Struct fields lie within 10,000 fields of 16 bytes of their start.
const RESERVATION: usize = (1 << 32) + (4 << 20);

/// The size of a semispace: space `s` holds offsets `s * HALF ..`.
const HALF: usize = 1 << 31;

/// Bytes committed at a time (fewer calls of the slow path, fewer
/// `mprotect`s).
const CHUNK: usize = 1 << 20;

/// The default bound of a store's heap when its limiter sets none.
pub const DEFAULT_MAX_BYTES: usize = 1 << 30;

/// The most one space may hold, whatever the limiter says.
pub const MAX_BYTES: usize = HALF - FIRST as usize;

/// The first offset handed out in a space: offset 0 stays unused, so
/// that no object is at the address the null word would point at.
pub(crate) const FIRST: u32 = HEADER;

/// Bytes allocated before the first collection, and at least between two:
/// small enough that a program with little live data stays small, large
/// enough that collections of a small heap are rare.
const MIN_NURSERY: usize = 4 << 20;

/// Set (to anything but `0`) in the environment, every allocation of
/// compiled code collects first (while less than 64 KiB is live): a test
/// mode that moves every object as often as possible, so that a root the
/// collector does not know shows up as a wrong value or a fault, rather
/// than in one run of many.
pub const STRESS_ENV: &str = "CRANEWASM_GC_STRESS";

/// Under stress, a heap with this much live data goes back to collecting
/// as usual: copying it at every allocation would make a test of a large
/// heap quadratic, and the roots are the same as in a small one.
const STRESS_LIVE: usize = 64 << 10;

fn stress() -> bool {
    static STRESS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *STRESS.get_or_init(|| std::env::var_os(STRESS_ENV).is_some_and(|v| v != "0"))
}

/// What the collector has done in a store, for embedders who watch pauses
/// ([`Store::gc_stats`](crate::Store::gc_stats)).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GcStats {
    /// Collections so far.
    pub collections: u64,
    /// Bytes of objects that survived the last collection.
    pub live_bytes: u64,
    /// Bytes copied by all collections.
    pub copied_bytes: u64,
    /// The longest single collection.
    pub longest_pause: Duration,
    /// All collections together.
    pub total_pause: Duration,
}

/// A store's GC heap. Its allocation state (top and limit) lives in the
/// store context, where compiled code bumps it.
pub(crate) struct GcHeap {
    /// The reservation's start, null until the first object.
    base: *mut u8,
    /// The space objects are allocated in, 0 or 1.
    space: usize,
    /// Bytes readable and writable from each space's start.
    committed: [usize; 2],
    /// Bytes of the current space in use at which the next allocation
    /// collects first.
    trigger: usize,
    pub(crate) stats: GcStats,
}

impl Default for GcHeap {
    fn default() -> GcHeap {
        let trigger = if stress() { 0 } else { MIN_NURSERY };
        GcHeap { base: std::ptr::null_mut(), space: 0, committed: [0; 2], trigger, stats: GcStats::default() }
    }
}

/// The offset where space `s` starts.
fn start(s: usize) -> usize {
    s * HALF
}

impl GcHeap {
    /// Whether the heap holds no object yet (nothing was ever reserved).
    pub(crate) fn is_empty(&self) -> bool {
        self.base.is_null()
    }

    /// Bytes of the current space in use, given the store's context `vm`.
    fn used(&self, vm: &VMStoreContext) -> usize {
        vm.gc_top as usize - start(self.space)
    }

    /// Whether allocating `size` bytes is past the trigger, or past `max`
    /// (a bound below the first trigger): time to collect.
    pub(crate) fn due(&self, vm: &VMStoreContext, size: u64, max: usize) -> bool {
        !self.is_empty() && (self.used(vm) as u64).saturating_add(size) > self.trigger.min(max) as u64
    }

    /// `size` bytes (a multiple of [`ALIGN`]) for a new object, zeroed, at
    /// the offset returned; `None` when the space would pass `max` bytes.
    /// Never collects: past the trigger it allocates all the same (the
    /// next allocation of compiled code collects). `vm` is the store's
    /// context, whose top and limit move.
    pub(crate) fn alloc(&mut self, vm: &mut VMStoreContext, size: u64, max: usize) -> Option<u32> {
        debug_assert_eq!(size % u64::from(ALIGN), 0);
        let max = max.min(MAX_BYTES) & !(ALIGN as usize - 1);
        if self.base.is_null() {
            self.reserve()?;
            vm.gc_base = self.base;
            vm.gc_top = FIRST;
        }
        let top = vm.gc_top as usize;
        let end = usize::try_from(size).ok().and_then(|s| self.used(vm).checked_add(s)).filter(|e| *e <= max)?;
        if end > self.committed[self.space] {
            self.commit(self.space, end, max)?;
        }
        vm.gc_top = (start(self.space) + end) as u32;
        self.set_limit(vm, max);
        Some(top as u32)
    }

    /// Sets the fast path's limit: never past `max`, the committed part or
    /// the trigger (a limit below the top sends every allocation to the
    /// slow path, which collects).
    fn set_limit(&self, vm: &mut VMStoreContext, max: usize) {
        let limit = self.committed[self.space].min(max.min(MAX_BYTES)).min(self.trigger);
        vm.gc_limit = (start(self.space) + limit) as u32;
    }

    /// The address of offset `o`, which an allocation returned (with
    /// room for what the caller reads or writes there).
    pub(crate) fn at(&self, o: u32) -> *mut u8 {
        debug_assert!((o as usize) < start(o as usize / HALF) + self.committed[o as usize / HALF]);
        // SAFETY: `o` is committed, inside the reservation.
        unsafe { self.base.add(o as usize) }
    }

    /// Starts a collection: the range of offsets objects may be copied
    /// from, and the offset the copies start at.
    pub(crate) fn flip(&self, vm: &VMStoreContext) -> (std::ops::Range<u32>, u32) {
        let from = start(self.space) as u32 + FIRST..vm.gc_top;
        (from, start(1 - self.space) as u32 + FIRST)
    }

    /// Makes offsets up to `end` of the space being copied into writable:
    /// the end of what is writable there now, or `None` when the host
    /// refuses the memory.
    pub(crate) fn commit_copy(&mut self, end: u32) -> Option<u32> {
        let to = 1 - self.space;
        let rel = end as usize - start(to);
        if rel > self.committed[to] {
            self.commit(to, rel, MAX_BYTES)?;
        }
        Some((start(to) + self.committed[to]).min(u32::MAX as usize) as u32)
    }

    /// Ends a collection that copied `live` bytes, ending at `top`: the
    /// copies' space becomes the one allocated in, the other is released
    /// (its pages go back to the system and read as zero when used again,
    /// and until then any access to them faults), and the next collection
    /// is due when as much again has been allocated as survived (at least
    /// [`MIN_NURSERY`]), so collecting costs a bounded share of allocating.
    pub(crate) fn finish(&mut self, vm: &mut VMStoreContext, top: u32, max: usize) {
        let from = self.space;
        self.release(from);
        self.space = 1 - from;
        vm.gc_top = top;
        let live = self.used(vm);
        self.trigger = match stress() && live < STRESS_LIVE {
            true => 0,
            false => live.saturating_add(live.max(MIN_NURSERY)).min(max.min(MAX_BYTES)),
        };
        self.set_limit(vm, max);
        self.stats.live_bytes = (live - FIRST as usize) as u64;
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

    /// Makes at least the first `len` bytes of space `s` accessible, in
    /// whole chunks but never past `max` (fresh pages read as zero).
    fn commit(&mut self, s: usize, len: usize, max: usize) -> Option<()> {
        let page = page_size();
        let want = (len.div_ceil(CHUNK) * CHUNK).min(max.div_ceil(page) * page).max(len.div_ceil(page) * page);
        let have = self.committed[s];
        if want <= have {
            return None;
        }
        // SAFETY: `have..want` of space `s` lies within our own reservation.
        let r = unsafe {
            libc::mprotect(self.base.add(start(s) + have).cast(), want - have, libc::PROT_READ | libc::PROT_WRITE)
        };
        if r != 0 {
            return None;
        }
        self.committed[s] = want;
        Some(())
    }

    /// Gives space `s`'s committed pages back: mapped anew, inaccessible
    /// and without backing, as reserved.
    fn release(&mut self, s: usize) {
        let len = std::mem::take(&mut self.committed[s]);
        if len == 0 {
            return;
        }
        // SAFETY: the range is part of our reservation, and nothing refers
        // to the objects in it any more (the collector moved the live ones).
        let p = unsafe {
            libc::mmap(
                self.base.add(start(s)).cast(),
                len,
                libc::PROT_NONE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE | libc::MAP_FIXED,
                -1,
                0,
            )
        };
        // Failing to remap leaves the pages mapped: only memory is lost.
        debug_assert_ne!(p, libc::MAP_FAILED);
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
