//! Linear memories.
//!
//! Memories reserve their address range up front, so the pointer from
//! `wasm_memory_data` stays valid as the memory grows.

use std::ptr;

use cranewasm::{ExternType, Memory};

use crate::extern_::{copy, new_extern, obj, same, Item};
use crate::object::{release, ObjKind};
use crate::store::{self, StoreObj};
use crate::types::{self, ExternTypeObj};
use crate::vec::wasm_byte_t;
use crate::*;

/// `wasm_memory_pages_t`: a size in 64 KiB pages.
pub type wasm_memory_pages_t = u32;

unsafe fn memory<'a>(m: *const wasm_memory_t) -> Option<(*mut StoreObj, &'a Memory)> {
    match obj(m) {
        Some(e) => match &e.item {
            Item::Memory(m) => Some((e.header.store, m)),
            _ => None,
        },
        None => None,
    }
}

/// A memory of type `ty`. NULL if the limits are invalid (a minimum above
/// the maximum, more than 65536 pages) or the host refuses the memory.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_new(store: *mut wasm_store_t, ty: *const wasm_memorytype_t) -> *mut wasm_memory_t {
    let Some(s) = store::from_c(store) else { return ptr::null_mut() };
    let s: *mut StoreObj = s;
    let Some(ExternType::Memory(mt)) = types::obj(ty).and_then(ExternTypeObj::to_core) else { return ptr::null_mut() };
    if mt.limits.max.is_some_and(|max| max > 65536) {
        return ptr::null_mut();
    }
    match Memory::new(store::core(s), mt) {
        Ok(m) => new_extern(s, ObjKind::Memory, Item::Memory(m)).cast(),
        Err(e) => {
            log(format_args!("wasm_memory_new: {e}"));
            ptr::null_mut()
        }
    }
}

/// The memory's type as created or declared: its minimum stays the
/// initial size after growth, as in WAMR.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_type(m: *const wasm_memory_t) -> *mut wasm_memorytype_t {
    match memory(m) {
        Some((s, m)) => ExternTypeObj::new_boxed(&ExternType::Memory(m.declared_ty(store::core(s)))).cast(),
        None => ptr::null_mut(),
    }
}

/// Byte 0 of the memory.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_data(m: *mut wasm_memory_t) -> *mut wasm_byte_t {
    memory(m).map_or(ptr::null_mut(), |(s, m)| m.data_ptr(store::core(s)).cast())
}

/// Current size in bytes.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_data_size(m: *const wasm_memory_t) -> usize {
    memory(m).map_or(0, |(s, m)| m.data_size(store::core(s)))
}

/// Current size in pages.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_size(m: *const wasm_memory_t) -> wasm_memory_pages_t {
    memory(m).map_or(0, |(s, m)| m.size(store::core(s)))
}

/// Grows the memory by `delta` pages; false past its maximum.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_grow(m: *mut wasm_memory_t, delta: wasm_memory_pages_t) -> bool {
    memory(m).is_some_and(|(s, m)| m.grow(store::core(s), delta).is_ok())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_memory_copy(m: *const wasm_memory_t) -> *mut wasm_memory_t {
    copy(m)
}

/// Deletes the handle; the memory lives on in its store.
#[no_mangle]
pub unsafe extern "C" fn wasm_memory_delete(m: *mut wasm_memory_t) {
    release(m.cast())
}

#[no_mangle]
pub unsafe extern "C" fn wasm_memory_same(a: *const wasm_memory_t, b: *const wasm_memory_t) -> bool {
    same(a, b)
}
