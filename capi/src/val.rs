//! Values: `wasm_val_t` and its conversions to and from core values.
//!
//! A `wasm_val_t` has the layout of the core's `ValRaw` (kind byte at 0,
//! payload at 8), which is what lets calls pass C arrays straight through.
//! References follow WAMR:
//!
//! * an **externref** is an opaque host pointer. Wasm never looks inside
//!   it, and the same pointer comes back out (a `wasm_foreign_t` cast with
//!   `wasm_foreign_as_ref`, or any other pointer);
//! * a **funcref** is a function object (`wasm_func_as_ref`). Functions
//!   coming out of wasm are new function objects owned by the receiver
//!   (and by the store, which frees them if the receiver does not).
//!
//! A **v128** does not fit: the header's union has 8 bytes and no v128
//! member, and the layout is fixed. So a `WASM_V128` value's `of.ref`
//! points at 16 bytes (the lanes, little-endian; see `WASM_V128_VAL` in
//! the header):
//!
//! * values the client passes in (arguments, `wasm_global_new`/`_set`,
//!   host callback results) point at the client's bytes, read during the
//!   call;
//! * values handed out (results of `wasm_func_call`, `wasm_global_get`)
//!   point at 16 bytes from `malloc`, which the client frees with
//!   `wasm_val_delete` (result slots are never read, so they may be
//!   uninitialised); host callback arguments point at bytes the runtime
//!   frees after the callback returns.

use std::ptr;

use cranewasm::{AsContextMut, Val, ValType, V128};

use crate::extern_::{ExternObj, Item};
use crate::func::new_func_obj;
use crate::object::release;
use crate::store::{externref_for, host_pointer, StoreData, StoreObj};
use crate::*;

/// `wasm_valkind_t`: `WASM_I32` (0) .. `WASM_V128` (4), `WASM_EXTERNREF`
/// (128), `WASM_FUNCREF` (129).
pub type wasm_valkind_t = u8;

/// The payload of a [`wasm_val_t`].
#[repr(C)]
#[derive(Copy, Clone)]
pub union wasm_val_union {
    pub i32: i32,
    pub i64: i64,
    pub f32: f32,
    pub f64: f64,
    pub r#ref: *mut wasm_ref_t,
}

/// A value: a kind byte, padding, and the payload at offset 8.
#[repr(C)]
#[derive(Copy, Clone)]
pub struct wasm_val_t {
    pub kind: wasm_valkind_t,
    pub _paddings: [u8; 7],
    pub of: wasm_val_union,
}

const _: () = assert!(std::mem::size_of::<wasm_val_t>() == std::mem::size_of::<cranewasm::ValRaw>());

impl wasm_val_t {
    /// An `i32` zero: what result slots start as.
    pub const ZERO: wasm_val_t = wasm_val_t { kind: 0, _paddings: [0; 7], of: wasm_val_union { i64: 0 } };

    fn new(kind: ValType, of: wasm_val_union) -> wasm_val_t {
        wasm_val_t { kind: kind.kind(), _paddings: [0; 7], of }
    }

    /// The host pointer or function object of a reference value.
    pub fn ref_ptr(&self) -> *mut wasm_ref_t {
        // SAFETY: every bit pattern is a valid pointer value.
        unsafe { self.of.r#ref }
    }
}

/// The core value of type `ty` that `v` holds. The kinds must already have
/// been checked to match.
///
/// # Safety
/// `store` must be live and `cx` a context of its core store; a funcref
/// must be NULL or a function object of this store.
pub unsafe fn to_core(
    store: *mut StoreObj,
    cx: impl AsContextMut<Data = StoreData>,
    v: &wasm_val_t,
    ty: ValType,
) -> Result<Val, String> {
    // SAFETY (union reads): the kind says which member was written, and the
    // scalar members may be read at any bit pattern.
    Ok(match ty {
        ValType::I32 => Val::I32(v.of.i32),
        ValType::I64 => Val::I64(v.of.i64),
        ValType::F32 => Val::F32(v.of.i32 as u32),
        ValType::F64 => Val::F64(v.of.i64 as u64),
        ValType::V128 => match v.ref_ptr().cast::<[u8; 16]>().as_ref() {
            Some(bytes) => Val::V128(V128(u128::from_le_bytes(*bytes))),
            None => return Err("a v128 value's of.ref must point at its 16 bytes".to_string()),
        },
        ValType::ExternRef => match v.ref_ptr() as usize {
            0 => Val::ExternRef(None),
            p => Val::ExternRef(Some(externref_for(store, cx, p))),
        },
        ValType::FuncRef => Val::FuncRef(func_of_ref(v.ref_ptr())?),
    })
}

/// The function a funcref value names.
///
/// # Safety
/// `r` must be NULL or a live reference object.
pub unsafe fn func_of_ref(r: *mut wasm_ref_t) -> Result<Option<cranewasm::Func>, String> {
    let Some(obj) = r.cast::<ExternObj>().as_ref() else { return Ok(None) };
    match &obj.item {
        Item::Func(f) => {
            // The function is going where the C layer cannot follow it:
            // its instance must outlive every C handle.
            if let Some(owner) = obj.owner {
                crate::instance::escape(obj.header.store, owner);
            }
            Ok(Some(f.func))
        }
        _ => Err("funcref value is not a linked function".to_string()),
    }
}

/// The C form of a core value; a function becomes a new function object
/// registered with `store`.
///
/// # Safety
/// `store` must be live and `cx` a context of its core store.
pub unsafe fn from_core(store: *mut StoreObj, mut cx: impl AsContextMut<Data = StoreData>, v: Val) -> wasm_val_t {
    let of = match v {
        Val::I32(i) => wasm_val_union { i32: i },
        Val::I64(i) => wasm_val_union { i64: i },
        Val::F32(bits) => wasm_val_union { i32: bits as i32 },
        Val::F64(bits) => wasm_val_union { i64: bits as i64 },
        Val::V128(x) => wasm_val_union { r#ref: new_v128(x).cast() },
        Val::ExternRef(e) => wasm_val_union { r#ref: e.map_or(0, |e| host_pointer(&mut cx, e)) as *mut wasm_ref_t },
        Val::FuncRef(f) => wasm_val_union {
            r#ref: match f {
                None => ptr::null_mut(),
                Some(f) => {
                    let ty = f.ty(&mut cx);
                    new_func_obj(store, f, ty, None).cast()
                }
            },
        },
    };
    wasm_val_t::new(v.ty(), of)
}

/// 16 bytes from `malloc` holding `x`, for a v128 value handed out.
fn new_v128(x: V128) -> *mut [u8; 16] {
    // SAFETY: a fresh allocation of the right size, written before use
    // (an allocation failure aborts, as everywhere else in Rust).
    unsafe {
        let p = libc::malloc(16).cast::<[u8; 16]>();
        assert!(!p.is_null(), "out of memory");
        p.write(x.0.to_le_bytes());
        p
    }
}

/// Releases what a value owns: the function object of a funcref, or the
/// 16 bytes of a v128 (an externref is the client's own pointer and is
/// left alone). The value itself is not freed; a deleted value holds a
/// null reference.
#[no_mangle]
pub unsafe extern "C" fn wasm_val_delete(v: *mut wasm_val_t) {
    let Some(v) = v.as_mut() else { return };
    if v.kind == ValType::FuncRef.kind() {
        release(v.ref_ptr().cast());
        v.of.r#ref = ptr::null_mut();
    } else if v.kind == ValType::V128.kind() {
        libc::free(v.ref_ptr().cast());
        v.of.r#ref = ptr::null_mut();
    }
}

/// Copies a value; a funcref gets its own copy of the function object and a
/// v128 its own 16 bytes, so both values can be deleted.
#[no_mangle]
pub unsafe extern "C" fn wasm_val_copy(out: *mut wasm_val_t, src: *const wasm_val_t) {
    let (Some(out), Some(src)) = (out.as_mut(), src.as_ref()) else { return };
    *out = *src;
    if src.kind == ValType::FuncRef.kind() && !src.ref_ptr().is_null() {
        out.of.r#ref = crate::ref_::wasm_ref_copy(src.ref_ptr()).cast();
    } else if let (true, Some(bytes)) = (src.kind == ValType::V128.kind(), src.ref_ptr().cast::<[u8; 16]>().as_ref()) {
        out.of.r#ref = new_v128(V128(u128::from_le_bytes(*bytes))).cast();
    }
}
