//! The one embedder-data type of every core store the library makes, and
//! the one map of host pointers to externrefs.
//!
//! A wasm-c-api store (`wasm_store_t`) and a `wasm_export.h` instance
//! (which has a store of its own, as WAMR's instance is self-contained)
//! both run wasm over a `Store<StoreData>`: host functions of either
//! header reach their C object, their WASI contexts and the externrefs
//! standing for host pointers the same way.

use std::collections::HashMap;
use std::ffi::c_void;

use cranewasm::wasi::WasiCtx;
use cranewasm::{AsContext, AsContextMut, ExternRef};

use crate::handle::Kind;

/// The data of a core store of the library.
pub struct StoreData {
    /// The C object the store belongs to, and its kind: a `wasm_store_t`'s
    /// object ([`Kind::Store`]) or a `wasm_module_inst_t`'s
    /// ([`Kind::ModuleInst`]). Each header reads it as its own type
    /// through [`StoreData::owner`], which checks the kind.
    owner: *mut c_void,
    kind: Kind,
    /// The WASI contexts of the store's instances: one per wasm-c-api
    /// instance that imports WASI; an export-API instance's own, first.
    pub wasi: Vec<WasiCtx>,
    /// The core externref standing for each host pointer passed to wasm, so
    /// a pointer keeps one identity (and one allocation) however often it
    /// crosses.
    externrefs: HashMap<usize, ExternRef>,
}

// SAFETY: the owner pointer is only dereferenced by the header that set
// it, on the thread that holds the store (each header's threading rule);
// the WASI contexts and externrefs are Send.
unsafe impl Send for StoreData {}

impl StoreData {
    /// Data for a store whose owner is set later ([`StoreData::set_owner`]),
    /// once the C object exists.
    pub fn new(wasi: Option<WasiCtx>) -> StoreData {
        StoreData {
            owner: std::ptr::null_mut(),
            kind: Kind::Free,
            wasi: wasi.into_iter().collect(),
            externrefs: HashMap::new(),
        }
    }

    /// Records the C object the store belongs to.
    pub fn set_owner<T>(&mut self, owner: *const T, kind: Kind) {
        self.owner = owner.cast_mut().cast();
        self.kind = kind;
    }

    /// The owner, if it is of `kind` (NULL otherwise: a store of the other
    /// header, or one whose owner is not set yet).
    #[inline]
    pub fn owner<T>(&self, kind: Kind) -> *mut T {
        if self.kind == kind { self.owner.cast() } else { std::ptr::null_mut() }
    }
}

/// What a core externref made for a host pointer carries.
pub struct HostRef(pub usize);

/// The externref for host pointer `p`, made on first use and the same
/// afterwards.
pub fn externref_for(mut cx: impl AsContextMut<Data = StoreData>, p: usize) -> ExternRef {
    let mut cx = cx.as_context_mut();
    if let Some(e) = cx.data().externrefs.get(&p) {
        return *e;
    }
    let e = ExternRef::new(&mut cx, HostRef(p));
    cx.data_mut().externrefs.insert(p, e);
    e
}

/// The host pointer an externref stands for (0 for one this library did
/// not make).
pub fn host_pointer(cx: impl AsContext<Data = StoreData>, e: ExternRef) -> usize {
    let cx = cx.as_context();
    e.data(cx).downcast_ref::<HostRef>().map_or(0, |h| h.0)
}
