//! Vectors: every `wasm_X_vec_t` of the API and its five functions.
//!
//! All vector types share one layout, `{ size, data, num_elems,
//! size_of_elem, lock }` (40 bytes): `size` is the capacity, `num_elems`
//! the number in use. Buffers come from the C allocator so that clients can
//! free what we hand out and hand us what they allocated. Vectors of
//! pointers own their elements: copying copies each element, deleting
//! deletes each.
//!
//! The five functions do what WAMR's do (see `capi/README.md`):
//!
//! * no buffer is made whose size in bytes exceeds `UINT32_MAX`: `_new`
//!   and `_new_uninitialized` of such a size give the empty vector (and
//!   `_new` reads nothing from `data`), so an absurd size is refused
//!   before any allocation is attempted;
//! * plain vectors (bytes, values) copy `size` elements and say
//!   `num_elems = size`; copying from NULL leaves `*out` as it was;
//! * owning vectors copy and delete only their first `num_elems` elements:
//!   slots beyond are neither copied (the copy keeps the source's `size`,
//!   with NULL there) nor deleted (they stay the caller's).
//!
//! Functions that read a client's vector as input take what WAMR takes:
//! the first `num_elems` elements of an owning vector
//! ([`RawVec::in_use`]); for module binaries the bytes in use, `num_elems`
//! when set and `size` otherwise ([`RawVec::as_slice`]), because clients
//! fill `_new_uninitialized` byte vectors without setting `num_elems`.
//!
//! As in WAMR, a vector of zero elements is all zeros whichever function
//! made it, so that two empty vectors always compare equal field by field.

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr;

use crate::c_api::val::wasm_val_t;
use crate::*;

/// The largest buffer a vector may have, in bytes: WAMR's limit.
const MAX_BYTES: usize = u32::MAX as usize;

/// The layout every vector type has, generic over the element type.
#[repr(C)]
pub struct RawVec<T> {
    pub size: usize,
    pub data: *mut T,
    pub num_elems: usize,
    pub size_of_elem: usize,
    pub lock: *mut c_void,
}

/// What a vector does with its elements when it is copied or deleted.
pub trait Element: Copy {
    /// A copy of `e` for the new vector: the same value, or a deep copy of
    /// an owned object.
    ///
    /// # Safety
    /// `e` must be a valid element (an owned object or NULL for pointers).
    unsafe fn copy_elem(e: Self) -> Self;
    /// Releases what `e` owns.
    ///
    /// # Safety
    /// As for `copy_elem`; `e` is not used afterwards.
    unsafe fn delete_elem(e: Self);
    /// Whether `e` is a NULL object (never, for plain elements).
    fn is_null(e: Self) -> bool;
    /// Whether the vector owns its elements (objects) rather than holding
    /// plain values.
    const OWNS: bool;
}

impl<T> RawVec<T> {
    /// The empty vector: all five fields zero.
    pub const EMPTY: RawVec<T> =
        RawVec { size: 0, data: ptr::null_mut(), num_elems: 0, size_of_elem: 0, lock: ptr::null_mut() };

    /// A vector with room for `n` zeroed elements, none in use. `None` when
    /// the buffer would exceed [`MAX_BYTES`] (as in WAMR, which refuses
    /// such sizes before allocating) or the C allocator refuses.
    pub fn zeroed(n: usize) -> Option<RawVec<T>> {
        if n == 0 {
            return Some(RawVec::EMPTY);
        }
        if n.checked_mul(size_of::<T>().max(1)).is_none_or(|bytes| bytes > MAX_BYTES) {
            return None;
        }
        // SAFETY: calloc with a non-zero count; NULL is checked.
        let data = unsafe { libc::calloc(n, size_of::<T>().max(1)) }.cast::<T>();
        if data.is_null() {
            return None;
        }
        Some(RawVec { size: n, data, num_elems: 0, size_of_elem: size_of::<T>(), lock: ptr::null_mut() })
    }

    /// A full vector holding the items, in a C-allocated buffer (empty when
    /// the allocator refuses).
    pub fn from_items(items: impl ExactSizeIterator<Item = T>) -> RawVec<T> {
        let n = items.len();
        let Some(mut v) = RawVec::<T>::zeroed(n) else { return RawVec::EMPTY };
        for (i, item) in items.take(n).enumerate() {
            // SAFETY: `i < n`, the buffer's length.
            unsafe { v.data.add(i).write(item) };
        }
        v.num_elems = n;
        v
    }

    /// Whether no element is in use.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of elements in use: `num_elems` when set, else `size`.
    pub fn len(&self) -> usize {
        if self.data.is_null() {
            0
        } else if self.num_elems != 0 {
            self.num_elems
        } else {
            self.size
        }
    }

    /// The elements in use as [`RawVec::len`] counts them.
    ///
    /// # Safety
    /// `data` must point at `len()` initialised elements (or be NULL).
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: as the caller promises.
        unsafe { self.first(self.len()) }
    }

    /// The first `num_elems` elements (no more than `size`): what WAMR
    /// reads of an owning vector.
    ///
    /// # Safety
    /// `data` must point at `size` initialised elements (or be NULL).
    pub unsafe fn in_use(&self) -> &[T] {
        // SAFETY: as the caller promises.
        unsafe { self.first(self.num_elems.min(self.size)) }
    }

    /// The first `n` elements.
    ///
    /// # Safety
    /// `data` must point at `n` initialised elements (or be NULL).
    pub unsafe fn first(&self, n: usize) -> &[T] {
        match n {
            _ if self.data.is_null() => &[],
            0 => &[],
            // SAFETY: as the caller promises.
            n => unsafe { std::slice::from_raw_parts(self.data, n) },
        }
    }

    /// A bitwise copy of the struct, sharing its buffer: how WAMR's
    /// constructors take an `own wasm_X_vec_t*` (the caller's struct is
    /// left as it was, and the new owner frees the buffer).
    pub fn bitwise(&self) -> RawVec<T> {
        RawVec {
            size: self.size,
            data: self.data,
            num_elems: self.num_elems,
            size_of_elem: self.size_of_elem,
            lock: self.lock,
        }
    }
}

impl<T: Element> RawVec<T> {
    /// Deletes the elements in use (for owning vectors: the first
    /// `num_elems`) and frees the buffer, leaving the vector empty.
    /// Deleting twice is harmless.
    ///
    /// # Safety
    /// The vector must be one of ours or a client's with a C-allocated
    /// buffer.
    pub unsafe fn delete(&mut self) {
        // SAFETY: as the caller promises: the elements are valid, the
        // buffer from the C allocator.
        unsafe {
            for &e in self.in_use() {
                T::delete_elem(e);
            }
            libc::free(self.data.cast());
        }
        *self = RawVec::EMPTY;
    }
}

/// The five functions behind every `wasm_X_vec_*` export. Each requires
/// what its export's `# Safety` section says.
mod ops {
    use super::*;

    pub unsafe fn new_empty<T>(out: *mut RawVec<T>) {
        if !out.is_null() {
            // SAFETY: `out` is writable (caller).
            unsafe { out.write(RawVec::EMPTY) };
        }
    }

    pub unsafe fn new_uninitialized<T>(out: *mut RawVec<T>, n: usize) {
        if !out.is_null() {
            // SAFETY: `out` is writable (caller).
            unsafe { out.write(RawVec::zeroed(n).unwrap_or(RawVec::EMPTY)) };
        }
    }

    pub unsafe fn new<T: Element>(out: *mut RawVec<T>, n: usize, src: *const T) {
        if out.is_null() {
            return;
        }
        let mut v = RawVec::zeroed(n).unwrap_or(RawVec::EMPTY);
        if !src.is_null() && v.size == n && n > 0 {
            // Elements move into the vector (`own ... const data[]`).
            // SAFETY: `src` holds `n` elements (caller), the buffer room
            // for `n`.
            unsafe { ptr::copy_nonoverlapping(src, v.data, n) };
            v.num_elems = n;
        }
        // SAFETY: `out` is writable (caller).
        unsafe { out.write(v) };
    }

    pub unsafe fn copy<T: Element>(out: *mut RawVec<T>, src: *const RawVec<T>) {
        // SAFETY: as the caller promises.
        unsafe { if T::OWNS { copy_owned(out, src) } else { copy_plain(out, src) } }
    }

    /// WAMR's copy of a plain vector: `size` elements, all in use; a NULL
    /// source leaves `*out` as it was.
    pub unsafe fn copy_plain<T: Element>(out: *mut RawVec<T>, src: *const RawVec<T>) {
        // SAFETY: `src` is NULL or a valid vector, `out` NULL or writable
        // (caller).
        if let Some(src) = unsafe { src.as_ref() } {
            // SAFETY: as above; `data` holds `size` elements.
            unsafe { new(out, src.size, src.data) }
        }
    }

    /// WAMR's copy of an owning vector: the source's `size`, its first
    /// `num_elems` elements deep-copied. If one of them cannot be copied
    /// (NULL, or not a live object), the copy is the empty vector.
    pub unsafe fn copy_owned<T: Element>(out: *mut RawVec<T>, src: *const RawVec<T>) {
        if out.is_null() {
            return;
        }
        // SAFETY: `out` is writable, `src` NULL or a valid vector (caller).
        unsafe {
            out.write(RawVec::EMPTY);
            let Some(src) = src.as_ref() else { return };
            let Some(mut v) = RawVec::<T>::zeroed(src.size) else { return };
            for (i, &e) in src.in_use().iter().enumerate() {
                let copy = T::copy_elem(e);
                if T::is_null(copy) {
                    v.delete();
                    return;
                }
                v.data.add(i).write(copy);
                v.num_elems = i + 1;
            }
            out.write(v);
        }
    }

    pub unsafe fn delete<T: Element>(v: *mut RawVec<T>) {
        // SAFETY: `v` is NULL or a valid vector (caller).
        if let Some(v) = unsafe { v.as_mut() } {
            // SAFETY: as above.
            unsafe { v.delete() };
        }
    }
}

/// Defines the vector types, their element handling and their exported
/// functions. Elements are `plain` (copied bitwise, nothing to delete) or
/// `owned(copy, delete)` objects.
macro_rules! declare_vecs {
    (@elem $elem:ty, plain) => {
        impl Element for $elem {
            unsafe fn copy_elem(e: Self) -> Self {
                e
            }
            unsafe fn delete_elem(_: Self) {}
            fn is_null(_: Self) -> bool {
                false
            }
            const OWNS: bool = false;
        }
    };
    (@elem $elem:ty, owned($handle:ty)) => {
        impl Element for $elem {
            unsafe fn copy_elem(e: Self) -> Self {
                // SAFETY: elements are checked like any handle.
                unsafe { $crate::object::duplicate::<$handle, $handle>(e) }
            }
            unsafe fn delete_elem(e: Self) {
                // SAFETY: the vector owns its elements (caller).
                unsafe { $crate::object::delete::<$handle>(e) }
            }
            fn is_null(e: Self) -> bool {
                e.is_null()
            }
            const OWNS: bool = true;
        }
    };
    ($(
        $(#[$doc:meta])*
        $vec:ident of $elem:ty, $how:ident $(($handle:ty))?:
            $new_empty:ident, $new_uninit:ident, $new:ident, $copy:ident, $delete:ident;
    )*) => {$(
        $(#[$doc])*
        #[repr(C)]
        pub struct $vec {
            /// Capacity.
            pub size: usize,
            pub data: *mut $elem,
            /// Number of elements in use.
            pub num_elems: usize,
            /// `sizeof` one element (0 for an empty vector).
            pub size_of_elem: usize,
            /// Always NULL.
            pub lock: *mut c_void,
        }

        impl $vec {
            /// This vector as its generic layout.
            pub fn raw(&self) -> &RawVec<$elem> {
                // SAFETY: both are repr(C) with the same five fields.
                unsafe { &*(self as *const $vec).cast() }
            }
            /// Converts from the generic layout.
            pub fn from_raw(v: RawVec<$elem>) -> $vec {
                $vec { size: v.size, data: v.data, num_elems: v.num_elems, size_of_elem: v.size_of_elem, lock: v.lock }
            }
        }

        declare_vecs!(@elem $elem, $how $(($handle))?);

        /// Sets `*out` to the empty vector (all fields zero).
        ///
        /// # Safety
        /// `out` must be NULL or point at writable room for a vector.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $new_empty(out: *mut $vec) {
            // SAFETY: as the caller promises.
            unsafe { ops::new_empty(out.cast::<RawVec<$elem>>()) }
        }

        /// Sets `*out` to a vector of `size` zeroed elements, none in use;
        /// the empty vector if that is over `UINT32_MAX` bytes.
        ///
        /// # Safety
        /// As for the `_new_empty` function.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $new_uninit(out: *mut $vec, size: usize) {
            // SAFETY: as the caller promises.
            unsafe { ops::new_uninitialized(out.cast::<RawVec<$elem>>(), size) }
        }

        /// Sets `*out` to a vector of the `size` elements at `data`, which
        /// move into it (none when `data` is NULL: `num_elems` is then 0);
        /// the empty vector, `data` unread, if that is over `UINT32_MAX`
        /// bytes.
        ///
        /// # Safety
        /// As for the `_new_empty` function; `data` must be NULL or hold
        /// `size` elements (objects the caller gives up, each NULL or any
        /// pointer: anything but a live object is left alone later).
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $new(out: *mut $vec, size: usize, data: *const $elem) {
            // SAFETY: as the caller promises.
            unsafe { ops::new(out.cast::<RawVec<$elem>>(), size, data) }
        }

        /// Sets `*out` to a copy of `*src`: for plain vectors its `size`
        /// elements (a NULL `src` leaves `*out` alone), for owning vectors a
        /// deep copy of its first `num_elems` elements.
        ///
        /// # Safety
        /// As for the `_new_empty` function; `src` must be NULL or a valid
        /// vector (`data` holding `size` elements).
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $copy(out: *mut $vec, src: *const $vec) {
            // SAFETY: as the caller promises.
            unsafe { ops::copy(out.cast::<RawVec<$elem>>(), src.cast::<RawVec<$elem>>()) }
        }

        /// Deletes the elements the vector owns (its first `num_elems`),
        /// frees its buffer and zeroes it. Harmless on an empty or already
        /// deleted vector.
        ///
        /// # Safety
        /// `v` must be NULL or a valid vector whose buffer comes from the C
        /// allocator; its elements are deleted like any handle.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $delete(v: *mut $vec) {
            // SAFETY: as the caller promises.
            unsafe { ops::delete(v.cast::<RawVec<$elem>>()) }
        }
    )*};
}

/// A byte of a [`wasm_byte_vec_t`] (C `char`).
pub type wasm_byte_t = std::ffi::c_char;
/// A name: bytes that the runtime hands out with a counted trailing NUL.
pub type wasm_name_t = wasm_byte_vec_t;

declare_vecs! {
    /// Bytes: module binaries, names, messages.
    wasm_byte_vec_t of wasm_byte_t, plain:
        wasm_byte_vec_new_empty, wasm_byte_vec_new_uninitialized, wasm_byte_vec_new,
        wasm_byte_vec_copy, wasm_byte_vec_delete;
    /// Values: arguments and results of calls.
    wasm_val_vec_t of wasm_val_t, plain:
        wasm_val_vec_new_empty, wasm_val_vec_new_uninitialized, wasm_val_vec_new,
        wasm_val_vec_copy, wasm_val_vec_delete;
    /// Owned value types.
    wasm_valtype_vec_t of *mut wasm_valtype_t, owned(wasm_valtype_t):
        wasm_valtype_vec_new_empty, wasm_valtype_vec_new_uninitialized, wasm_valtype_vec_new,
        wasm_valtype_vec_copy, wasm_valtype_vec_delete;
    /// Owned function types.
    wasm_functype_vec_t of *mut wasm_functype_t, owned(wasm_functype_t):
        wasm_functype_vec_new_empty, wasm_functype_vec_new_uninitialized, wasm_functype_vec_new,
        wasm_functype_vec_copy, wasm_functype_vec_delete;
    /// Owned global types.
    wasm_globaltype_vec_t of *mut wasm_globaltype_t, owned(wasm_globaltype_t):
        wasm_globaltype_vec_new_empty, wasm_globaltype_vec_new_uninitialized, wasm_globaltype_vec_new,
        wasm_globaltype_vec_copy, wasm_globaltype_vec_delete;
    /// Owned table types.
    wasm_tabletype_vec_t of *mut wasm_tabletype_t, owned(wasm_tabletype_t):
        wasm_tabletype_vec_new_empty, wasm_tabletype_vec_new_uninitialized, wasm_tabletype_vec_new,
        wasm_tabletype_vec_copy, wasm_tabletype_vec_delete;
    /// Owned memory types.
    wasm_memorytype_vec_t of *mut wasm_memorytype_t, owned(wasm_memorytype_t):
        wasm_memorytype_vec_new_empty, wasm_memorytype_vec_new_uninitialized, wasm_memorytype_vec_new,
        wasm_memorytype_vec_copy, wasm_memorytype_vec_delete;
    /// Owned extern types.
    wasm_externtype_vec_t of *mut wasm_externtype_t, owned(wasm_externtype_t):
        wasm_externtype_vec_new_empty, wasm_externtype_vec_new_uninitialized, wasm_externtype_vec_new,
        wasm_externtype_vec_copy, wasm_externtype_vec_delete;
    /// Owned import types: what `wasm_module_imports` returns.
    wasm_importtype_vec_t of *mut wasm_importtype_t, owned(wasm_importtype_t):
        wasm_importtype_vec_new_empty, wasm_importtype_vec_new_uninitialized, wasm_importtype_vec_new,
        wasm_importtype_vec_copy, wasm_importtype_vec_delete;
    /// Owned export types: what `wasm_module_exports` returns.
    wasm_exporttype_vec_t of *mut wasm_exporttype_t, owned(wasm_exporttype_t):
        wasm_exporttype_vec_new_empty, wasm_exporttype_vec_new_uninitialized, wasm_exporttype_vec_new,
        wasm_exporttype_vec_copy, wasm_exporttype_vec_delete;
    /// Owned frames: a trap's backtrace.
    wasm_frame_vec_t of *mut wasm_frame_t, owned(wasm_frame_t):
        wasm_frame_vec_new_empty, wasm_frame_vec_new_uninitialized, wasm_frame_vec_new,
        wasm_frame_vec_copy, wasm_frame_vec_delete;
    /// Owned externs: imports and exports of instances.
    wasm_extern_vec_t of *mut wasm_extern_t, owned(wasm_extern_t):
        wasm_extern_vec_new_empty, wasm_extern_vec_new_uninitialized, wasm_extern_vec_new,
        wasm_extern_vec_copy, wasm_extern_vec_delete;
}

/// A name as the runtime hands it out: the bytes of `s` plus a NUL that is
/// counted in `size` and `num_elems`.
pub fn name_from_str(s: &str) -> wasm_name_t {
    name_from_bytes(s.as_bytes())
}

/// A name from raw bytes, NUL-terminated with the NUL counted.
pub fn name_from_bytes(b: &[u8]) -> wasm_name_t {
    let bytes = b.iter().copied().chain(std::iter::once(0)).map(|b| b as wasm_byte_t);
    wasm_byte_vec_t::from_raw(RawVec::from_items(bytes.collect::<Vec<_>>().into_iter()))
}
