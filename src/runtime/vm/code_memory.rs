//! Executable memory for compiled code.
//!
//! Code is written while the pages are read+write, then the pages become
//! read+execute for good: never writable and executable at once.

use crate::error::{Error, Result};

/// An immutable, executable copy of a code image.
pub struct CodeMemory {
    alloc: region::Allocation,
    len: usize,
}

// SAFETY: the memory is never written after `new` returns; sharing
// read-only executable pages across threads is sound.
unsafe impl Send for CodeMemory {}
// SAFETY: as for `Send`: read-only after `new`, so shared access from any
// number of threads at once is sound.
unsafe impl Sync for CodeMemory {}

impl CodeMemory {
    /// Copies `image` into fresh pages and makes them executable.
    pub fn new(image: &[u8]) -> Result<CodeMemory> {
        let size = image.len().max(1);
        let mut alloc = region::alloc(size, region::Protection::READ_WRITE)
            .map_err(|e| Error::Resource(format!("cannot map code memory: {e}")))?;
        let base = alloc.as_mut_ptr::<u8>();
        // SAFETY: the allocation is at least `image.len()` bytes, writable,
        // and not yet shared with anyone.
        unsafe {
            std::ptr::copy_nonoverlapping(image.as_ptr(), base, image.len());
            region::protect(base, alloc.len(), region::Protection::READ_EXECUTE)
                .map_err(|e| Error::Resource(format!("cannot make code executable: {e}")))?;
        }
        Ok(CodeMemory { alloc, len: image.len() })
    }

    /// Address of the first byte of code.
    pub fn base(&self) -> *const u8 {
        self.alloc.as_ptr::<u8>()
    }

    /// The address range the code occupies.
    pub fn range(&self) -> std::ops::Range<usize> {
        let start = self.base() as usize;
        start..start + self.len
    }
}
