//! `externref` values: host data that wasm can hold but not inspect, and
//! the [`ExternRef`] handle to it.

use std::any::Any;

use super::store::{AsContext, AsContextMut, StoreContext};
use super::vm::externref::VMExternData;
use super::vm::stored::Stored;

/// A non-null `externref` value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternRef(pub(crate) Stored<VMExternData>);

impl ExternRef {
    /// Wraps `value` as an externref owned by the store.
    pub fn new<V: Any + Send + Sync>(mut store: impl AsContextMut, value: V) -> ExternRef {
        let mut cx = store.as_context_mut();
        ExternRef(Stored::push(cx.opaque(), VMExternData { value: Box::new(value) }))
    }

    /// The host data this reference wraps.
    pub fn data<'a, T: 'a>(&self, store: impl Into<StoreContext<'a, T>>) -> &'a (dyn Any + Send + Sync) {
        &*self.0.get(store.into().into_opaque()).value
    }

    /// Whether `self` belongs to the store.
    pub fn comes_from(&self, store: impl AsContext) -> bool {
        self.0.comes_from(store.as_context().opaque())
    }
}
