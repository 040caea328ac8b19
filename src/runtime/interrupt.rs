//! Stopping a running guest: from any thread with an [`InterruptHandle`],
//! when the engine's epoch reaches the store's deadline, or when the
//! store's fuel runs out.
//!
//! Interrupts and epoch deadlines need nothing compiled in: a signal stops
//! compiled code (see [`vm::interrupt`](super::vm::interrupt)). Fuel is
//! counted by code compiled with
//! [`Config::consume_fuel`](crate::Config::consume_fuel).

use std::sync::Arc;

use super::store::{forward_to_opaque, StoreOpaque};
use super::vm::interrupt::{self, InterruptState};
use crate::environ::error::{Error, Result};

/// Stops the calls of one store from any thread: what WAMR's
/// `wasm_runtime_terminate` does. Cheap to clone, `Send` and `Sync`, and
/// usable after the store is gone (it then does nothing).
#[derive(Clone)]
pub struct InterruptHandle {
    state: Arc<InterruptState>,
}

impl InterruptHandle {
    /// Makes the store's running call trap with
    /// [`Trap::Interrupt`](crate::Trap::Interrupt) ("terminated
    /// by user"), within microseconds when it runs wasm code, and as soon
    /// as it returns to wasm when it is in a host function. Nested calls
    /// (wasm calling the host calling wasm) all stop. When no call is
    /// running, the store's next call stops at its start instead. The
    /// request is used up by the trap it causes; the store stays usable.
    ///
    /// Returns at once; it does not wait for the call to stop.
    pub fn interrupt(&self) {
        self.state.request(crate::environ::trap::TrapCode::Interrupt);
    }

    /// Withdraws an interruption no call has used up yet, so that the
    /// store's next call runs: what clearing WAMR's "terminated by user"
    /// exception means. A stop already under way in a running call may
    /// still land.
    pub fn withdraw(&self) {
        self.state.withdraw(crate::environ::trap::TrapCode::Interrupt);
    }
}

impl std::fmt::Debug for InterruptHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterruptHandle").field("pending", &self.state.requested()).finish()
    }
}

impl StoreOpaque {
    /// A handle that stops this store's calls from any thread. Make it
    /// before the call it is to stop: a call that started before the
    /// store's first handle existed is stopped only when it returns from a
    /// host function.
    pub fn interrupt_handle(&mut self) -> InterruptHandle {
        InterruptHandle { state: self.interrupt_state().clone() }
    }

    /// The store's interruption state, made on first use.
    fn interrupt_state(&mut self) -> &Arc<InterruptState> {
        if self.interrupt.is_none() {
            interrupt::install_handler();
            let s = Arc::new(InterruptState::default());
            self.vm.interrupt = Arc::as_ptr(&s).cast();
            self.interrupt = Some(s);
        }
        self.interrupt.as_ref().expect("just made")
    }

    /// Gives the store `fuel` units (one per operator, see
    /// [`Config::consume_fuel`](crate::Config::consume_fuel)), replacing
    /// what was left. Fails unless the engine consumes fuel.
    pub fn set_fuel(&mut self, fuel: u64) -> Result<()> {
        self.check_fuel_enabled()?;
        self.vm.fuel_consumed = -(fuel.min(i64::MAX as u64) as i64);
        Ok(())
    }

    /// The fuel left. Fails unless the engine consumes fuel.
    pub fn get_fuel(&self) -> Result<u64> {
        self.check_fuel_enabled()?;
        Ok(self.vm.fuel_consumed.min(0).unsigned_abs())
    }

    fn check_fuel_enabled(&self) -> Result<()> {
        match self.engine().config().consume_fuel {
            true => Ok(()),
            false => Err(Error::Usage("fuel is not enabled: see Config::consume_fuel".into())),
        }
    }

    /// Calls trap with [`Trap::EpochDeadline`](crate::Trap::EpochDeadline)
    /// once the engine's epoch is `ticks` beyond the current one (see
    /// [`Engine::increment_epoch`](crate::Engine::increment_epoch)): a
    /// running call within microseconds (as an interrupt is delivered), a
    /// call starting later at its start. A host function may move the
    /// deadline during a call. Without
    /// [`Config::epoch_interruption`](crate::Config::epoch_interruption) the
    /// deadline is ignored. A new store has none.
    pub fn set_epoch_deadline(&mut self, ticks: u64) {
        if !self.engine().config().epoch_interruption {
            return;
        }
        let engine = self.engine().clone();
        let now = engine.current_epoch();
        self.interrupt_state().set_deadline(now.saturating_add(ticks), now, engine.epoch_watch());
    }
}

forward_to_opaque! {
    /// See [`StoreOpaque::interrupt_handle`].
    fn interrupt_handle(&mut self) -> InterruptHandle;
    /// See [`StoreOpaque::set_fuel`].
    fn set_fuel(&mut self, fuel: u64) -> Result<()>;
    /// See [`StoreOpaque::get_fuel`].
    fn get_fuel(&mut self) -> Result<u64>;
    /// See [`StoreOpaque::set_epoch_deadline`].
    fn set_epoch_deadline(&mut self, ticks: u64);
}
