//! Executable memory for compiled code.
//!
//! Code is written (or copied, or mapped from a compiled-code file) and
//! patched while its pages are read+write, then the pages become
//! read+execute for good: never writable and executable at once. Code
//! mapped from a file is a private mapping: the pages that patching does
//! not touch stay shared with the page cache (and other processes running
//! the same file).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::ptr;

use crate::environ::error::{Error, Result};

/// An immutable, executable image of code.
pub struct CodeMemory {
    base: *mut u8,
    /// Bytes mapped (whole pages).
    map_len: usize,
    /// Bytes of code.
    len: usize,
}

// SAFETY: the memory is never written after construction (a lazy
// module's region is written only through its other view, see
// `lazy_code`); sharing read-only executable pages across threads is sound.
unsafe impl Send for CodeMemory {}
// SAFETY: as for `Send`: read-only after construction, so shared access from
// any number of threads at once is sound.
unsafe impl Sync for CodeMemory {}

fn os_error(what: &str) -> Error {
    Error::Resource(format!("{what}: {}", std::io::Error::last_os_error()))
}

impl CodeMemory {
    /// Copies `image` into fresh pages and makes them executable.
    pub fn new(image: &[u8]) -> Result<CodeMemory> {
        CodeMemory::with_patch(image, |_| Ok(()))
    }

    /// Copies `image` into fresh pages, lets `patch` change the copy, and
    /// makes it executable.
    pub fn with_patch(image: &[u8], patch: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<CodeMemory> {
        let map_len = image.len().max(1).next_multiple_of(region::page::size());
        // SAFETY: a fresh anonymous mapping; nothing else refers to it.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_error("cannot map code memory"));
        }
        let code = CodeMemory { base: base.cast(), map_len, len: image.len() };
        // SAFETY: the mapping is at least `image.len()` writable bytes, ours
        // alone until this function returns.
        unsafe { ptr::copy_nonoverlapping(image.as_ptr(), code.base, image.len()) };
        code.finish(patch)
    }

    /// Maps `len` bytes of `file` from `offset` (a multiple of the page
    /// size), lets `patch` change them, and makes them executable. The
    /// file must not change while the code is in use: unpatched pages read
    /// it directly.
    pub fn map_file(file: &File, offset: u64, len: usize, patch: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<Self> {
        let map_len = len.max(1).next_multiple_of(region::page::size());
        let offset = libc::off_t::try_from(offset).map_err(|_| Error::Resource("code offset too large".into()))?;
        // SAFETY: a private mapping of a file we hold open; the kernel checks
        // the offset's alignment.
        let base = unsafe {
            libc::mmap(
                ptr::null_mut(),
                map_len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                offset,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(os_error("cannot map the compiled code"));
        }
        CodeMemory { base: base.cast(), map_len, len }.finish(patch)
    }

    /// Takes ownership of `len` bytes mapped read+execute at `base` (a lazy
    /// module's region, which `lazy_code` fills through another view).
    ///
    /// # Safety
    /// `base..base + len` must be a whole mapping nothing else unmaps.
    pub(crate) unsafe fn from_mapping(base: *mut u8, len: usize) -> CodeMemory {
        CodeMemory { base, map_len: len, len }
    }

    /// Runs `patch` on the writable code, then makes it executable.
    fn finish(self, patch: impl FnOnce(&mut [u8]) -> Result<()>) -> Result<CodeMemory> {
        // SAFETY: the first `len` bytes are mapped read+write and only this
        // value refers to them.
        patch(unsafe { std::slice::from_raw_parts_mut(self.base, self.len) })?;
        // SAFETY: the range is our own mapping.
        if unsafe { libc::mprotect(self.base.cast(), self.map_len, libc::PROT_READ | libc::PROT_EXEC) } != 0 {
            return Err(os_error("cannot make code executable"));
        }
        // Where instruction fetch does not see stores (aarch64), the new
        // code must reach it on every core before any thread runs it.
        if super::arch::INCOHERENT_ICACHE {
            super::arch::flush_icache(self.base as usize, self.len);
            super::os::sync_cores();
        }
        Ok(self)
    }

    /// Address of the first byte of code.
    pub fn base(&self) -> *const u8 {
        self.base
    }

    /// The address range the code occupies.
    pub fn range(&self) -> std::ops::Range<usize> {
        let start = self.base as usize;
        start..start + self.len
    }

    /// The code's bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: the first `len` bytes are mapped readable and never
        // written after construction.
        unsafe { std::slice::from_raw_parts(self.base, self.len) }
    }
}

impl Drop for CodeMemory {
    fn drop(&mut self) {
        // SAFETY: our own mapping, no longer referred to (modules unregister
        // their code before dropping it).
        unsafe { libc::munmap(self.base.cast(), self.map_len) };
    }
}
