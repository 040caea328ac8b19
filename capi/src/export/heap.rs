//! The host-managed app heap: `heap_size` bytes of an instance's linear
//! memory that `wasm_runtime_module_malloc` (and the builtin libc's
//! `malloc`) allocate from, as WAMR's app heap.
//!
//! WAMR keeps its allocator's bookkeeping inside the heap, where the wasm
//! app can overwrite it ("app heap corrupted"). Here the bookkeeping is on
//! the host: a map of free blocks by address, first fit, with neighbours
//! merged on free. The app can scribble over the bytes of the heap but
//! never over the allocator; freeing an address that is not the start of
//! an allocated block is ignored.
//!
//! The addresses are WAMR's (its `ems` allocator as set up for an app
//! heap): blocks start 4 bytes into the 8-aligned heap, each is a 4-byte
//! header and the object, rounded up to 8 and at least 16 bytes, and the
//! object follows the header, so objects are 8-aligned and a program
//! printing its `malloc` results prints what it prints under WAMR.

use std::collections::BTreeMap;

/// Block granule.
const ALIGN: u64 = 8;
/// WAMR's per-block header (`HMU_SIZE`), also its heap's head padding.
const HEADER: u64 = 4;
/// WAMR's smallest block (`GC_SMALLEST_SIZE`).
const SMALLEST: u64 = 16;

/// Where the heap lies and what of it is taken.
pub struct AppHeap {
    /// App address of the first block.
    start: u64,
    end: u64,
    /// Free blocks: address → size.
    free: BTreeMap<u64, u64>,
    /// Allocated blocks: address → size.
    used: BTreeMap<u64, u64>,
    /// Most bytes in use at once.
    highmark: u64,
}

/// The block size for an object of `size` bytes.
fn block_size(size: u64) -> Option<u64> {
    Some(size.checked_add(HEADER)?.checked_next_multiple_of(ALIGN)?.max(SMALLEST))
}

impl AppHeap {
    /// A heap over app addresses `[offset, offset + size)`.
    pub fn new(offset: u64, size: u64) -> AppHeap {
        // Blocks begin after the padding of an 8-aligned heap (so never at
        // app address 0, which would read as failure).
        let start = offset.next_multiple_of(ALIGN) + HEADER;
        let end = start + (offset + size).saturating_sub(start) / ALIGN * ALIGN;
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
        let size = block_size(size)?;
        let (&at, &len) = self.free.iter().find(|(_, len)| **len >= size)?;
        self.free.remove(&at);
        // A remainder too small to be a block stays with this one.
        let size = if len - size < SMALLEST { len } else { size };
        if len > size {
            self.free.insert(at + size, len - size);
        }
        self.used.insert(at, size);
        let in_use: u64 = self.used.values().sum();
        self.highmark = self.highmark.max(in_use);
        Some(at + HEADER)
    }

    /// Frees the object at `a`; anything else is ignored (false).
    pub fn free(&mut self, a: u64) -> bool {
        let Some(block) = a.checked_sub(HEADER) else { return false };
        let Some(size) = self.used.remove(&block) else { return false };
        let (mut at, mut len) = (block, size);
        if let Some((&prev, &plen)) = self.free.range(..block).next_back()
            && prev + plen == block
        {
            self.free.remove(&prev);
            at = prev;
            len += plen;
        }
        if let Some(&nlen) = self.free.get(&(block + size)) {
            self.free.remove(&(block + size));
            len += nlen;
        }
        self.free.insert(at, len);
        true
    }

    /// Resizes the object at `a` (a new one when `a` is 0): the new
    /// address, with the old contents moved by `copy(from, to, len)` when
    /// the object moves; `None` (the old one kept) when there is no room
    /// or `a` is not an allocated object.
    pub fn realloc(&mut self, a: u64, size: u64, copy: impl FnOnce(u64, u64, u64)) -> Option<u64> {
        if a == 0 {
            return self.alloc(size);
        }
        let block = a.checked_sub(HEADER)?;
        let old = *self.used.get(&block)?;
        let want = block_size(size)?;
        if want <= old {
            return Some(a);
        }
        // Into a free neighbour, as WAMR grows in place.
        if let Some(&next) = self.free.get(&(block + old))
            && old + next >= want
        {
            self.free.remove(&(block + old));
            let rest = old + next - want;
            let size = if rest < SMALLEST { old + next } else { want };
            if rest >= SMALLEST {
                self.free.insert(block + want, rest);
            }
            self.used.insert(block, size);
            let in_use: u64 = self.used.values().sum();
            self.highmark = self.highmark.max(in_use);
            return Some(a);
        }
        let new = self.alloc(size)?;
        copy(a, new, old - HEADER);
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
        let mut h = AppHeap::new(0, 68);
        assert_eq!(h.range(), (4, 68));
        let a = h.alloc(10).unwrap();
        assert_eq!(a, 8, "after a header, 8-aligned, never 0");
        let b = h.alloc(1).unwrap();
        assert_eq!(b, 24, "16-byte smallest block");
        let c = h.alloc(28).unwrap();
        assert_eq!(c, 40);
        assert_eq!(h.alloc(1), None, "exhausted");
        assert!(!h.free(9), "not an object");
        assert!(h.free(b) && h.free(a));
        assert!(!h.free(a), "freed once");
        assert_eq!(h.alloc(24), Some(8), "neighbours merged");
        let mut moved = None;
        assert_eq!(h.realloc(8, 20, |_, _, _| unreachable!()), Some(8), "shrinks in place");
        assert_eq!(h.realloc(8, 40, |_, _, _| unreachable!()), None, "no room: kept");
        assert!(h.free(c));
        assert_eq!(h.realloc(8, 40, |_, _, _| unreachable!()), Some(8), "grows into its free neighbour");
        assert_eq!(h.realloc(8, 28, |_, _, _| unreachable!()), Some(8));
        assert_eq!(h.alloc(1), Some(56), "the block kept its grown size, 48 bytes");
        assert!(h.free(56) && h.free(8));
        let a = h.alloc(24).unwrap();
        let c = h.alloc(28).unwrap();
        assert_eq!((a, c), (8, 40));
        assert!(h.free(c));
        let d = h.realloc(8, 28, |f, t, l| moved = Some((f, t, l)));
        assert_eq!(d, Some(8), "fits its block");
        let e = h.alloc(1).unwrap();
        assert_eq!(e, 40);
        assert!(h.free(e) && h.free(8));
        let f = h.alloc(1).unwrap();
        assert_eq!(h.alloc(1), Some(24), "a neighbour in the way");
        let g = h.realloc(f, 20, |f, t, l| moved = Some((f, t, l)));
        assert_eq!(g, Some(40));
        assert_eq!(moved, Some((8, 40, 12)));
        assert_eq!(h.alloc(1), Some(8), "the old block freed");
        assert_eq!(h.stats().0, 64);
    }

    #[test]
    fn wamr_addresses() {
        // WAMR's samples/native-lib under WAMR: argv (20 bytes) then
        // malloc(42) at heap + 0x20; freed, malloc(86) in the same place.
        let mut h = AppHeap::new(0x24c0, 16384);
        assert_eq!(h.alloc(20), Some(0x24c8));
        let m = h.alloc(42).unwrap();
        assert_eq!(m, 0x24e0);
        assert!(h.free(m));
        assert_eq!(h.alloc(86), Some(0x24e0));
    }
}
