//! [`RootScope`]: where the host's handles of GC objects end.

use super::store::{AsContext, AsContextMut, StoreContext, StoreContextMut};

/// A scope for the handles of GC heap objects ([`ObjectRef`](crate::ObjectRef),
/// inside [`AnyRef`](crate::AnyRef) values) that the host makes through it:
/// when it is dropped, they are freed, and the objects only they kept
/// alive may be collected. Without a scope, a handle made outside a host
/// function lives as long as its store, so a host that calls wasm in a
/// loop and reads references back should call through a scope.
///
/// Handles made before the scope stay valid; a handle made in it and used
/// after it ends is an error (never another object).
pub struct RootScope<C: AsContextMut> {
    cx: C,
    mark: usize,
}

impl<C: AsContextMut> RootScope<C> {
    /// A scope over the store `cx` gives.
    pub fn new(mut cx: C) -> RootScope<C> {
        let mark = cx.as_context_mut().0.opaque.gc_host_roots.mark();
        RootScope { cx, mark }
    }
}

impl<C: AsContextMut> Drop for RootScope<C> {
    fn drop(&mut self) {
        self.cx.as_context_mut().0.opaque.gc_host_roots.truncate(self.mark);
    }
}

impl<C: AsContextMut> AsContext for RootScope<C> {
    type Data = C::Data;
    fn as_context(&self) -> StoreContext<'_, C::Data> {
        self.cx.as_context()
    }
}

impl<C: AsContextMut> AsContextMut for RootScope<C> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, C::Data> {
        self.cx.as_context_mut()
    }
}
