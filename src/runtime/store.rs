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

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::store_claim::StoreClaim;
use super::vm::externref::VMExternData;
use super::vm::func::VMHostFunc;
use super::vm::instance::VMInstance;
use super::vm::interrupt::InterruptState;
use super::vm::limits::Limits;
use super::vm::memory::VMMemory;
use super::vm::table::VMTable;
use crate::engine::Engine;
use crate::vmctx::{VMGlobal, VMStoreContext};

/// Unique id of a store (never reused in a process).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoreId(u64);

impl StoreId {
    fn next() -> StoreId {
        static NEXT: AtomicU64 = AtomicU64::new(1);
        StoreId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// The part of a store that does not depend on the embedder's data type.
#[allow(
    clippy::vec_box,
    reason = "JIT code and handles hold pointers to these objects, so they must not move when the Vec grows"
)]
pub struct StoreOpaque {
    id: StoreId,
    engine: Engine,
    pub(crate) vm: Box<VMStoreContext>,
    /// Instances by index; `None` once released and freed (until the slot
    /// is reused, see `free_slots`).
    pub(crate) instances: Vec<Option<Box<VMInstance>>>,
    /// Released instances whose freeing waits for the running call to end.
    pub(crate) deferred_frees: Vec<usize>,
    /// Indices in `instances` whose instance was freed, for reuse.
    pub(crate) free_slots: Vec<usize>,
    pub(crate) host_funcs: Vec<Box<VMHostFunc>>,
    pub(crate) memories: Vec<Box<VMMemory>>,
    pub(crate) tables: Vec<Box<VMTable>>,
    pub(crate) globals: Vec<Box<VMGlobal>>,
    pub(crate) externrefs: Vec<Box<VMExternData>>,
    /// Calls from the host into wasm currently running on this store.
    pub(crate) active_calls: usize,
    /// The engine's `max_wasm_stack`, kept here for the call path.
    pub(crate) max_wasm_stack: usize,
    /// Which thread uses the store, for clients that cannot show it with
    /// `&mut` (see [`StoreClaim`]).
    pub(crate) claim: Arc<StoreClaim>,
    /// Interruption state, made with the first interrupt handle; `vm`
    /// points at it.
    pub(crate) interrupt: Option<Arc<InterruptState>>,
    /// What the store holds, and its resource limiter.
    pub(crate) limits: Limits,
}

// SAFETY: the raw pointers inside a store's objects (VMContexts, memory and
// table definitions, host function contexts, funcrefs) all point at objects
// the same store owns, or at engine-wide code that is immutable and shared.
// Nothing in it is tied to a thread: moving the store moves all of that
// together. It is deliberately not `Sync`: all access to its objects, through
// handles or compiled code, needs `&`/`&mut StoreOpaque` on one thread.
unsafe impl Send for StoreOpaque {}

impl StoreOpaque {
    /// The store's unique id.
    pub fn id(&self) -> StoreId {
        self.id
    }

    /// The engine the store was created with.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Panics unless an object of store `id` is used with this store: the
    /// check of accessors without an error path, like wasmtime's handles.
    #[inline]
    pub(crate) fn assert_owns(&self, id: StoreId) {
        assert_eq!(id, self.id, "object used with a store it does not belong to");
    }

    /// Number of instances alive in this store.
    pub fn instance_count(&self) -> usize {
        self.limits.instance_count()
    }

    /// The store's claim (see [`StoreClaim`]).
    pub fn claim(&self) -> Arc<StoreClaim> {
        self.claim.clone()
    }

    /// Makes `limit` the stack limit of the store's compiled code: the
    /// store context's and every live instance's copy, which prologues
    /// read (one load from their own VMContext instead of two through the
    /// store context). Writing every instance costs O(instances), so only
    /// a limit that differs from the current one is written: a host that
    /// calls in from the same depth (the usual loop) pays one compare.
    /// Called on an outermost entry, or on a re-entry that needs room of its
    /// own (see `vm::entry::enter_wasm`), which puts the outer limit back
    /// before the outer call resumes: no compiled code of the store runs
    /// meanwhile.
    #[inline]
    pub(crate) fn publish_stack_limit(&mut self, limit: usize) {
        if self.vm.stack_limit != limit {
            self.publish_new_stack_limit(limit);
        }
    }

    #[cold]
    #[inline(never)]
    fn publish_new_stack_limit(&mut self, limit: usize) {
        self.vm.stack_limit = limit;
        for instance in self.instances.iter().flatten() {
            instance.set_stack_limit(limit);
        }
    }

    /// The instance at `index`.
    pub(crate) fn instance(&self, index: usize) -> &VMInstance {
        self.instances[index].as_deref().expect("use of an instance that was released")
    }
}

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
            }),
            instances: Vec::new(),
            deferred_frees: Vec::new(),
            free_slots: Vec::new(),
            host_funcs: Vec::new(),
            memories: Vec::new(),
            tables: Vec::new(),
            globals: Vec::new(),
            externrefs: Vec::new(),
            active_calls: 0,
            max_wasm_stack: engine.config().max_wasm_stack,
            claim: Arc::default(),
            interrupt: None,
            limits: Limits::default(),
        };
        let mut inner = Box::new(StoreInner { opaque, data });
        // The box gives the store the address builtins reach it at.
        inner.opaque.vm.store = &mut inner.opaque;
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
