//! The code region of a lazily compiled module: one reservation, mapped
//! twice.
//!
//! Functions of a lazy module are compiled while other threads run the
//! module's code, so new code cannot be written the way [`code_memory`]
//! does it (write, then `mprotect` to read+execute): a page that holds a
//! function being run elsewhere cannot become writable for a moment, and
//! giving every function pages of its own wastes memory and i-TLB reach.
//! Instead the region is a memfd mapped twice: a read+execute view, the
//! only one code runs in and the only address the runtime hands out, and a
//! read+write view at an unrelated address that only the compiler writes
//! through. No page is ever writable and executable in one mapping (the
//! usual dual-mapping JIT design; the price is that the writable alias
//! exists while the module lives, at an address nothing publishes).
//!
//! The memfd is sized to the whole reservation up front but is sparse:
//! pages cost memory only once written.
//!
//! [`code_memory`]: super::code_memory

use std::os::fd::AsRawFd;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use super::code_memory::CodeMemory;
use super::{arch, os};
use crate::environ::error::{Error, Result};

/// The writable side of a region of `len` bytes, executable at `rx` (that
/// view is a [`CodeMemory`] of its own, which unmaps it).
pub struct LazyRegion {
    rx: *mut u8,
    rw: *mut u8,
    len: usize,
}

// SAFETY: the views are plain shared mappings; writes go through the
// methods below, whose callers guarantee (under the module's lock) that
// no two threads write the same bytes and that bytes being executed are
// only changed by the atomic stub patch.
unsafe impl Send for LazyRegion {}
// SAFETY: as for `Send`.
unsafe impl Sync for LazyRegion {}

fn os_error(what: &str) -> Error {
    Error::Resource(format!("{what}: {}", std::io::Error::last_os_error()))
}

impl LazyRegion {
    /// Reserves `len` bytes (rounded up to pages). Fails where memfds
    /// cannot be mapped executable (`vm.memfd_noexec`, seccomp); the caller
    /// then compiles eagerly.
    pub fn new(len: usize) -> Result<(CodeMemory, LazyRegion)> {
        let len = len.max(1).next_multiple_of(region::page::size());
        // SAFETY: plain system calls on a descriptor we own and close here;
        // the mappings keep the memory alive; the executable view is handed
        // whole to the one `CodeMemory` that unmaps it.
        unsafe {
            let file = super::os::memfd(c"cranewasm-lazy-code")
                .map_err(|e| Error::Resource(format!("cannot create lazy code memory: {e}")))?;
            let fd = file.as_raw_fd();
            let map = |prot| libc::mmap(ptr::null_mut(), len, prot, libc::MAP_SHARED, fd, 0);
            let sized = libc::ftruncate(fd, len as libc::off_t) == 0;
            let rx = if sized { map(libc::PROT_READ | libc::PROT_EXEC) } else { libc::MAP_FAILED };
            let rw = if rx != libc::MAP_FAILED { map(libc::PROT_READ | libc::PROT_WRITE) } else { libc::MAP_FAILED };
            let error = os_error("cannot map lazy code memory");
            drop(file);
            if rw == libc::MAP_FAILED {
                if rx != libc::MAP_FAILED {
                    libc::munmap(rx, len);
                }
                return Err(error);
            }
            let code = CodeMemory::from_mapping(rx.cast(), len);
            Ok((code, LazyRegion { rx: rx.cast(), rw: rw.cast(), len }))
        }
    }

    /// The executable view: where code runs.
    pub fn base(&self) -> *const u8 {
        self.rx
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Copies `bytes` to `offset` and makes them visible to instruction
    /// fetch on every core (where the CPU needs it: `arch::flush_icache`
    /// at the executable addresses, then `os::sync_cores`), so that a
    /// thread that learns of the code afterwards runs what was written.
    ///
    /// # Safety
    /// No thread may be executing or writing `offset..offset + bytes.len()`
    /// (fresh space of the region, or the code laid out before the module
    /// is published).
    pub unsafe fn write(&self, offset: usize, bytes: &[u8]) {
        // SAFETY: the range was checked to lie in the writable view, and no
        // thread executes or writes it (caller).
        unsafe {
            assert!(offset.checked_add(bytes.len()).is_some_and(|end| end <= self.len), "write outside the region");
            ptr::copy_nonoverlapping(bytes.as_ptr(), self.rw.add(offset), bytes.len());
        }
        if arch::INCOHERENT_ICACHE {
            arch::flush_icache(self.rx as usize + offset, bytes.len());
            os::sync_cores();
        }
    }

    /// Replaces the 8 bytes at `offset` (a multiple of 8) in one store, so
    /// that a thread fetching them sees either the old or the new
    /// instructions (x86-64), or loading them either the old or the new
    /// data word (aarch64), never a mix.
    ///
    /// # Safety
    /// Both the old and the new bytes must be correct to execute from every
    /// instruction boundary another thread may be at (see `lazy_stub`).
    pub unsafe fn patch_u64(&self, offset: usize, value: [u8; 8]) {
        // SAFETY: an aligned word of the writable view (checked); both versions
        // are correct from every instruction boundary (caller).
        unsafe {
            assert!(offset.is_multiple_of(8) && offset + 8 <= self.len, "patch outside the region");
            // SAFETY (of the cast): aligned, inside the writable view.
            (*self.rw.add(offset).cast::<AtomicU64>()).store(u64::from_le_bytes(value), Ordering::Release);
        }
    }
}

impl Drop for LazyRegion {
    fn drop(&mut self) {
        // SAFETY: our own mapping, written by nobody any more (the module
        // is being dropped).
        unsafe { libc::munmap(self.rw.cast(), self.len) };
    }
}
