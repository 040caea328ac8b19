//! A whole file mapped read-only: how a compiled-code file is checked and
//! how its module's binary stays available, without reading it into the
//! heap.

use std::fs::File;
use std::os::fd::AsRawFd;

/// A read-only private mapping of a file, unmapped when dropped.
pub struct MappedFile {
    base: *const u8,
    len: usize,
}

// SAFETY: the mapping is read-only and owned by this value; reading it
// from any thread is sound.
unsafe impl Send for MappedFile {}
// SAFETY: as for `Send`.
unsafe impl Sync for MappedFile {}

impl MappedFile {
    /// Maps all of `file`.
    pub fn new(file: &File) -> std::io::Result<MappedFile> {
        let len = usize::try_from(file.metadata()?.len()).map_err(|_| std::io::ErrorKind::FileTooLarge)?;
        if len == 0 {
            return Ok(MappedFile { base: std::ptr::NonNull::dangling().as_ptr(), len });
        }
        // SAFETY: a read-only private mapping of an open file; the kernel
        // checks everything else.
        let base =
            unsafe { libc::mmap(std::ptr::null_mut(), len, libc::PROT_READ, libc::MAP_PRIVATE, file.as_raw_fd(), 0) };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(MappedFile { base: base.cast(), len })
    }

    /// The file's bytes (as long as nobody changes the file).
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes are mapped readable for the life of `self`
        // (or `len` is 0 and the pointer dangling but aligned).
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }
}

impl Drop for MappedFile {
    fn drop(&mut self) {
        if self.len != 0 {
            // SAFETY: our own mapping, no longer borrowed.
            unsafe { libc::munmap(self.base as *mut libc::c_void, self.len) };
        }
    }
}
