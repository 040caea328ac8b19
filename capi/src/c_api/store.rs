//! Stores: a core [`Store`] plus the C objects created in it.
//!
//! A store is used by one thread at a time; distinct stores may run on
//! distinct threads at once (nothing here is shared between stores but the
//! engine). Any thread may use a store another thread is not using at the
//! moment: the entry points that run wasm or change what it sees claim the
//! store for the calling thread ([`claimed`]), and one entered while
//! another thread holds the claim fails with "store is in use by another
//! thread" instead of touching it (see capi/README.md, "Threads").

use std::ptr;
use std::sync::Arc;

use cranewasm::{Store, StoreClaim};

use crate::c_api::engine;
use crate::handle::Kind;
use crate::object::{self, Object, Ptr, Registry, c_object};
use crate::wasm_engine_t;

pub use crate::core::store::{StoreData, host_pointer};

/// What a `wasm_store_t *` points at.
pub struct StoreObj {
    pub store: Store<StoreData>,
    /// The objects made in this store.
    pub(crate) registry: Registry,
    /// Whether calls are timed for `wasm_instance_*_exec_time`.
    pub profiling: bool,
    /// Which instances C objects still refer to ([`crate::c_api::instance::Lives`]).
    pub lives: crate::c_api::instance::Lives,
    /// The core store's claim, beside it so that claiming reads nothing
    /// another thread may be changing.
    claim: Arc<StoreClaim>,
}

// SAFETY: store cells hold `StoreObj`s, named by `wasm_store_t` only.
unsafe impl Object for StoreObj {
    fn kind(&self) -> Kind {
        Kind::Store
    }

    /// Destroys everything created in the store that the client has not
    /// deleted: C objects first (running their host-info finalizers), then
    /// the core store (running host functions' env finalizers).
    unsafe fn destroy(this: *mut StoreObj) {
        // One at a time, through the raw pointer (the objects reach their
        // store through theirs), so that a finalizer deleting another
        // object of this store finds it still registered.
        // SAFETY: `this` is the live store, out of the table; its objects
        // are destroyed while it is still alive.
        unsafe {
            while let Some(cell) = (*this).registry.pop() {
                object::destroy_popped(cell);
            }
            drop(Box::from_raw(this));
        }
    }
}

c_object! {
    /// A store: owns everything created in it, freed when it is deleted.
    wasm_store_t: StoreObj [Store];
    delete: wasm_store_delete;
}

/// The store behind a C pointer: `None` for NULL and for anything but a
/// live store.
///
/// # Safety
/// As for [`object::get_mut`]; the result is used as a raw pointer, so
/// that objects may keep it.
pub unsafe fn from_c(s: impl Ptr<wasm_store_t>) -> Option<*mut StoreObj> {
    // SAFETY: as the caller promises.
    unsafe { object::get_mut::<wasm_store_t>(s) }.map(std::ptr::from_mut)
}

/// The core store of a C store.
///
/// # Safety
/// `s` must be a live store, not otherwise borrowed for the result's life.
pub unsafe fn core<'a>(s: *mut StoreObj) -> &'a mut Store<StoreData> {
    // SAFETY: as the caller promises.
    unsafe { &mut (*s).store }
}

/// Runs `f` with store `s` claimed by the calling thread (at once when no
/// other thread holds it; nested claims of one thread are fine, as a host
/// callback calling back into its store makes); `None`, with a log line
/// naming `what`, when another thread is using the store.
///
/// # Safety
/// `s` must be a live store.
pub unsafe fn claimed<R>(s: *mut StoreObj, what: &str, f: impl FnOnce() -> R) -> Option<R> {
    // SAFETY: live (caller); the field is set once, at creation, and only
    // read afterwards, so reading it while another thread uses the store
    // is no conflict. Borrowed, not cloned (an Arc's count is two more
    // locked instructions per call): a store deleted while `f` runs on it
    // is the client's use after free in any case, as the call itself goes
    // on in that store.
    let claim: &StoreClaim = unsafe { &*ptr::addr_of!((*s).claim) };
    let Ok(_guard) = claim.enter() else {
        crate::log(format_args!("{what}: {}", cranewasm::Error::StoreBusy));
        return None;
    };
    Some(f())
}

/// The C store a core store of the wasm-c-api belongs to (NULL for a
/// store of `wasm_export.h`).
pub fn obj_of(d: &StoreData) -> *mut StoreObj {
    d.owner(Kind::Store)
}

/// A new store in `engine`, which must be the engine `wasm_engine_new`
/// returned. NULL for NULL or a deleted engine.
///
/// # Safety
/// `engine` may be NULL or any pointer: anything but the live engine
/// counts as NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_store_new(engine: Option<&mut wasm_engine_t>) -> *mut wasm_store_t {
    let Some((engine, profiling)) = engine::lookup(engine) else { return std::ptr::null_mut() };
    let store = Store::new(&engine, StoreData::new(None));
    let claim = store.claim();
    let obj = StoreObj { store, claim, registry: Registry::default(), profiling, lives: Default::default() };
    let handle = object::new::<wasm_store_t>(obj);
    // SAFETY: the store was just made, and nothing else refers to it yet.
    if let Some(s) = unsafe { from_c(handle) } {
        // SAFETY: as above.
        unsafe { (*s).store.data_mut().set_owner(s, Kind::Store) };
    }
    handle
}
