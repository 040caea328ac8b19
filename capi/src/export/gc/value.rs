//! `wasm_value_t` (WAMR's `WASMValue` union) as the struct and array
//! object functions take and give it, and its conversion to and from the
//! core's [`Val`] for a field of a given storage type.
//!
//! References are `wasm_obj_t`s: NULL, an i31 word, a struct or array
//! object cell, or for an `externref` field an externref object (its host
//! pointer goes in as `wasm_export.h`'s externrefs do, and comes out as a
//! new externref object). Function and anyref object cells hold what the
//! core's heap cannot take from here (the C API passes no anyref into
//! wasm, see `src/runtime/vm/gc/README.md`), so storing one is refused
//! (logged), and a field holding a function or host data made internal
//! reads as NULL.

use cranewasm::{AnyRef, ArrayRef, AsContext, AsContextMut, HeapType, I31, StorageType, StructRef, V128, Val, ValType};

use crate::core::runtime::log;
use crate::export::gc::object::{
    GcValue, Obj, add_to, obj, wasm_externref_obj_get_value, wasm_i31_obj_new, wasm_obj_t,
};
use crate::export::instance::{InstData, ModuleInst};

/// WAMR's `WASMValue`: 16 bytes, 8-aligned (its `V128` member holds
/// 64-bit lanes). Only the members the object functions read or write
/// are named; the header (`capi/cbindgen-gc.toml`) spells out the rest.
#[repr(C)]
#[derive(Copy, Clone)]
pub union WASMValue {
    pub i32: i32,
    pub i64: i64,
    pub f32: u32,
    pub f64: u64,
    pub v128: [u64; 2],
    pub gc_obj: wasm_obj_t,
}
pub type wasm_value_t = WASMValue;

/// The value `v` holds for a field of `storage`; `None` (logged) for an
/// object the core's heap cannot take.
///
/// # Safety
/// An object in `v` must stay alive meanwhile (its instance kept).
pub unsafe fn to_val<C: AsContextMut<Data = InstData>>(
    store: &mut C,
    v: &wasm_value_t,
    storage: StorageType,
) -> Option<Val> {
    // SAFETY: every member is plain data of the union's 16 bytes, and a
    // pointer read as such is only compared and looked up, never followed.
    let (i32, i64, v128, gc_obj) = unsafe { (v.i32, v.i64, v.v128, v.gc_obj) };
    Some(match storage {
        StorageType::I8 | StorageType::I16 | StorageType::Val(ValType::I32) => Val::I32(i32),
        StorageType::Val(ValType::I64) => Val::I64(i64),
        StorageType::Val(ValType::F32) => Val::F32(i32 as u32),
        StorageType::Val(ValType::F64) => Val::F64(i64 as u64),
        StorageType::Val(ValType::V128) => Val::V128(V128(u128::from(v128[0]) | u128::from(v128[1]) << 64)),
        // SAFETY: as the caller promises.
        StorageType::Val(ValType::Ref(r)) => match unsafe { obj(gc_obj) } {
            None if gc_obj.is_null() => Val::default_for(ValType::Ref(r)),
            Some(Obj::I31(x)) => Val::AnyRef(Some(AnyRef::from_i31(I31::wrapping_u32(x)))),
            Some(Obj::Cell(c)) => match &c.value {
                GcValue::Struct { obj, .. } => (*obj).into(),
                GcValue::Array { obj, .. } => (*obj).into(),
                GcValue::Externref(_) if r.heap_type().top() == HeapType::Extern => {
                    // SAFETY: a live externref object (as the caller promises).
                    let p = unsafe { wasm_externref_obj_get_value(gc_obj.cast()) };
                    crate::export::externref::to_val(store, p as usize)
                }
                _ => {
                    log(1, format_args!("a function, externref or anyref object cannot be stored in a GC object"));
                    return None;
                }
            },
            None => {
                log(1, format_args!("not a GC object: {gc_obj:p}"));
                return None;
            }
        },
    })
}

/// `v`, read from a field of `storage` of an object of `inst`, as a
/// `wasm_value_t`: a packed field sign-extended or not; a struct or array
/// as a new object cell owned by `inst` (pinned as long as it), NULL for
/// host data or a function (see the module docs).
pub fn from_val<C: AsContext<Data = InstData>>(
    inst: &ModuleInst,
    store: &C,
    v: Val,
    storage: StorageType,
    sign_extend: bool,
) -> wasm_value_t {
    let mut out = WASMValue { v128: [0; 2] };
    match v {
        Val::I32(x) => {
            out.i32 = match (storage, sign_extend) {
                (StorageType::I8, true) => x as i8 as i32,
                (StorageType::I16, true) => x as i16 as i32,
                _ => x,
            }
        }
        Val::I64(x) => out.i64 = x,
        Val::F32(x) => out.f32 = x,
        Val::F64(x) => out.f64 = x,
        Val::V128(x) => out.v128 = [x.0 as u64, (x.0 >> 64) as u64],
        Val::AnyRef(Some(a)) => {
            if let Some(i) = a.as_i31() {
                out.gc_obj = wasm_i31_obj_new(i.get_u32()) as wasm_obj_t;
            } else if let Some(s) = a.as_struct() {
                out.gc_obj = cell(
                    inst,
                    s.pin(store).map(|obj| GcValue::Struct { inst: inst.handle(), serial: inst.serial, obj }),
                );
            } else if let Some(a) = a.as_array() {
                out.gc_obj = cell(
                    inst,
                    a.pin(store).map(|obj| GcValue::Array { inst: inst.handle(), serial: inst.serial, obj }),
                );
            }
        }
        Val::ExternRef(Some(_)) => {
            let p = crate::export::externref::host_pointer(store, v);
            let inner = add_to(inst, GcValue::Anyref(p));
            if !inner.is_null() {
                out.gc_obj = add_to(inst, GcValue::Externref(inner as usize));
            }
        }
        _ => {}
    }
    out
}

/// A new cell of `inst` for a pinned struct or array handle (NULL when
/// pinning failed).
fn cell(inst: &ModuleInst, value: cranewasm::Result<GcValue>) -> wasm_obj_t {
    match value {
        Ok(v) => add_to(inst, v),
        Err(e) => {
            log(1, format_args!("a GC object cannot be read: {e}"));
            std::ptr::null_mut()
        }
    }
}

/// The storage type a struct or array handle's field has, for
/// [`to_val`]/[`from_val`].
pub fn struct_field<C: AsContext<Data = InstData>>(store: &C, s: &StructRef, i: usize) -> Option<StorageType> {
    s.field_type(store, i).ok().map(|f| f.storage)
}

/// See [`struct_field`].
pub fn array_elem<C: AsContext<Data = InstData>>(store: &C, a: &ArrayRef) -> Option<StorageType> {
    a.elem_type(store).ok().map(|f| f.storage)
}
