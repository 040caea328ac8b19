//! References (`wasm_ref_t`) and foreign objects.
//!
//! A `wasm_ref_t *` points at any reference object: a function, global,
//! table, memory, instance, trap, foreign object or GC reference
//! ([`crate::c_api::anyref`]), all of which start with
//! an [`object::Header`](crate::object::Header). As in WAMR,
//! `wasm_X_as_ref` and `wasm_ref_as_X` make new objects for the same
//! entity (generated with each type, see [`crate::object::c_object`]), so
//! the `wasm_ref_*` functions below work on all of them alike: a copy is
//! a new handle, two references are the same if they name the same entity,
//! and host info belongs to the handle it was set on.
//!
//! Foreign objects follow WAMR too: its `wasm_ref_as_foreign` hands back
//! the foreign object itself, so the handles of one foreign share its host
//! info (the `wasm_foreign_*_host_info` functions), while each reference
//! has its own (`wasm_ref_*_host_info`).

use std::cell::RefCell;
use std::ptr;
use std::rc::Rc;

use crate::handle::Kind;
use crate::object::{self, Header, HostInfo, Object, SharedHostInfo, c_object};
use crate::*;

c_object! {
    crate::wasm_ref_t: Header [Func | Global | Table | Memory | Instance | TrapError | Foreign | AnyRef];
    delete: wasm_ref_delete;
    copy: wasm_ref_copy;
    same: wasm_ref_same;
    host_info: wasm_ref_get_host_info, wasm_ref_set_host_info, wasm_ref_set_host_info_with_finalizer;
}

/// A host object with no content but its identity and host info, for use
/// as an `externref`.
#[repr(C)]
pub struct ForeignObj {
    /// The handle's own host info, seen through `wasm_ref_t`.
    header: Header,
    /// The foreign's host info, shared by its handles; the `Rc` is its
    /// identity, for `wasm_foreign_same`.
    shared: SharedHostInfo,
}

const _: () = assert!(std::mem::offset_of!(ForeignObj, header) == 0);

// SAFETY: foreign cells hold `ForeignObj`s, which start with their header.
unsafe impl Object for ForeignObj {
    fn kind(&self) -> Kind {
        Kind::Foreign
    }
    fn header(&mut self) -> Option<&mut Header> {
        Some(&mut self.header)
    }
    fn duplicate(&self) -> Option<ForeignObj> {
        Some(ForeignObj { header: Header::new(self.header.store), shared: self.shared.clone() })
    }
    fn same(&self, other: &ForeignObj) -> bool {
        Rc::ptr_eq(&self.shared, &other.shared)
    }
    fn with_host_info<R>(&mut self, f: impl FnOnce(&mut HostInfo) -> R) -> Option<R> {
        Some(f(&mut self.shared.borrow_mut()))
    }
}

c_object! {
    /// A host object with no content but its identity and host info.
    wasm_foreign_t: ForeignObj [Foreign];
    delete: wasm_foreign_delete;
    copy: wasm_foreign_copy;
    same: wasm_foreign_same;
    host_info: wasm_foreign_get_host_info, wasm_foreign_set_host_info, wasm_foreign_set_host_info_with_finalizer;
    as_ref: wasm_foreign_as_ref, wasm_foreign_as_ref_const, wasm_ref_as_foreign, wasm_ref_as_foreign_const;
}

/// A new foreign object in `store`.
///
/// # Safety
/// `store` may be NULL or any pointer: anything but a live store counts as
/// NULL. The store must not be used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_foreign_new(store: Option<&mut wasm_store_t>) -> *mut wasm_foreign_t {
    // SAFETY: the client keeps the threading rule above.
    match unsafe { crate::c_api::store::from_c(store) } {
        Some(s) => object::new(ForeignObj { header: Header::new(s), shared: Rc::new(RefCell::new(HostInfo::NONE)) }),
        None => ptr::null_mut(),
    }
}
