//! The guest's linear memory as WASI functions see it: every pointer and
//! length a guest passes is checked here, once, and a bad one becomes
//! `EFAULT` (out of bounds) or `EILSEQ` (a path that is not UTF-8) instead
//! of a host fault. Nothing else in `src/wasi` indexes guest memory.

use super::types::{Errno, WasiResult};

/// A borrowed view of the calling instance's memory (empty when the module
/// exports none: then every pointer is out of bounds).
pub struct GuestMemory<'a> {
    bytes: &'a mut [u8],
}

impl<'a> GuestMemory<'a> {
    /// A view of `bytes`.
    pub fn new(bytes: &'a mut [u8]) -> GuestMemory<'a> {
        GuestMemory { bytes }
    }

    fn range(&self, ptr: u32, len: u32) -> WasiResult<std::ops::Range<usize>> {
        let start = ptr as usize;
        let end = start.checked_add(len as usize).ok_or(Errno::Fault)?;
        if end > self.bytes.len() {
            return Err(Errno::Fault);
        }
        Ok(start..end)
    }

    /// `len` bytes at `ptr`.
    pub fn slice(&self, ptr: u32, len: u32) -> WasiResult<&[u8]> {
        let r = self.range(ptr, len)?;
        Ok(&self.bytes[r])
    }

    /// `len` bytes at `ptr`, writable.
    pub fn slice_mut(&mut self, ptr: u32, len: u32) -> WasiResult<&mut [u8]> {
        let r = self.range(ptr, len)?;
        Ok(&mut self.bytes[r])
    }

    /// A UTF-8 string (a path, typically) of `len` bytes at `ptr`.
    pub fn str(&self, ptr: u32, len: u32) -> WasiResult<&str> {
        std::str::from_utf8(self.slice(ptr, len)?).map_err(|_| Errno::Ilseq)
    }

    /// The NUL-terminated string at `ptr`, without its NUL: `EFAULT` when
    /// memory ends before a NUL.
    pub fn cstr(&self, ptr: u32) -> WasiResult<&[u8]> {
        let tail = self.bytes.get(ptr as usize..).ok_or(Errno::Fault)?;
        let len = tail.iter().position(|&b| b == 0).ok_or(Errno::Fault)?;
        Ok(&tail[..len])
    }

    /// Copies `data` to `ptr`.
    pub fn write(&mut self, ptr: u32, data: &[u8]) -> WasiResult {
        let len = u32::try_from(data.len()).map_err(|_| Errno::Fault)?;
        self.slice_mut(ptr, len)?.copy_from_slice(data);
        Ok(())
    }

    /// The little-endian `u32` at `ptr` (any alignment).
    pub fn read_u32(&self, ptr: u32) -> WasiResult<u32> {
        Ok(u32::from_le_bytes(self.slice(ptr, 4)?.try_into().expect("4 bytes")))
    }

    /// The little-endian `u64` at `ptr`.
    pub fn read_u64(&self, ptr: u32) -> WasiResult<u64> {
        Ok(u64::from_le_bytes(self.slice(ptr, 8)?.try_into().expect("8 bytes")))
    }

    /// Writes a little-endian `u32`.
    pub fn write_u32(&mut self, ptr: u32, v: u32) -> WasiResult {
        self.write(ptr, &v.to_le_bytes())
    }

    /// Writes a little-endian `u64`.
    pub fn write_u64(&mut self, ptr: u32, v: u64) -> WasiResult {
        self.write(ptr, &v.to_le_bytes())
    }

    /// The `i`-th (`buf`, `len`) pair of an iovec array at `iovs`, itself
    /// checked to lie in memory.
    pub fn iovec(&self, iovs: u32, i: u32) -> WasiResult<(u32, u32)> {
        let at = i.checked_mul(8).and_then(|o| iovs.checked_add(o)).ok_or(Errno::Fault)?;
        let buf = self.read_u32(at)?;
        let len = self.read_u32(at + 4)?;
        self.range(buf, len)?;
        Ok((buf, len))
    }

    /// Checks that an array of `n` records of `size` bytes at `ptr` lies in
    /// memory, so that a loop over it cannot fail half way.
    pub fn check_array(&self, ptr: u32, n: u32, size: u32) -> WasiResult {
        let len = n.checked_mul(size).ok_or(Errno::Fault)?;
        self.range(ptr, len).map(|_| ())
    }

    /// Every iovec of the array at `iovs` (checked first, so a failure
    /// leaves nothing half done), handed to `f` as guest ranges.
    pub fn iovecs(&self, iovs: u32, n: u32) -> WasiResult<IovecIter> {
        self.check_array(iovs, n, 8)?;
        for i in 0..n {
            self.iovec(iovs, i)?;
        }
        Ok(IovecIter { iovs, n, i: 0 })
    }

    /// The whole memory (for gathering iovecs by range).
    pub fn bytes(&self) -> &[u8] {
        self.bytes
    }

    /// The whole memory, writable (for scattering into iovecs).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        self.bytes
    }
}

/// The (`buf`, `len`) pairs of a checked iovec array; read lazily so that
/// no list is allocated.
pub struct IovecIter {
    iovs: u32,
    n: u32,
    i: u32,
}

impl IovecIter {
    /// The next pair, read from `mem` (which [`GuestMemory::iovecs`]
    /// checked).
    pub fn next(&mut self, mem: &GuestMemory<'_>) -> Option<(u32, u32)> {
        if self.i == self.n {
            return None;
        }
        let at = self.iovs + self.i * 8;
        self.i += 1;
        let buf = u32::from_le_bytes(mem.bytes[at as usize..at as usize + 4].try_into().ok()?);
        let len = u32::from_le_bytes(mem.bytes[at as usize + 4..at as usize + 8].try_into().ok()?);
        Some((buf, len))
    }
}
