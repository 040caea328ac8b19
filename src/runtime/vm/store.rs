//! [`StoreOpaque`]: a store's objects and state, the part of a store that
//! does not depend on the embedder's data type. Compiled code, builtins
//! and handles reach the store through it; the public `Store<T>` wraps it
//! (`runtime::store`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use super::externref::VMExternData;
use super::func::VMHostFunc;
use super::instance::VMInstance;
use super::interrupt::InterruptState;
use super::limits::Limits;
use super::memory::VMMemory;
use super::store_claim::StoreClaim;
use super::table::VMTable;
use crate::environ::vmctx::{VMGlobal, VMStoreContext};
use crate::runtime::engine::Engine;

/// Unique id of a store (never reused in a process).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StoreId(u64);

impl StoreId {
    pub(crate) fn next() -> StoreId {
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
    pub(crate) id: StoreId,
    pub(crate) engine: Engine,
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
    /// Tags and exceptions, kept for the store's life (see `exception`).
    pub(crate) tags: Vec<Box<super::exception::VMTag>>,
    pub(crate) exns: Vec<Box<super::exception::VMExn>>,
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
    /// The GC heap of struct and array objects (`vm.gc_*` is its
    /// allocation state). Freed with the store.
    pub(crate) gc: super::gc::heap::GcHeap,
    /// The code (with its registered types) of every module with struct or
    /// array types instantiated here: objects record their type's id and
    /// display, which must outlive a released instance (ids are reused).
    pub(crate) gc_modules: Vec<Arc<super::module_code::ModuleCode>>,
    /// The host's handles of heap objects (`ObjectRef`s): roots the
    /// collector updates.
    pub(crate) gc_host_roots: super::gc::host_roots::HostRoots,
    /// The shapes of the types in `gc_modules`, for the collector.
    pub(crate) gc_shapes: super::gc::shapes::Shapes,
    /// The host's globals of reference types (in `globals`), roots of the
    /// collector.
    pub(crate) gc_ref_globals: Vec<*mut crate::environ::vmctx::VMGlobal>,
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
