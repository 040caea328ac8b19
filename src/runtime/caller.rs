//! [`Caller`]: what a host function sees of the store and instance that
//! called it.

use super::extern_::Extern;
use super::instance::Instance;
use super::store::{AsContext, AsContextMut, StoreContext, StoreContextMut, StoreInner};
use super::vm::instance::CallerVmctx;
use crate::engine::Engine;

/// The store (and, when wasm made the call, the calling instance) of a host
/// function call.
pub struct Caller<'a, T> {
    pub(crate) store: &'a mut StoreInner<T>,
    caller: CallerVmctx,
}

impl<'a, T> Caller<'a, T> {
    pub(crate) fn new(store: &'a mut StoreInner<T>, caller: CallerVmctx) -> Caller<'a, T> {
        Caller { store, caller }
    }

    /// A shorter-lived caller over the same store.
    pub fn reborrow(&mut self) -> Caller<'_, T> {
        Caller { store: self.store, caller: self.caller }
    }

    /// The store's embedder data.
    pub fn data(&self) -> &T {
        &self.store.data
    }

    /// The store's embedder data, mutably.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.store.data
    }

    /// The engine of the store.
    pub fn engine(&self) -> &Engine {
        self.store.opaque.engine()
    }

    /// The calling instance, when the call came from wasm.
    pub fn instance(&self) -> Option<Instance> {
        self.caller.instance()
    }

    /// An export of the calling instance (its memory, typically).
    pub fn get_export(&mut self, name: &str) -> Option<Extern> {
        let instance = self.instance()?;
        instance.get_export(&mut *self, name)
    }
}

impl<T> AsContext for Caller<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.store)
    }
}

impl<T> AsContextMut for Caller<'_, T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(self.store)
    }
}

impl<'a, T> From<&'a mut Caller<'_, T>> for StoreContextMut<'a, T> {
    fn from(c: &'a mut Caller<'_, T>) -> Self {
        StoreContextMut(&mut *c.store)
    }
}
impl<'a, T> From<&'a Caller<'_, T>> for StoreContext<'a, T> {
    fn from(c: &'a Caller<'_, T>) -> Self {
        StoreContext(&*c.store)
    }
}
