//! Stores: a core [`Store`] plus the C objects created in it.
//!
//! A store is used by one thread at a time; distinct stores may run on
//! distinct threads at once (nothing here is shared between stores but the
//! engine).

use std::collections::HashMap;
use std::ptr;

use cranewasm::{AsContext, AsContextMut, ExternRef, Store};

use crate::engine;
use crate::object::{destroy, Registry};
use crate::wasm_engine_t;
use crate::wasm_store_t;

/// The embedder data of every core store the C API makes: a way back to
/// the C store, for host functions.
pub struct StoreData {
    pub obj: *mut StoreObj,
}

/// An `externref` as the C API sees it: an opaque host pointer, which
/// comes back from wasm as the same pointer.
pub struct HostRef(pub usize);

/// What a `wasm_store_t *` points at.
pub struct StoreObj {
    pub store: Store<StoreData>,
    registry: Registry,
    /// The core externref standing for each host pointer passed to wasm, so
    /// a pointer keeps one identity (and one allocation) however often it
    /// crosses.
    externrefs: HashMap<usize, ExternRef>,
    /// Whether calls are timed for `wasm_instance_*_exec_time`.
    pub profiling: bool,
    /// Which instances C objects still refer to ([`crate::instance::Lives`]).
    pub lives: crate::instance::Lives,
}

impl StoreObj {
    pub fn registry_mut(&mut self) -> &mut Registry {
        &mut self.registry
    }
}

/// The store behind a C pointer.
///
/// # Safety
/// `s` must be NULL or a live store.
pub unsafe fn from_c<'a>(s: *mut wasm_store_t) -> Option<&'a mut StoreObj> {
    s.cast::<StoreObj>().as_mut()
}

/// The core store of a C store.
///
/// # Safety
/// `s` must be a live store, not otherwise borrowed for the result's life.
pub unsafe fn core<'a>(s: *mut StoreObj) -> &'a mut Store<StoreData> {
    &mut (*s).store
}

/// The externref for host pointer `p` (non-zero), made on first use.
///
/// # Safety
/// `s` must be the live store that `cx` is a context of.
pub unsafe fn externref_for(s: *mut StoreObj, mut cx: impl AsContextMut<Data = StoreData>, p: usize) -> ExternRef {
    let cache = &mut *ptr::addr_of_mut!((*s).externrefs);
    *cache.entry(p).or_insert_with(|| ExternRef::new(&mut cx, HostRef(p)))
}

/// The host pointer an externref stands for (0 for one the C API did not
/// make).
pub fn host_pointer(cx: impl AsContext<Data = StoreData>, e: ExternRef) -> usize {
    let cx = cx.as_context();
    e.data(cx).downcast_ref::<HostRef>().map_or(0, |h| h.0)
}

/// A new store in `engine`, which must be the engine `wasm_engine_new`
/// returned. NULL for NULL or a deleted engine.
#[no_mangle]
pub unsafe extern "C" fn wasm_store_new(engine: *mut wasm_engine_t) -> *mut wasm_store_t {
    let Some((engine, profiling)) = engine::lookup(engine) else { return ptr::null_mut() };
    let obj = Box::into_raw(Box::new(StoreObj {
        store: Store::new(&engine, StoreData { obj: ptr::null_mut() }),
        registry: Registry::default(),
        externrefs: HashMap::new(),
        profiling,
        lives: Default::default(),
    }));
    (*obj).store.data_mut().obj = obj;
    obj.cast()
}

/// Deletes a store and everything created in it that the client has not
/// deleted: C objects first (running their host-info finalizers), then the
/// core store (running host functions' env finalizers).
#[no_mangle]
pub unsafe extern "C" fn wasm_store_delete(store: *mut wasm_store_t) {
    let obj: *mut StoreObj = store.cast();
    if obj.is_null() {
        return;
    }
    // One at a time, so that a finalizer deleting another object of this
    // store finds it still registered.
    while let Some(h) = (*obj).registry.pop() {
        destroy(h);
    }
    drop(Box::from_raw(obj));
}
