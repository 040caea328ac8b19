//! [`Caller`]: what a host function sees of the store and instance that
//! called it.

use super::extern_::Extern;
use super::instance::Instance;
use super::memory::Memory;
use super::store::{AsContext, AsContextMut, StoreContext, StoreContextMut, StoreInner};
use super::vm::instance::CallerVmctx;
use super::vm::stored::Stored;
use crate::environ::index::MemoryIndex;
use crate::runtime::engine::Engine;

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

    /// The store's embedder data together with the bytes of `memory`: host
    /// functions that copy between guest memory and their own state (WASI's
    /// `fd_write` into a buffer it keeps, say) need both borrowed at once.
    ///
    /// Panics if `memory` belongs to another store, as every handle does.
    pub fn data_and_memory_mut(&mut self, memory: &Memory) -> (&mut T, &mut [u8]) {
        let bytes = memory.0.get_mut(&mut self.store.opaque).data_mut();
        (&mut self.store.data, bytes)
    }

    /// The engine of the store.
    pub fn engine(&self) -> &Engine {
        self.store.opaque.engine()
    }

    /// The calling instance, when the call came from wasm.
    pub fn instance(&self) -> Option<Instance> {
        let index = self.caller.instance_index()?;
        Some(Instance { store: self.store.opaque.id(), index })
    }

    /// The calling instance's memory 0 (defined or imported), found without
    /// a name lookup: where WASI, like WAMR's native functions, reads and
    /// writes guest pointers on every call. `None` when wasm did not make
    /// the call or the instance has no memory.
    pub fn default_memory(&self) -> Option<Memory> {
        let data = self.caller.instance_data()?;
        if data.info().memories.is_empty() {
            return None;
        }
        let ptr = data.memory(MemoryIndex::from_u32(0));
        // SAFETY: the calling instance's memories belong to this store.
        Some(Memory(unsafe { Stored::new_unchecked(self.store.opaque.id(), ptr) }))
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
