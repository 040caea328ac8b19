//! Linear memories.
//!
//! Memories reserve their address range up front, so the pointer from
//! `wasm_memory_data` stays valid as the memory grows.
//!
//! As in WAMR, `wasm_memory_new` makes an object whatever the limits: a
//! memory made without a store, or with limits no memory can have, is not
//! backed (no data, size 0) until an instance links it (see `link.rs`).

use std::ptr;

use cranewasm::{ExternType, Memory};

use crate::c_api::extern_::{ExternObj, Item, Unbound};
use crate::c_api::store;
use crate::c_api::types::{self, wasm_memorytype_t};
use crate::c_api::vec::wasm_byte_t;
use crate::handle::Kind;
use crate::object::{self, c_object, get};
use crate::*;

c_object! {
    /// A linear memory; also a `wasm_extern_t`.
    wasm_memory_t: ExternObj [Memory];
    delete: wasm_memory_delete;
    copy: wasm_memory_copy;
    same: wasm_memory_same;
    host_info: wasm_memory_get_host_info, wasm_memory_set_host_info, wasm_memory_set_host_info_with_finalizer;
    as_ref: wasm_memory_as_ref, wasm_memory_as_ref_const, wasm_ref_as_memory, wasm_ref_as_memory_const;
    upcast wasm_extern_t: wasm_memory_as_extern, wasm_memory_as_extern_const,
        wasm_extern_as_memory, wasm_extern_as_memory_const;
}

/// `wasm_memory_pages_t`: a size in 64 KiB pages.
pub type wasm_memory_pages_t = u32;

/// Runs `f` on the core store and memory of a live memory handle.
///
/// # Safety
/// As for [`object::get`]; no other thread may use the store meanwhile.
#[inline(always)]
unsafe fn with<R>(
    m: Option<&wasm_memory_t>,
    f: impl FnOnce(&mut cranewasm::Store<store::StoreData>, Memory) -> R,
) -> Option<R> {
    // SAFETY: as the caller promises.
    let e = unsafe { get::<wasm_memory_t>(m) }?;
    let Item::Memory(mem) = &e.item else { return None };
    // SAFETY: the store of a live object is live, and not otherwise
    // borrowed during `f`.
    Some(f(unsafe { store::core(e.header.store) }, *mem))
}

/// A memory of type `ty`. Without a store, or with limits no memory can
/// have (a minimum above the maximum, more than 65536 pages), an object
/// that is not backed (see the module documentation). NULL for a NULL type
/// or when the host refuses the memory.
///
/// # Safety
/// `store` and `ty` may be NULL or any pointers: anything but a live store
/// and memory type counts as NULL. The store must not be used by another
/// thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_new(
    store: Option<&mut wasm_store_t>,
    ty: Option<&wasm_memorytype_t>,
) -> *mut wasm_memory_t {
    // SAFETY: the client keeps the threading rule above.
    let Some(ExternType::Memory(mt)) = (unsafe { types::extern_type(ty) }) else { return ptr::null_mut() };
    // SAFETY: as above.
    let s = unsafe { store::from_c(store) };
    let pages_ok = |p: u64| p <= 65536;
    let valid = pages_ok(mt.minimum()) && mt.maximum().is_none_or(|max| pages_ok(max) && max >= mt.minimum());
    let (Some(s), true) = (s, valid) else {
        let store = s.unwrap_or(ptr::null_mut());
        // SAFETY: the store is NULL or live.
        return object::new(unsafe { ExternObj::unbound(store, Kind::Memory, Unbound::Memory(mt)) });
    };
    // SAFETY: the store is live and not otherwise borrowed here.
    match Memory::new(unsafe { store::core(s) }, mt) {
        // SAFETY: the store is live and owns the new memory.
        Ok(m) => object::new(unsafe { ExternObj::new(s, Kind::Memory, Item::Memory(m), None) }),
        Err(e) => {
            log(format_args!("wasm_memory_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// The memory's type as created or declared: its minimum stays the
/// initial size after growth, as in WAMR.
///
/// # Safety
/// `m` may be NULL or any pointer: anything but a live memory counts as
/// NULL. No other thread may use its store meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_type(m: Option<&wasm_memory_t>) -> *mut wasm_memorytype_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { get::<wasm_memory_t>(m) }.map_or(ptr::null_mut(), |o| o.type_handle().cast())
}

/// Byte 0 of the memory.
///
/// # Safety
/// As for [`wasm_memory_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_data(m: Option<&mut wasm_memory_t>) -> *mut wasm_byte_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { with(m.as_deref(), |s, m| m.data_ptr(s).cast()) }.unwrap_or(ptr::null_mut())
}

/// Current size in bytes.
///
/// # Safety
/// As for [`wasm_memory_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_data_size(m: Option<&wasm_memory_t>) -> usize {
    // SAFETY: the client keeps the threading rule above.
    unsafe { with(m, |s, m| m.data_size(s)) }.unwrap_or(0)
}

/// Current size in pages (of the memory's page size; a 64-bit memory's
/// too, as it is at most 4 GiB here; a count past `uint32_t`, only
/// possible with 1-byte pages, saturates).
///
/// # Safety
/// As for [`wasm_memory_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_size(m: Option<&wasm_memory_t>) -> wasm_memory_pages_t {
    // SAFETY: the client keeps the threading rule above.
    unsafe { with(m, |s, m| u32::try_from(m.size(s)).unwrap_or(u32::MAX)) }.unwrap_or(0)
}

/// Grows the memory by `delta` pages; false past its maximum.
///
/// # Safety
/// As for [`wasm_memory_type`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_memory_grow(m: Option<&mut wasm_memory_t>, delta: wasm_memory_pages_t) -> bool {
    // SAFETY: NULL or any pointer; anything but a live memory is refused.
    let Some(e) = (unsafe { get::<wasm_memory_t>(m.as_deref()) }) else { return false };
    let Item::Memory(mem) = &e.item else { return false };
    let s = e.header.store;
    // SAFETY: the store of a live object is live; claimed, it is not
    // otherwise borrowed.
    unsafe { store::claimed(s, "wasm_memory_grow", || mem.grow(store::core(s), delta.into()).is_ok()) }.unwrap_or(false)
}
