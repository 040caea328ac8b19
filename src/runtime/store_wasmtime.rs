//! [`Store`] methods by wasmtime's names that our own do not already
//! cover (fuel and `set_epoch_deadline` are in `interrupt.rs`).

use super::store::Store;

impl<T> Store<T> {
    /// When the epoch deadline is reached, trap (wasmtime's
    /// `epoch_deadline_trap`). This is the only behaviour here, so the call
    /// confirms it; the trap is [`Trap::EpochDeadline`](crate::Trap::EpochDeadline).
    pub fn epoch_deadline_trap(&mut self) {}

    /// Not supported: a deadline here always traps, it cannot call back
    /// and resume. The method exists so that code written for wasmtime
    /// fails to compile with a message naming the missing feature, rather
    /// than with an unknown method (no type meets its bound).
    ///
    /// ```compile_fail
    /// let mut store = cranewasm::Store::<()>::default();
    /// store.epoch_deadline_callback(|_: cranewasm::StoreContextMut<'_, ()>| Ok(1u64));
    /// ```
    pub fn epoch_deadline_callback<F: EpochDeadlineCallbackUnsupported>(&mut self, callback: F) {
        let _ = callback;
        unreachable!("no type implements EpochDeadlineCallbackUnsupported")
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A bound no type meets: see [`Store::epoch_deadline_callback`].
#[diagnostic::on_unimplemented(
    message = "cranewasm does not support `Store::epoch_deadline_callback`: an epoch deadline always traps",
    label = "epoch deadline callbacks are not supported",
    note = "use `Store::epoch_deadline_trap` and `set_epoch_deadline`, or an `InterruptHandle`"
)]
pub trait EpochDeadlineCallbackUnsupported: sealed::Sealed {}
