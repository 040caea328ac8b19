//! `externref` values: host data that wasm can hold but not inspect.

use std::any::Any;
use std::ptr::NonNull;

use super::store::{AsContext, AsContextMut, StoreId};

/// Host data behind an `externref`. It lives as long as its store: the
/// runtime does not trace references held by wasm code.
pub struct ExternData {
    value: Box<dyn Any + Send + Sync>,
}

/// A non-null `externref` value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternRef {
    pub(crate) store: StoreId,
    pub(crate) ptr: NonNull<ExternData>,
}

// SAFETY: a handle is an id; it is only dereferenced with its store, and the
// data it names is `Send + Sync`.
unsafe impl Send for ExternRef {}
// SAFETY: a shared `&ExternRef` only lets one copy the id and pointer; every
// dereference still goes through its store, which is borrowed for it.
unsafe impl Sync for ExternRef {}

impl ExternRef {
    /// Wraps `value` as an externref owned by the store.
    pub fn new<V: Any + Send + Sync>(mut store: impl AsContextMut, value: V) -> ExternRef {
        let mut cx = store.as_context_mut();
        let store = cx.opaque();
        let mut data = Box::new(ExternData { value: Box::new(value) });
        let ptr = NonNull::from(&mut *data);
        store.externrefs.push(data);
        ExternRef { store: store.id(), ptr }
    }

    /// The host data this reference wraps.
    pub fn data<'a, T: 'a>(&self, store: impl Into<super::store::StoreContext<'a, T>>) -> &'a (dyn Any + Send + Sync) {
        let cx = store.into();
        cx.0.opaque.assert_owns(self.store);
        // SAFETY: the store owns the data and outlives the borrow.
        unsafe { &*self.ptr.as_ref().value }
    }

    /// Whether `self` belongs to the store.
    pub fn comes_from(&self, store: impl AsContext) -> bool {
        store.as_context().opaque().id() == self.store
    }
}
