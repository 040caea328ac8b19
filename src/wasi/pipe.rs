//! In-memory pipes for a guest's stdio: an embedder hands a guest its
//! input as bytes and reads back what it wrote, without files or threads.
//! Clones share the buffer, so the embedder keeps one end and the
//! [`WasiCtx`](super::WasiCtx) the other.

use std::sync::{Arc, Mutex, MutexGuard};

/// Bytes a guest reads from (its stdin, typically).
#[derive(Clone, Debug, Default)]
pub struct ReadPipe {
    inner: Arc<Mutex<ReadState>>,
}

#[derive(Debug, Default)]
struct ReadState {
    data: Vec<u8>,
    pos: usize,
}

impl ReadPipe {
    /// A pipe holding `data`, after which the guest reads end-of-file.
    pub fn new(data: impl Into<Vec<u8>>) -> ReadPipe {
        ReadPipe { inner: Arc::new(Mutex::new(ReadState { data: data.into(), pos: 0 })) }
    }

    /// Adds bytes after what is still unread.
    pub fn push(&self, more: &[u8]) {
        lock(&self.inner).data.extend_from_slice(more);
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        let s = lock(&self.inner);
        s.data.len() - s.pos
    }

    /// Copies into `buf` as much as is left; 0 at end of input.
    pub(crate) fn read(&self, buf: &mut [u8]) -> usize {
        let mut s = lock(&self.inner);
        let n = buf.len().min(s.data.len() - s.pos);
        buf[..n].copy_from_slice(&s.data[s.pos..s.pos + n]);
        s.pos += n;
        n
    }
}

/// Bytes a guest writes to (its stdout or stderr), kept for the embedder.
#[derive(Clone, Debug, Default)]
pub struct WritePipe {
    inner: Arc<Mutex<Vec<u8>>>,
}

impl WritePipe {
    /// An empty pipe.
    pub fn new() -> WritePipe {
        WritePipe::default()
    }

    /// A copy of everything written so far.
    pub fn contents(&self) -> Vec<u8> {
        lock(&self.inner).clone()
    }

    /// Everything written so far, leaving the pipe empty (its capacity
    /// stays, so a guest writing again does not allocate).
    pub fn take(&self) -> Vec<u8> {
        let mut v = lock(&self.inner);
        let out = v.clone();
        v.clear();
        out
    }

    /// Forgets what was written, keeping the buffer's capacity.
    pub fn clear(&self) {
        lock(&self.inner).clear();
    }

    /// Number of bytes written and not taken.
    pub fn len(&self) -> usize {
        lock(&self.inner).len()
    }

    /// Whether nothing was written (or all was taken).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the parts of one guest write, under one lock.
    pub(crate) fn write_parts<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> usize {
        let mut v = lock(&self.inner);
        let before = v.len();
        for p in parts {
            v.extend_from_slice(p);
        }
        v.len() - before
    }
}

/// A poisoned pipe only means another user panicked mid-copy; the bytes
/// are still bytes.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
