//! The address ranges where compiled code faults on purpose: every linear
//! memory's reservation (its guard region takes the out-of-bounds
//! accesses) and the null page (loads through a null reference). The
//! fault handler turns a fault into a trap only when the faulting address
//! is in one of them (and the instruction is a trap site); any other
//! fault in compiled code is a bug of the runtime, and stops the process
//! with a message rather than being passed off as a trap.
//!
//! The handler reads this registry while other threads may be adding to
//! it, so it takes no lock: slots live in fixed chunks that are never
//! freed (a new chunk is linked in when all are taken), each slot holding
//! a range that is published with release stores and read with acquire
//! loads, twice, to see a consistent pair.

use std::ops::Range;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Addresses below this lie on the null page, which is never mapped.
pub const NULL_PAGE: usize = 4096;

/// A slot's `end` while it is being filled or emptied.
const BUSY: usize = usize::MAX;
const SLOTS: usize = 256;

struct Slot {
    start: AtomicUsize,
    /// 0: free; [`BUSY`]: changing; otherwise the range's end.
    end: AtomicUsize,
}

struct Chunk {
    slots: [Slot; SLOTS],
    next: AtomicPtr<Chunk>,
}

impl Chunk {
    const fn new() -> Chunk {
        Chunk {
            slots: [const { Slot { start: AtomicUsize::new(0), end: AtomicUsize::new(0) } }; SLOTS],
            next: AtomicPtr::new(ptr::null_mut()),
        }
    }

    fn next(&self) -> Option<&'static Chunk> {
        // SAFETY: chunks are leaked boxes, never freed.
        unsafe { self.next.load(Ordering::Acquire).as_ref() }
    }
}

static FIRST: Chunk = Chunk::new();

/// A registered range; dropping it removes it.
pub struct Registration {
    slot: &'static Slot,
}

/// Adds `range` (not empty) to the registry.
pub fn register(range: Range<usize>) -> Registration {
    debug_assert!(range.start < range.end && range.end != BUSY);
    let mut chunk: &'static Chunk = &FIRST;
    loop {
        for slot in &chunk.slots {
            if slot.end.compare_exchange(0, BUSY, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                slot.start.store(range.start, Ordering::Release);
                slot.end.store(range.end, Ordering::Release);
                return Registration { slot };
            }
        }
        chunk = match chunk.next() {
            Some(next) => next,
            None => {
                let fresh: &'static Chunk = Box::leak(Box::new(Chunk::new()));
                match chunk.next.compare_exchange(
                    ptr::null_mut(),
                    (fresh as *const Chunk).cast_mut(),
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => fresh,
                    // Another thread linked one first: use it (ours stays
                    // unused, a one-time leak of a few kilobytes).
                    Err(theirs) => {
                        // SAFETY: a leaked chunk, never freed.
                        unsafe { &*theirs }
                    }
                }
            }
        };
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.slot.end.store(BUSY, Ordering::Release);
        self.slot.start.store(0, Ordering::Release);
        self.slot.end.store(0, Ordering::Release);
    }
}

/// Whether `addr` lies in a registered range or on the null page.
/// Async-signal-safe: no lock, no allocation.
pub fn contains(addr: usize) -> bool {
    if addr < NULL_PAGE {
        return true;
    }
    let mut chunk = Some(&FIRST);
    while let Some(c) = chunk {
        for slot in &c.slots {
            let end = slot.end.load(Ordering::Acquire);
            if end == 0 || end == BUSY || addr >= end {
                continue;
            }
            let start = slot.start.load(Ordering::Acquire);
            if addr >= start && slot.end.load(Ordering::Acquire) == end {
                return true;
            }
        }
        chunk = c.next();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_found_until_dropped_and_slots_are_reused() {
        // Far above anything mapped, so other tests' memories cannot match.
        let base = 0x7ff0_0000_0000usize;
        let many: Vec<Registration> = (0..SLOTS + 10).map(|i| register(base + i * 100..base + i * 100 + 50)).collect();
        assert!(contains(base + 10));
        assert!(contains(base + (SLOTS + 5) * 100 + 49), "ranges past the first chunk are found");
        assert!(!contains(base + 60), "the gap between ranges");
        assert!(contains(8), "the null page");
        drop(many);
        assert!(!contains(base + 10));
        let again = register(base..base + 1);
        assert!(contains(base));
        drop(again);
    }
}
