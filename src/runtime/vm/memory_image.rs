//! Copy-on-write images of a memory's initial contents.
//!
//! A module whose data segments fill the same bytes in every instance (see
//! [`crate::runtime::module::image`]) gets, once, a memfd holding those bytes. An
//! instance's memory then maps the file privately over the image's span of
//! its reservation instead of copying the segments: one `mmap`, whatever
//! the amount of data, and the pages are shared with the page cache until
//! the instance writes them. [`Reservation`](super::memory_pool::Reservation)
//! remembers the mapping and puts anonymous zero pages back when the
//! memory is released to the pool.

use std::fs::File;
use std::ops::Range;
use std::os::fd::AsRawFd;
use std::os::unix::fs::FileExt;

use crate::environ::data_image::ImageLayout;
use crate::environ::error::{Error, Result};

/// A memory's initial contents in a memfd, and where they go.
#[derive(Debug)]
pub struct MemoryImage {
    file: File,
    /// The bytes of linear memory the file covers (page-aligned).
    span: Range<usize>,
}

impl MemoryImage {
    /// The image of `layout`, its segments' bytes read from `wasm`. An
    /// error (no memfd on this host, too many open files) only means the
    /// memory is initialised by copying instead.
    pub fn new(layout: &ImageLayout, wasm: &[u8]) -> Result<MemoryImage> {
        let err = |what: &str, e: std::io::Error| Error::Resource(format!("memory image: {what}: {e}"));
        let file = File::from(super::os::memfd(c"cranewasm-memory-image").map_err(|e| err("memfd", e))?);
        let len = layout.span.len();
        file.set_len(len as u64).map_err(|e| err("set size", e))?;
        for (start, range) in &layout.segments {
            file.write_all_at(&wasm[range.clone()], (start - layout.span.start) as u64).map_err(|e| err("write", e))?;
        }
        Ok(MemoryImage { file, span: layout.span.clone() })
    }

    /// The bytes of linear memory the image covers.
    pub fn span(&self) -> Range<usize> {
        self.span.clone()
    }

    /// Maps the image privately, readable and writable, over its span of
    /// the memory at `base`.
    ///
    /// # Safety
    /// `base + span` must lie in a reservation owned by the caller, whose
    /// pages there may be replaced (nothing holds references into them).
    pub(crate) unsafe fn map_at(&self, base: *mut u8) -> Result<()> {
        // SAFETY: `base + span` lies in the caller's reservation, whose pages
        // there nothing refers into (caller).
        unsafe {
            let at = base.add(self.span.start);
            let mapped = libc::mmap(
                at.cast(),
                self.span.len(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_FIXED,
                self.file.as_raw_fd(),
                0,
            );
            if mapped != at.cast() {
                return Err(Error::Resource(format!("cannot map a memory image: {}", std::io::Error::last_os_error())));
            }
            Ok(())
        }
    }
}
