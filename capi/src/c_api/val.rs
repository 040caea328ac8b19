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
//!   (and by the store, which frees them if the receiver does not);
//! * a reference of the GC hierarchy (**anyref**, eqref, i31ref, struct
//!   and array references) is a reference object that pins its referent
//!   ([`crate::c_api::anyref`]), owned as function objects are; its kind
//!   byte is `WASM_EXTERNREF` (alias `WASM_ANYREF`), and the value's type
//!   tells it from an externref;
//! * an **exnref** has no form in wasm.h: it reads as NULL, and only NULL
//!   may be passed.
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
//!   point at 16 bytes from `malloc`, which the client releases with
//!   `free(val.of.ref)` (result slots are never read, so they may be
//!   uninitialised); host callback arguments point at bytes the runtime
//!   frees after the callback returns.
//!
//! `wasm_val_delete` is WAMR's: it frees the `wasm_val_t` itself, which
//! must come from `malloc` (first the 16 bytes of a v128 it holds).

use crate::core::kinds;
use std::ptr;

use cranewasm::{AsContextMut, HeapType, V128, Val, ValRaw, ValType};

use crate::c_api::anyref;
use crate::c_api::extern_::Item;
use crate::c_api::func::new_func;
use crate::c_api::store::{StoreData, StoreObj};
use crate::core::store::{externref_for, host_pointer};
use crate::object::get;
use crate::*;

pub use crate::core::val::*;

/// The core value of type `ty` that `v` holds. The kinds must already have
/// been checked to match.
///
/// # Safety
/// `cx` must be a context of a live store's core store; a v128 must
/// point at 16 bytes; a funcref may be NULL or any pointer.
pub unsafe fn to_core(cx: impl AsContextMut<Data = StoreData>, v: &wasm_val_t, ty: ValType) -> Result<Val, String> {
    // SAFETY: the scalar members of the union may be read at any bit
    // pattern (the kind says which one was written).
    let (bits32, bits64) = unsafe { (v.of.i32, v.of.i64) };
    Ok(match ty {
        ValType::I32 => Val::I32(bits32),
        ValType::I64 => Val::I64(bits64),
        ValType::F32 => Val::F32(bits32 as u32),
        ValType::F64 => Val::F64(bits64 as u64),
        // SAFETY: a v128 points at its 16 bytes (caller).
        ValType::V128 => match unsafe { v.ref_ptr().cast::<[u8; 16]>().as_ref() } {
            Some(bytes) => Val::V128(V128(u128::from_le_bytes(*bytes))),
            None => return Err("a v128 value's of.ref must point at its 16 bytes".to_string()),
        },
        ValType::Ref(r) => match r.heap_type().top() {
            HeapType::Extern => match v.ref_ptr() as usize {
                0 => Val::ExternRef(None),
                p => Val::ExternRef(Some(externref_for(cx, p))),
            },
            // SAFETY: as the caller promises.
            HeapType::Any => Val::AnyRef(unsafe { anyref::value_of(v.ref_ptr()) }?),
            // A concrete type counts as a function type until the type
            // section is asked (`HeapType::top`); the object itself says
            // whether it is a struct or array instead.
            // SAFETY: as the caller promises.
            HeapType::Func if unsafe { anyref::is_gc_ref(v.ref_ptr()) } => {
                // SAFETY: as the caller promises.
                Val::AnyRef(unsafe { anyref::value_of(v.ref_ptr()) }?)
            }
            // SAFETY: as the caller promises.
            HeapType::Func => Val::FuncRef(unsafe { func_of_ref(v.ref_ptr()) }?),
            _ if v.ref_ptr().is_null() => Val::default_for(ty),
            _ => return Err(format!("a non-null {r} value cannot be passed through the C API")),
        },
    })
}

/// The function a funcref value names: none for NULL, and for any pointer
/// that is not a live reference (such a pointer counts as NULL).
///
/// # Safety
/// As for [`crate::object::get`]; the reference's store must not be borrowed.
pub unsafe fn func_of_ref(r: *mut wasm_ref_t) -> Result<Option<cranewasm::Func>, String> {
    // SAFETY: as the caller promises.
    let Some(obj) = (unsafe { get::<wasm_extern_t>(r.cast::<wasm_extern_t>().cast_const()) }) else {
        // SAFETY: as the caller promises.
        return match unsafe { get::<wasm_ref_t>(r.cast_const()) } {
            Some(_) => Err("funcref value is not a function".to_string()),
            None => Ok(None),
        };
    };
    match &obj.item {
        Item::Func(f) => {
            // The function is going where the C layer cannot follow it:
            // its instance must outlive every C handle.
            if let Some(owner) = obj.owner() {
                // SAFETY: the store of a live object is live.
                unsafe { crate::c_api::instance::escape(obj.header.store, owner) };
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
        // wasm.h has no exception references (its `wasm_ref_t` kinds are
        // functions and host references), so C sees an exnref as null.
        Val::ExnRef(_) => wasm_val_union { r#ref: ptr::null_mut() },
        Val::AnyRef(a) => wasm_val_union {
            // SAFETY: `store` is live and `cx` its core store (caller).
            r#ref: a.map_or(ptr::null_mut(), |a| unsafe { anyref::new_ref(store, &cx, a) }),
        },
        Val::FuncRef(f) => wasm_val_union {
            r#ref: match f {
                None => ptr::null_mut(),
                Some(f) => {
                    let ty = f.ty(&mut cx);
                    // SAFETY: `store` is live (caller) and owns `f`.
                    unsafe { new_func(store, f, ty) }.cast()
                }
            },
        },
    };
    wasm_val_t::new(v.ty(), of)
}

/// The C form of a host function's parameter slot of type `ty` (an
/// externref's slot holds its host pointer already; see
/// [`crate::core::host`]); a function becomes a new function object
/// registered with `store`.
///
/// # Safety
/// `store` must be live and `cx` a context of its core store; `slot` one of
/// the call's.
pub unsafe fn from_slot(
    store: *mut StoreObj,
    mut cx: impl AsContextMut<Data = StoreData>,
    slot: ValRaw,
    ty: ValType,
) -> wasm_val_t {
    if ty == ValType::EXTERNREF {
        return wasm_val_t::new(ty, wasm_val_union { r#ref: slot.get_ref() as *mut wasm_ref_t });
    }
    // SAFETY: a slot of this store, written by its compiled code (caller).
    let v = unsafe { Val::from_raw_in(&mut cx, slot, ty) };
    // SAFETY: as the caller promises.
    unsafe { from_core(store, cx, v) }
}

/// The slot of a host function's result `v` of type `ty` (an externref
/// as its host pointer, which the core turns into the reference).
///
/// # Safety
/// As for [`to_core`].
pub unsafe fn to_slot(
    mut cx: impl AsContextMut<Data = StoreData>,
    v: &wasm_val_t,
    ty: ValType,
) -> Result<ValRaw, String> {
    if ty == ValType::EXTERNREF {
        return Ok(ValRaw::reference(ty, v.ref_ptr() as usize));
    }
    // SAFETY: as the caller promises.
    let v = unsafe { to_core(&mut cx, v, ty) }?;
    // Compiled code reads the slot as a `ty`: a reference of another type
    // must not get there.
    if !v.matches_ty_in(&cx, ty) {
        return Err(format!("a host function returned a value that is not of type {ty}"));
    }
    v.into_raw_in_mut(&mut cx).map_err(|e| e.to_string())
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

/// Frees a value that came from `malloc`, as WAMR does; a v128's 16 bytes
/// (from `malloc`, as the ones handed out are) are freed first. A
/// funcref's object is left alone (it belongs to its store; delete it
/// with `wasm_ref_delete`), and so is an externref's host pointer.
///
/// # Safety
/// `v` must be NULL or a value from `malloc` that nothing uses afterwards;
/// a v128's bytes must come from `malloc` or be NULL.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_val_delete(v: *mut wasm_val_t) {
    // SAFETY: NULL or a valid value (caller).
    let Some(val) = (unsafe { v.as_ref() }) else { return };
    // SAFETY: as the caller promises: the bytes, then the value, come from
    // malloc and are used by no one afterwards.
    unsafe {
        if val.kind == kinds::V128 {
            libc::free(val.ref_ptr().cast());
        }
        libc::free(v.cast());
    }
}

/// Copies a value; a funcref gets its own copy of the function object, a
/// GC reference its own reference object, and a v128 its own 16 bytes (from `malloc`: free them with `free`), so both
/// values are independent.
///
/// # Safety
/// `out` must be NULL or writable; `src` NULL or a valid value (a v128
/// pointing at 16 bytes, a funcref any pointer: anything but a live
/// reference copies as NULL).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_val_copy(out: *mut wasm_val_t, src: Option<&wasm_val_t>) {
    let (false, Some(src)) = (out.is_null(), src) else { return };
    let mut copy = *src;
    // SAFETY: the reference is checked like any handle.
    if src.kind == kinds::FUNCREF || (src.kind == kinds::EXTERNREF && unsafe { anyref::is_gc_ref(src.ref_ptr()) }) {
        // SAFETY: the reference is checked like any handle.
        copy.of.r#ref = unsafe { crate::c_api::ref_::wasm_ref_copy(src.ref_ptr().as_ref()) };
    } else if src.kind == kinds::V128 {
        // SAFETY: a v128 points at its 16 bytes (caller).
        if let Some(bytes) = unsafe { src.ref_ptr().cast::<[u8; 16]>().as_ref() } {
            copy.of.r#ref = new_v128(V128(u128::from_le_bytes(*bytes))).cast();
        }
    }
    // SAFETY: `out` is writable (caller).
    unsafe { out.write(copy) };
}
