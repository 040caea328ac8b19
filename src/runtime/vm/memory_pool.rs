//! Reuse of linear-memory reservations between instances.
//!
//! Creating a guarded memory maps 8 GiB of address space and unmapping it
//! tears the mapping down again: a few system calls that dominate the cost
//! of instantiating a small module. Released reservations go back to the
//! engine's pool instead, with their pages zeroed but left accessible, so a
//! module instantiated again usually needs no system call for its memory.

use super::fault_regions::{self, Registration};
use std::ops::Range;
use std::sync::Mutex;

use super::memory_image::MemoryImage;
use crate::environ::error::{Error, Result};

/// An address range reserved for one memory, the first `accessible` bytes
/// (whole host pages) readable and writable (and zero until written, except where a memory
/// image is mapped), the rest inaccessible.
pub struct Reservation {
    /// The reservation as a place where compiled code may fault (see
    /// `fault_regions`); first, so that it goes before the mapping does.
    _faults: Registration,
    alloc: region::Allocation,
    accessible: usize,
    /// The span where a memory image is mapped, to be replaced by zero
    /// pages before the reservation is reused.
    image: Option<Range<usize>>,
}

// SAFETY: a reservation is address space owned by one memory (or by the
// pool) at a time; nothing in it is tied to a thread.
unsafe impl Send for Reservation {}

impl Reservation {
    /// A fresh reservation of `size` bytes, all inaccessible.
    pub fn new(size: usize) -> Result<Reservation> {
        let alloc = region::alloc(size, region::Protection::NONE)
            .map_err(|e| Error::Resource(format!("cannot reserve {size} bytes for a memory: {e}")))?;
        let start = alloc.as_ptr::<u8>() as usize;
        let _faults = fault_regions::register(start..start + alloc.len());
        Ok(Reservation { alloc, _faults, accessible: 0, image: None })
    }

    pub fn base(&self) -> *mut u8 {
        self.alloc.as_ptr::<u8>() as *mut u8
    }

    pub fn len(&self) -> usize {
        self.alloc.len()
    }

    /// Makes the first `len` bytes accessible, rounded up to whole host
    /// pages (a memory of 1-byte pages may end inside one; its accesses
    /// are compared with its exact length), and nothing after them.
    pub fn set_accessible(&mut self, len: usize) -> Result<()> {
        // In whole pages: protecting a range that starts inside a page
        // would change the whole page, the memory's last bytes with it.
        let len = len.next_multiple_of(region::page::size());
        let (from, to, protection) = if len > self.accessible {
            (self.accessible, len, region::Protection::READ_WRITE)
        } else {
            (len, self.accessible, region::Protection::NONE)
        };
        if from < to {
            // SAFETY: [from, to) lies within our reservation; nothing else
            // maps these pages.
            unsafe { region::protect(self.base().add(from), to - from, protection) }
                .map_err(|e| Error::Resource(format!("cannot change memory protection: {e}")))?;
            self.accessible = len;
        }
        Ok(())
    }
}

impl Reservation {
    /// Maps `image` over its span, which must be accessible.
    pub fn map_image(&mut self, image: &MemoryImage) -> Result<()> {
        let span = image.span();
        assert!(span.end <= self.accessible && self.image.is_none(), "an image goes on fresh accessible pages");
        self.image = Some(span);
        // SAFETY: the span lies in our reservation (checked above), and
        // the memory it belongs to is new: nothing refers to its pages.
        unsafe { image.map_at(self.base()) }
    }

    /// Puts anonymous zero pages, readable and writable, where an image
    /// was mapped; false if that failed (the reservation must then be
    /// unmapped, not reused).
    fn unmap_image(&mut self) -> bool {
        let Some(span) = self.image.take() else { return true };
        // SAFETY: the span lies in our reservation and its memory is gone.
        unsafe {
            let at = self.base().add(span.start);
            let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED;
            libc::mmap(at.cast(), span.len(), libc::PROT_READ | libc::PROT_WRITE, flags, -1, 0) == at.cast()
        }
    }
}

/// Released reservations of the guarded size, ready for reuse.
pub struct MemoryPool {
    free: Mutex<Vec<Reservation>>,
    capacity: usize,
}

impl MemoryPool {
    pub fn new(capacity: usize) -> MemoryPool {
        MemoryPool { free: Mutex::new(Vec::new()), capacity }
    }

    /// A reservation of `size` bytes with nothing accessible yet, or with
    /// zeroed accessible pages left by an earlier memory.
    pub fn take(&self, size: usize) -> Result<Reservation> {
        if let Some(r) = self.free.lock().unwrap_or_else(|e| e.into_inner()).pop() {
            if r.len() == size {
                return Ok(r);
            }
        }
        Reservation::new(size)
    }

    /// Takes a reservation back, zeroing what its memory wrote.
    pub fn give(&self, mut r: Reservation) {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        if free.len() >= self.capacity || !r.unmap_image() {
            return; // dropped: unmapped
        }
        // SAFETY: the range is our private anonymous read+write mapping,
        // which no memory uses any more.
        let zeroed = r.accessible == 0 || unsafe { super::os::zero_pages(r.base(), r.accessible) };
        if zeroed {
            free.push(r);
        }
    }
}
