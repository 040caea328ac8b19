//! Stores: the owner of all runtime objects.
//!
//! Everything an embedder creates or instantiates — instances, host
//! functions, memories, tables, globals, externrefs — lives in a store and
//! is freed with it. Handles ([`Func`](crate::Func), [`Memory`](crate::Memory),
//! ...) are a store id plus a pointer into that store's objects; each use
//! checks the id against the store it is given, which proves the pointee is
//! alive.
//!
//! A store is single-threaded: it may move to another thread between
//! calls, but only one thread uses it at a time (`&mut` access enforces
//! that; clients without it claim the store, see [`StoreClaim`]).
//! Distinct stores run on distinct threads freely.

use std::sync::Arc;

use super::vm::limits::Limits;
pub use super::vm::store::{StoreId, StoreOpaque};
use super::vm::store_claim::StoreClaim;
use crate::environ::vmctx::VMStoreContext;
use crate::runtime::engine::Engine;

/// A store holding embedder data of type `T`, available to host functions.
pub struct Store<T> {
    pub(crate) inner: Box<StoreInner<T>>,
}

/// The store proper. Boxed so that compiled code can keep pointers into it
/// while the `Store` value moves.
#[repr(C)]
pub struct StoreInner<T> {
    pub(crate) opaque: StoreOpaque,
    pub(crate) data: T,
}

/// A store of a default [`Engine`], holding `T::default()` (wasmtime's
/// `Store::default()`).
impl<T: Default> Default for Store<T> {
    fn default() -> Store<T> {
        Store::new(&Engine::default(), T::default())
    }
}

impl<T> Store<T> {
    /// A new, empty store.
    pub fn new(engine: &Engine, data: T) -> Store<T> {
        let opaque = StoreOpaque {
            id: StoreId::next(),
            engine: engine.clone(),
            vm: Box::new(VMStoreContext {
                stack_limit: usize::MAX,
                last_exit_fp: 0,
                fuel_consumed: 0,
                interrupt: std::ptr::null(),
                store: std::ptr::null_mut(),
                gc_base: std::ptr::null_mut(),
                gc_top: 0,
                gc_limit: 0,
            }),
            instances: Vec::new(),
            deferred_frees: Vec::new(),
            free_slots: Vec::new(),
            host_funcs: Vec::new(),
            memories: Vec::new(),
            tables: Vec::new(),
            globals: Vec::new(),
            externrefs: Vec::new(),
            tags: Vec::new(),
            exns: Vec::new(),
            active_calls: 0,
            max_wasm_stack: engine.config().max_wasm_stack,
            claim: Arc::default(),
            interrupt: None,
            limits: Limits::default(),
            gc: Default::default(),
            gc_modules: Vec::new(),
            gc_host_roots: Default::default(),
            gc_shapes: Default::default(),
            gc_ref_globals: Vec::new(),
        };
        let mut inner = Box::new(StoreInner { opaque, data });
        // The box gives the store the address builtins reach it at.
        inner.opaque.vm.store = (&mut inner.opaque as *mut StoreOpaque).cast();
        Store { inner }
    }

    /// The engine the store was created with.
    pub fn engine(&self) -> &Engine {
        &self.inner.opaque.engine
    }

    /// The embedder data.
    pub fn data(&self) -> &T {
        &self.inner.data
    }

    /// The embedder data, mutably.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.inner.data
    }

    /// Number of instances alive in the store (released ones that were
    /// freed are not counted).
    pub fn instance_count(&self) -> usize {
        self.inner.opaque.instance_count()
    }

    /// The store's claim: what a client that reaches the store through
    /// plain pointers (the C API) takes before using it on a thread, so
    /// that two threads cannot use it at once (see [`StoreClaim`]). Keep
    /// the `Arc` next to the pointer: claiming does not touch the store.
    pub fn claim(&self) -> Arc<StoreClaim> {
        self.inner.opaque.claim()
    }

    /// The part of the store that does not depend on `T`.
    pub(crate) fn opaque_mut(&mut self) -> &mut StoreOpaque {
        &mut self.inner.opaque
    }

    /// Consumes the store (freeing everything in it) and returns the embedder data.
    pub fn into_data(self) -> T {
        self.inner.data
    }
}

impl<T> std::fmt::Debug for Store<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store").field("id", &self.inner.opaque.id).finish_non_exhaustive()
    }
}

/// Gives [`Store`] and [`StoreContextMut`] methods that forward to the
/// [`StoreOpaque`] method of the same name, so each is written once.
macro_rules! forward_to_opaque {
    ($( $(#[$doc:meta])* fn $name:ident(&mut self $(, $arg:ident: $ty:ty)*) $(-> $ret:ty)?; )*) => {
        impl<T> $crate::runtime::store::Store<T> {
            $( $(#[$doc])* pub fn $name(&mut self $(, $arg: $ty)*) $(-> $ret)? {
                self.opaque_mut().$name($($arg),*)
            } )*
        }
        impl<T> $crate::runtime::store::StoreContextMut<'_, T> {
            $( $(#[$doc])* pub fn $name(&mut self $(, $arg: $ty)*) $(-> $ret)? {
                self.opaque().$name($($arg),*)
            } )*
        }
    };
}
pub(crate) use forward_to_opaque;

/// Shared access to a store.
pub struct StoreContext<'a, T>(pub(crate) &'a StoreInner<T>);

/// Exclusive access to a store.
pub struct StoreContextMut<'a, T>(pub(crate) &'a mut StoreInner<T>);

impl<T> StoreContext<'_, T> {
    /// The embedder data.
    pub fn data(&self) -> &T {
        &self.0.data
    }
    /// The engine the store was created with.
    pub fn engine(&self) -> &Engine {
        &self.0.opaque.engine
    }
}

impl<T> StoreContextMut<'_, T> {
    /// The embedder data.
    pub fn data(&self) -> &T {
        &self.0.data
    }
    /// The embedder data, mutably.
    pub fn data_mut(&mut self) -> &mut T {
        &mut self.0.data
    }
    /// The engine the store was created with.
    pub fn engine(&self) -> &Engine {
        &self.0.opaque.engine
    }
}

/// Anything that gives shared access to a store: `&Store`, `&mut Store`,
/// contexts and [`Caller`](crate::Caller).
pub trait AsContext {
    /// The embedder data type of the store.
    type Data;
    /// Shared access to the store.
    fn as_context(&self) -> StoreContext<'_, Self::Data>;
}

/// Anything that gives exclusive access to a store.
pub trait AsContextMut: AsContext {
    /// Exclusive access to the store.
    fn as_context_mut(&mut self) -> StoreContextMut<'_, Self::Data>;
}

impl<T> AsContext for Store<T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(&self.inner)
    }
}
impl<T> AsContextMut for Store<T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(&mut self.inner)
    }
}
impl<T> AsContext for StoreContext<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.0)
    }
}
impl<T> AsContext for StoreContextMut<'_, T> {
    type Data = T;
    fn as_context(&self) -> StoreContext<'_, T> {
        StoreContext(self.0)
    }
}
impl<T> AsContextMut for StoreContextMut<'_, T> {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, T> {
        StoreContextMut(self.0)
    }
}
impl<C: AsContext + ?Sized> AsContext for &C {
    type Data = C::Data;
    fn as_context(&self) -> StoreContext<'_, C::Data> {
        (**self).as_context()
    }
}
impl<C: AsContext + ?Sized> AsContext for &mut C {
    type Data = C::Data;
    fn as_context(&self) -> StoreContext<'_, C::Data> {
        (**self).as_context()
    }
}
impl<C: AsContextMut + ?Sized> AsContextMut for &mut C {
    fn as_context_mut(&mut self) -> StoreContextMut<'_, C::Data> {
        (**self).as_context_mut()
    }
}

impl<'a, T> StoreContext<'a, T> {
    /// The part of the store that does not depend on `T`.
    pub fn opaque(&self) -> &StoreOpaque {
        &self.0.opaque
    }

    /// As [`opaque`](Self::opaque), for as long as the context borrows the
    /// store (what accessors returning `&'a` data need).
    pub(crate) fn into_opaque(self) -> &'a StoreOpaque {
        &self.0.opaque
    }
}

impl<'a, T> StoreContextMut<'a, T> {
    /// The part of the store that does not depend on `T`: what
    /// [`Func::call_raw`](crate::Func::call_raw) runs on.
    pub fn opaque(&mut self) -> &mut StoreOpaque {
        &mut self.0.opaque
    }

    /// As [`opaque`](Self::opaque), for as long as the context borrows the
    /// store.
    pub(crate) fn into_opaque(self) -> &'a mut StoreOpaque {
        &mut self.0.opaque
    }
}

impl<'a, T> From<&'a Store<T>> for StoreContext<'a, T> {
    fn from(s: &'a Store<T>) -> Self {
        StoreContext(&s.inner)
    }
}
impl<'a, T> From<&'a mut Store<T>> for StoreContext<'a, T> {
    fn from(s: &'a mut Store<T>) -> Self {
        StoreContext(&s.inner)
    }
}
impl<'a, T> From<&'a mut Store<T>> for StoreContextMut<'a, T> {
    fn from(s: &'a mut Store<T>) -> Self {
        StoreContextMut(&mut s.inner)
    }
}
