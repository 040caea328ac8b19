//! The host-managed app heap: `heap_size` bytes of an instance's linear
//! memory that `wasm_runtime_module_malloc` (and the builtin libc's
//! `malloc`) allocate from, as WAMR's app heap.
//!
//! WAMR keeps its allocator's bookkeeping inside the heap, where the wasm
//! app can overwrite it ("app heap corrupted"). Here the bookkeeping is on
//! the host: a map of free blocks by offset, first fit, 8-byte aligned,
//! with neighbours merged on free. The app can scribble over the bytes of
//! the heap but never over the allocator; freeing an address that is not
//! the start of an allocated block is ignored.

use std::collections::BTreeMap;

/// Allocation granule and alignment.
const ALIGN: u64 = 8;

/// Where the heap lies and what of it is taken.
pub struct AppHeap {
    /// App address of the first byte (never 0: an allocation at offset 0
    /// would read as failure).
    start: u64,
    end: u64,
    /// Free blocks: offset → size.
    free: BTreeMap<u64, u64>,
    /// Allocated blocks: offset → size.
    used: BTreeMap<u64, u64>,
    /// Most bytes in use at once.
    highmark: u64,
}

impl AppHeap {
    /// A heap over app addresses `[offset, offset + size)`.
    pub fn new(offset: u64, size: u64) -> AppHeap {
        let start = offset.max(ALIGN).next_multiple_of(ALIGN);
        let end = (offset + size).max(start);
        let mut free = BTreeMap::new();
        if end > start {
            free.insert(start, end - start);
        }
        AppHeap { start, end, free, used: BTreeMap::new(), highmark: 0 }
    }

    /// Whether app address `a` lies in the heap.
    pub fn contains(&self, a: u64) -> bool {
        (self.start..self.end).contains(&a)
    }

    /// The heap's range of app addresses.
    pub fn range(&self) -> (u64, u64) {
        (self.start, self.end)
    }

    /// Allocates `size` bytes; the app address, or `None` when no free
    /// block is big enough.
    pub fn alloc(&mut self, size: u64) -> Option<u64> {
        let size = size.max(1).checked_next_multiple_of(ALIGN)?;
        let (&at, &len) = self.free.iter().find(|(_, len)| **len >= size)?;
        self.free.remove(&at);
        if len > size {
            self.free.insert(at + size, len - size);
        }
        self.used.insert(at, size);
        let in_use: u64 = self.used.values().sum();
        self.highmark = self.highmark.max(in_use);
        Some(at)
    }

    /// Frees the block at `a`; anything else is ignored (false).
    pub fn free(&mut self, a: u64) -> bool {
        let Some(size) = self.used.remove(&a) else { return false };
        let (mut at, mut len) = (a, size);
        if let Some((&prev, &plen)) = self.free.range(..a).next_back()
            && prev + plen == a
        {
            self.free.remove(&prev);
            at = prev;
            len += plen;
        }
        if let Some(&nlen) = self.free.get(&(a + size)) {
            self.free.remove(&(a + size));
            len += nlen;
        }
        self.free.insert(at, len);
        true
    }

    /// Resizes the block at `a` (a new one when `a` is 0): the new
    /// address, with the old contents moved by `copy(from, to, len)` when
    /// the block moves; `None` (the old block kept) when there is no room
    /// or `a` is not an allocated block.
    pub fn realloc(&mut self, a: u64, size: u64, copy: impl FnOnce(u64, u64, u64)) -> Option<u64> {
        if a == 0 {
            return self.alloc(size);
        }
        let old = *self.used.get(&a)?;
        let want = size.max(1).checked_next_multiple_of(ALIGN)?;
        if want <= old {
            return Some(a);
        }
        let new = self.alloc(size)?;
        copy(a, new, old);
        self.free(a);
        Some(new)
    }

    /// Total, free and most-used bytes.
    pub fn stats(&self) -> (u64, u64, u64) {
        (self.end - self.start, self.free.values().sum(), self.highmark)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocates_frees_merges_and_exhausts() {
        let mut h = AppHeap::new(0, 64);
        let a = h.alloc(10).unwrap();
        assert_eq!(a, 8, "never offset 0");
        let b = h.alloc(8).unwrap();
        assert_eq!(b, 24);
        let c = h.alloc(32).unwrap();
        assert_eq!(c, 32);
        assert_eq!(h.alloc(1), None, "exhausted");
        assert!(!h.free(9), "not a block start");
        assert!(h.free(b) && h.free(a));
        assert!(!h.free(a), "freed once");
        assert_eq!(h.alloc(24), Some(8), "neighbours merged");
        let mut moved = None;
        assert_eq!(h.realloc(8, 24, |_, _, _| unreachable!()), Some(8), "shrinks in place");
        assert!(h.free(c));
        let d = h.realloc(8, 32, |f, t, l| moved = Some((f, t, l)));
        assert_eq!(d, Some(32));
        assert_eq!(moved, Some((8, 32, 24)));
        assert_eq!(h.stats().0, 56);
    }
}
