//! Little-endian fixed-width fields, and a reader whose every read is
//! bounds-checked: a damaged file gives an error, never a panic.

use crate::environ::error::{Error, Result};

/// Appends fields to a byte buffer.
#[derive(Default)]
pub struct Writer {
    pub bytes: Vec<u8>,
}

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.bytes.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.bytes.extend_from_slice(&v.to_le_bytes());
    }

    /// A length (u32) and the bytes.
    pub fn str(&mut self, s: &str) {
        self.len(s.len());
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// A count or length of something the file holds.
    pub fn len(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("compiled modules are far below 4 GiB"));
    }

    /// Pads with zeros to a multiple of `align`.
    pub fn align(&mut self, align: usize) {
        self.bytes.resize(self.bytes.len().next_multiple_of(align), 0);
    }
}

/// Reads fields from a byte slice, each read checked against its end.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// What is being read, for errors.
    what: &'static str,
}

/// The error for a file whose contents do not hold together.
pub fn damaged(why: impl std::fmt::Display) -> Error {
    Error::Invalid { message: format!("compiled module refused: {why}"), offset: 0 }
}

impl<'a> Reader<'a> {
    /// Reads `bytes` from offset `at`.
    pub fn new(bytes: &'a [u8], at: usize, what: &'static str) -> Reader<'a> {
        Reader { bytes, at, what }
    }

    /// The next `n` bytes.
    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        self.take(n)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let end = self.at.checked_add(n).filter(|e| *e <= self.bytes.len());
        let end = end.ok_or_else(|| damaged(format_args!("its {} ends early", self.what)))?;
        let out = &self.bytes[self.at..end];
        self.at = end;
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub fn u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub fn str(&mut self) -> Result<&'a str> {
        let n = self.u32()? as usize;
        let bytes = self.take(n)?;
        std::str::from_utf8(bytes).map_err(|_| damaged(format_args!("its {} has a malformed name", self.what)))
    }

    /// A count of items of `item_size` bytes each, checked against what is
    /// left, so that a damaged count cannot make the caller allocate much.
    pub fn count(&mut self, item_size: usize) -> Result<usize> {
        let n = self.u32()? as usize;
        if n.saturating_mul(item_size) > self.bytes.len().saturating_sub(self.at) {
            return Err(damaged(format_args!("its {} counts more items than it holds", self.what)));
        }
        Ok(n)
    }

    /// Fails unless everything was read.
    pub fn finish(self) -> Result<()> {
        match self.at == self.bytes.len() {
            true => Ok(()),
            false => Err(damaged(format_args!("its {} has bytes left over", self.what))),
        }
    }
}
