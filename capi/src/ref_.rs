//! References: `wasm_ref_t`, host info, the `_as_ref` casts, and foreign
//! objects.
//!
//! Every reference object starts with an [`object::Header`](crate::object::Header), so a
//! `wasm_ref_t *` is a pointer to a function, global, table, memory,
//! instance, trap or foreign object: `wasm_X_as_ref` is a cast, and
//! `wasm_ref_as_X` a cast after checking the kind. Host info belongs to the
//! object it was set on; its finalizer runs when that object is deleted
//! (by the client, or with its store).

use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::object::{header, impl_object, register, release, Header, ObjKind};
use crate::*;

/// A host object with no content but its identity and host info, for use
/// as an `externref` (`wasm_foreign_as_ref`).
#[repr(C)]
pub struct ForeignObj {
    pub header: Header,
    /// Shared by copies, for `wasm_foreign_same`.
    id: u64,
}

impl_object!(ForeignObj);

/// Defines host-info accessors for reference types. Setting host info
/// replaces the previous info without finalizing it, as in WAMR.
macro_rules! declare_host_info {
    ($($ty:ident: $get:ident, $set:ident, $set_with_finalizer:ident;)*) => {$(
        /// The host info set on this object (NULL if none).
        #[no_mangle]
        pub unsafe extern "C" fn $get(r: *const $ty) -> *mut c_void {
            header(r).map_or(ptr::null_mut(), |h| h.host_info.info)
        }
        /// Attaches host info, without a finalizer.
        #[no_mangle]
        pub unsafe extern "C" fn $set(r: *mut $ty, info: *mut c_void) {
            $set_with_finalizer(r, info, None)
        }
        /// Attaches host info; `finalizer(info)` runs once, when the
        /// object is deleted.
        #[no_mangle]
        pub unsafe extern "C" fn $set_with_finalizer(
            r: *mut $ty,
            info: *mut c_void,
            finalizer: Option<unsafe extern "C" fn(*mut c_void)>,
        ) {
            if let Some(h) = header(r) {
                h.host_info.info = info;
                h.host_info.finalizer = finalizer;
            }
        }
    )*};
}

/// Defines the casts between a reference type and `wasm_ref_t`; the ones
/// from `wasm_ref_t` check that the object is of one of `kinds`.
macro_rules! declare_ref_casts {
    ($($ty:ident [$($kind:ident)|+]: $as_ref:ident, $as_ref_const:ident, $from_ref:ident, $from_ref_const:ident;)*) => {$(
        /// The same object, as a reference.
        #[no_mangle]
        pub extern "C" fn $as_ref(p: *mut $ty) -> *mut wasm_ref_t {
            p.cast()
        }
        /// The same object, as a reference.
        #[no_mangle]
        pub extern "C" fn $as_ref_const(p: *const $ty) -> *const wasm_ref_t {
            p.cast()
        }
        /// The same object if the reference is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_ref(r: *mut wasm_ref_t) -> *mut $ty {
            match header(r) {
                Some(h) if matches!(h.kind, $(ObjKind::$kind)|+) => r.cast(),
                _ => ptr::null_mut(),
            }
        }
        /// The same object if the reference is of this kind, else NULL.
        #[no_mangle]
        pub unsafe extern "C" fn $from_ref_const(r: *const wasm_ref_t) -> *const $ty {
            match header(r) {
                Some(h) if matches!(h.kind, $(ObjKind::$kind)|+) => r.cast(),
                _ => ptr::null(),
            }
        }
    )*};
}

declare_host_info! {
    wasm_ref_t: wasm_ref_get_host_info, wasm_ref_set_host_info, wasm_ref_set_host_info_with_finalizer;
    wasm_extern_t: wasm_extern_get_host_info, wasm_extern_set_host_info, wasm_extern_set_host_info_with_finalizer;
    wasm_foreign_t: wasm_foreign_get_host_info, wasm_foreign_set_host_info, wasm_foreign_set_host_info_with_finalizer;
    wasm_func_t: wasm_func_get_host_info, wasm_func_set_host_info, wasm_func_set_host_info_with_finalizer;
    wasm_global_t: wasm_global_get_host_info, wasm_global_set_host_info, wasm_global_set_host_info_with_finalizer;
    wasm_instance_t: wasm_instance_get_host_info, wasm_instance_set_host_info, wasm_instance_set_host_info_with_finalizer;
    wasm_memory_t: wasm_memory_get_host_info, wasm_memory_set_host_info, wasm_memory_set_host_info_with_finalizer;
    wasm_table_t: wasm_table_get_host_info, wasm_table_set_host_info, wasm_table_set_host_info_with_finalizer;
    wasm_trap_t: wasm_trap_get_host_info, wasm_trap_set_host_info, wasm_trap_set_host_info_with_finalizer;
}

declare_ref_casts! {
    wasm_extern_t [Func | Global | Table | Memory]:
        wasm_extern_as_ref, wasm_extern_as_ref_const, wasm_ref_as_extern, wasm_ref_as_extern_const;
    wasm_foreign_t [Foreign]: wasm_foreign_as_ref, wasm_foreign_as_ref_const, wasm_ref_as_foreign, wasm_ref_as_foreign_const;
    wasm_func_t [Func]: wasm_func_as_ref, wasm_func_as_ref_const, wasm_ref_as_func, wasm_ref_as_func_const;
    wasm_global_t [Global]: wasm_global_as_ref, wasm_global_as_ref_const, wasm_ref_as_global, wasm_ref_as_global_const;
    wasm_instance_t [Instance]:
        wasm_instance_as_ref, wasm_instance_as_ref_const, wasm_ref_as_instance, wasm_ref_as_instance_const;
    wasm_memory_t [Memory]: wasm_memory_as_ref, wasm_memory_as_ref_const, wasm_ref_as_memory, wasm_ref_as_memory_const;
    wasm_table_t [Table]: wasm_table_as_ref, wasm_table_as_ref_const, wasm_ref_as_table, wasm_ref_as_table_const;
    wasm_trap_t [Trap]: wasm_trap_as_ref, wasm_trap_as_ref_const, wasm_ref_as_trap, wasm_ref_as_trap_const;
}

/// A new reference to the same object (a copy of the object's handle,
/// without host info).
#[no_mangle]
pub unsafe extern "C" fn wasm_ref_copy(r: *const wasm_ref_t) -> *mut wasm_ref_t {
    let Some(h) = header(r) else { return ptr::null_mut() };
    match h.kind {
        k if k.is_extern() => crate::extern_::wasm_extern_copy(r.cast()).cast(),
        ObjKind::Instance => crate::instance::wasm_instance_copy(r.cast()).cast(),
        ObjKind::Trap => crate::trap::wasm_trap_copy(r.cast()).cast(),
        ObjKind::Foreign => wasm_foreign_copy(r.cast()).cast(),
        _ => ptr::null_mut(),
    }
}

/// Deletes the object the reference points at.
#[no_mangle]
pub unsafe extern "C" fn wasm_ref_delete(r: *mut wasm_ref_t) {
    release(r.cast())
}

/// Whether two references name the same entity (two NULLs do too).
#[no_mangle]
pub unsafe extern "C" fn wasm_ref_same(a: *const wasm_ref_t, b: *const wasm_ref_t) -> bool {
    let (ha, hb) = match (header(a), header(b)) {
        (None, None) => return true,
        (Some(ha), Some(hb)) => (ha.kind, hb.kind),
        _ => return false,
    };
    match ha {
        _ if ha.is_extern() != hb.is_extern() || (!ha.is_extern() && ha != hb) => false,
        k if k.is_extern() => crate::extern_::same(a, b),
        ObjKind::Instance => crate::instance::wasm_instance_same(a.cast(), b.cast()),
        ObjKind::Trap => crate::trap::wasm_trap_same(a.cast(), b.cast()),
        ObjKind::Foreign => wasm_foreign_same(a.cast(), b.cast()),
        _ => ptr::eq(a, b),
    }
}

/// A new foreign object in `store`.
#[no_mangle]
pub unsafe extern "C" fn wasm_foreign_new(store: *mut wasm_store_t) -> *mut wasm_foreign_t {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let Some(s) = crate::store::from_c(store) else { return ptr::null_mut() };
    register(ForeignObj { header: Header::new(ObjKind::Foreign, s), id: NEXT.fetch_add(1, Ordering::Relaxed) }).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_foreign_copy(f: *const wasm_foreign_t) -> *mut wasm_foreign_t {
    let Some(f) = f.cast::<ForeignObj>().as_ref() else { return ptr::null_mut() };
    register(ForeignObj { header: Header::new(ObjKind::Foreign, f.header.store), id: f.id }).cast()
}

#[no_mangle]
pub unsafe extern "C" fn wasm_foreign_delete(f: *mut wasm_foreign_t) {
    release(f.cast())
}

/// Whether two foreign objects are the same (an object and its copies
/// are).
#[no_mangle]
pub unsafe extern "C" fn wasm_foreign_same(a: *const wasm_foreign_t, b: *const wasm_foreign_t) -> bool {
    match (a.cast::<ForeignObj>().as_ref(), b.cast::<ForeignObj>().as_ref()) {
        (None, None) => true,
        (Some(a), Some(b)) => a.id == b.id,
        _ => false,
    }
}
