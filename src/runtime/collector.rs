//! The host's control of a store's garbage collector: collecting now, and
//! what the collections cost ([`GcStats`]).

use super::store::{forward_to_opaque, Store, StoreOpaque};
pub use super::vm::gc::heap::GcStats;

impl StoreOpaque {
    /// Collects the store's GC heap now: every struct and array object
    /// that neither wasm nor the host can reach any more is freed. The
    /// host's handles stay valid (their objects move, the handles follow).
    /// Also callable from a host function wasm called.
    pub fn gc(&mut self) {
        // SAFETY: the host holds objects only through rooted handles, and
        // with `&mut` to the store no builtin of it runs: if wasm runs on
        // the store, it is suspended in the host call this runs in, whose
        // exit trampoline recorded its frames.
        unsafe { self.gc_collect() }
    }

    /// What the store's collector has done so far.
    pub fn gc_stats(&self) -> GcStats {
        self.gc.stats
    }
}

forward_to_opaque! {
    /// Collects the store's GC heap now (see [`StoreOpaque::gc`]).
    fn gc(&mut self);
}

impl<T> Store<T> {
    /// What the store's collector has done so far.
    pub fn gc_stats(&self) -> GcStats {
        self.inner.opaque.gc_stats()
    }
}
