//! 64-bit memory and table types (memory64, table64) through the
//! wasm-c-api, whose `wasm_limits_t` is 32 bits wide: new types with
//! `cranewasm_limits64_t`, and the whole limits and index type of any
//! memory or table type, such as a module's 64-bit imports and exports.
//! `wasm_memorytype_limits` and `wasm_tabletype_limits` still answer for
//! these types, with sizes past `uint32_t` read as `UINT32_MAX`.

use crate::c_api::types::{
    ExternTypeObj, Sizes, cranewasm_limits64_t, new_tabletype, obj, wasm_memorytype_t, wasm_tabletype_t,
    wasm_valtype_t,
};
use crate::object;

/// A memory type whose addresses are i64, with the given limits in
/// 64 KiB pages (`max == UINT64_MAX`: none); NULL for NULL limits. Memories
/// are at most 4 GiB here: a larger minimum fails when one is made.
///
/// # Safety
/// `limits` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_memorytype_new64(
    limits: Option<&cranewasm_limits64_t>,
) -> *mut wasm_memorytype_t {
    match limits {
        Some(l) => object::new(ExternTypeObj::Memory { sizes: Sizes::new64(*l), shared: false }),
        None => std::ptr::null_mut(),
    }
}

/// A table type whose indices are i64, owning `element` (a reference type),
/// with the given limits; NULL, and `element` left to the caller, otherwise.
///
/// # Safety
/// `element` as for `wasm_tabletype_new`; `limits` must be NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cranewasm_tabletype_new64(
    element: Option<&mut wasm_valtype_t>,
    limits: Option<&cranewasm_limits64_t>,
) -> *mut wasm_tabletype_t {
    // SAFETY: as the caller promises.
    unsafe { new_tabletype(element, limits.map(|l| Sizes::new64(*l))) }
}

/// The sizes of a live memory or table type, `None` for anything else.
///
/// # Safety
/// `t` may be NULL or any pointer; no other thread may delete it meanwhile.
unsafe fn sizes<'a, C: crate::object::Handle<Obj = ExternTypeObj>>(t: Option<&C>) -> Option<&'a Sizes> {
    // SAFETY: as the caller promises.
    match unsafe { obj(t) } {
        Some(ExternTypeObj::Memory { sizes, .. } | ExternTypeObj::Table { sizes, .. }) => Some(sizes),
        _ => None,
    }
}

macro_rules! limits64_queries {
    ($($handle:ident: $is64:ident, $limits64:ident;)*) => {$(
        /// Whether addresses of this type are i64 (false for anything but a
        /// live type of this kind).
        ///
        /// # Safety
        /// `t` may be NULL or any pointer; no other thread may delete it
        /// meanwhile.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $is64(t: Option<&$handle>) -> bool {
            // SAFETY: as the caller promises.
            unsafe { sizes(t) }.is_some_and(|s| s.is64)
        }

        /// The whole limits (owned by the type), for 32-bit types too;
        /// NULL for anything but a live type of this kind.
        ///
        /// # Safety
        /// As for the function above.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $limits64(t: Option<&$handle>) -> *const cranewasm_limits64_t {
            // SAFETY: as the caller promises.
            unsafe { sizes(t) }.map_or(std::ptr::null(), |s| &s.limits64)
        }
    )*};
}

limits64_queries! {
    wasm_memorytype_t: cranewasm_memorytype_is64, cranewasm_memorytype_limits64;
    wasm_tabletype_t: cranewasm_tabletype_is64, cranewasm_tabletype_limits64;
}
