//! `externref` values: host data that wasm can hold but not inspect, and
//! the [`ExternRef`] handle to it.

use std::any::Any;

use super::anyref::RefRepr;
use super::store::{AsContext, AsContextMut, StoreContext};
use super::vm::externref::VMExternData;
use super::vm::stored::Stored;

/// A non-null `externref` value: host data, or an `anyref` made external
/// (`extern.convert_any`, [`ExternRef::convert_any`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExternRef(pub(crate) RefRepr);

impl ExternRef {
    /// Wraps `value` as an externref owned by the store.
    pub fn new<V: Any + Send + Sync>(mut store: impl AsContextMut, value: V) -> ExternRef {
        let mut cx = store.as_context_mut();
        ExternRef(RefRepr::Host(Stored::push(cx.opaque(), VMExternData { value: Box::new(value) })))
    }

    /// The host data this reference wraps; `()` for an `anyref` made
    /// external, which has none (see [`AnyRef::convert_extern`](crate::AnyRef::convert_extern)).
    pub fn data<'a, T: 'a>(&self, store: impl Into<StoreContext<'a, T>>) -> &'a (dyn Any + Send + Sync) {
        match self.0 {
            RefRepr::Host(h) => &*h.get(store.into().into_opaque()).value,
            RefRepr::I31(_) | RefRepr::Object(_) => &(),
        }
    }

    /// Whether `self` belongs to the store (an i31 made external belongs
    /// to every store).
    pub fn comes_from(&self, store: impl AsContext) -> bool {
        match self.0 {
            RefRepr::Host(h) => h.comes_from(store.as_context().opaque()),
            RefRepr::I31(_) => true,
            RefRepr::Object(o) => o.store_id() == store.as_context().opaque().id(),
        }
    }
}
