//! [`StoreClaim`]: which thread is using a store at the moment.
//!
//! A store may move between threads, but only one may use it at a time.
//! The Rust API enforces that with `&mut`; a C client holds plain pointers
//! and could call into one store from two threads at once. The C layer
//! claims the store for the calling thread on every entry point
//! ([`StoreClaim::enter`]): a second thread gets [`Error::StoreBusy`]
//! instead of corrupting the store, while the owning thread may enter
//! again (a host callback calling back into wasm). Entering wasm also
//! checks the claim (one plain load), so a call that skipped claiming
//! traps rather than running on a store another thread holds.
//!
//! The claim lives in an allocation of its own, shared with whoever asked
//! for it ([`Store::claim`](crate::Store::claim)), so claiming never
//! touches the store itself.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::thread;
use crate::environ::error::{Error, Result};

/// The claim on one store: free, or held by one thread (any number of
/// times, nested).
#[derive(Debug, Default)]
pub struct StoreClaim {
    /// The holding thread's token (see [`thread::token`]), 0 when free.
    owner: AtomicUsize,
    /// Nested claims of the holder; only the holder changes it.
    depth: AtomicUsize,
}

/// A held claim; dropping it releases one level. Not `Send`: a claim is
/// released by the thread that took it.
#[must_use = "the claim is released when the guard is dropped"]
pub struct ClaimGuard<'a> {
    claim: &'a StoreClaim,
    _not_send: PhantomData<*const ()>,
}

impl StoreClaim {
    /// Claims the store for the calling thread: at once when it is free or
    /// already this thread's, [`Error::StoreBusy`] when another thread
    /// holds it.
    pub fn enter(&self) -> Result<ClaimGuard<'_>> {
        let me = thread::token();
        match self.owner.compare_exchange(0, me, Ordering::Acquire, Ordering::Relaxed) {
            Ok(_) => {}
            Err(owner) if owner == me => {}
            Err(_) => return Err(Error::StoreBusy),
        }
        // Only the holder changes `depth`, so a plain load and store do: a
        // locked increment here and a locked decrement on release cost more
        // than the rest of a short call.
        self.depth.store(self.depth.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        Ok(ClaimGuard { claim: self, _not_send: PhantomData })
    }

    /// Whether some thread holds the claim.
    pub fn is_claimed(&self) -> bool {
        self.owner.load(Ordering::Relaxed) != 0
    }

    /// Whether a thread other than the caller (whose token is `me`) holds
    /// the claim: what entering wasm checks.
    #[inline]
    pub(crate) fn held_by_another(&self, me: usize) -> bool {
        let owner = self.owner.load(Ordering::Relaxed);
        owner != 0 && owner != me
    }
}

impl Drop for ClaimGuard<'_> {
    fn drop(&mut self) {
        let depth = self.claim.depth.load(Ordering::Relaxed);
        self.claim.depth.store(depth - 1, Ordering::Relaxed);
        if depth == 1 {
            // Release: whatever this thread did to the store happens
            // before the next holder's Acquire.
            self.claim.owner.store(0, Ordering::Release);
        }
    }
}
