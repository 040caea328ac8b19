//! WebAssembly values: the typed [`Val`] of the embedding API and the
//! untyped [`ValRaw`] slot that trampolines read and write.

use std::fmt;

use crate::runtime::externref::ExternRef;
use crate::runtime::func::Func;
use crate::types::ValType;

/// A 128-bit SIMD value, little-endian lanes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default)]
pub struct V128(pub u128);

impl V128 {
    /// The lanes as one little-endian integer.
    pub fn as_u128(self) -> u128 {
        self.0
    }
    /// The 16 bytes in memory order.
    pub fn to_le_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }
}

impl fmt::Debug for V128 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "V128({:#034x})", self.0)
    }
}

/// A value passed to or returned from WebAssembly.
///
/// Floats are kept as bit patterns so NaN payloads survive a round trip.
#[derive(Clone, Copy, Debug)]
pub enum Val {
    /// An `i32`.
    I32(i32),
    /// An `i64`.
    I64(i64),
    /// An `f32`, as its bits.
    F32(u32),
    /// An `f64`, as its bits.
    F64(u64),
    /// A `v128`.
    V128(V128),
    /// A `funcref`, `None` for null.
    FuncRef(Option<Func>),
    /// An `externref`, `None` for null.
    ExternRef(Option<ExternRef>),
}

impl Val {
    /// An `f32` value.
    pub fn f32(v: f32) -> Val {
        Val::F32(v.to_bits())
    }

    /// An `f64` value.
    pub fn f64(v: f64) -> Val {
        Val::F64(v.to_bits())
    }

    /// The type of this value.
    pub fn ty(&self) -> ValType {
        match self {
            Val::I32(_) => ValType::I32,
            Val::I64(_) => ValType::I64,
            Val::F32(_) => ValType::F32,
            Val::F64(_) => ValType::F64,
            Val::V128(_) => ValType::V128,
            Val::FuncRef(_) => ValType::FuncRef,
            Val::ExternRef(_) => ValType::ExternRef,
        }
    }

    /// The default ("zero") value of a type: what locals and table slots
    /// start as.
    pub fn default_for(ty: ValType) -> Val {
        match ty {
            ValType::I32 => Val::I32(0),
            ValType::I64 => Val::I64(0),
            ValType::F32 => Val::F32(0),
            ValType::F64 => Val::F64(0),
            ValType::V128 => Val::V128(V128(0)),
            ValType::FuncRef => Val::FuncRef(None),
            ValType::ExternRef => Val::ExternRef(None),
        }
    }

    /// The `i32`, if this is one.
    pub fn i32(&self) -> Option<i32> {
        if let Val::I32(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `i64`, if this is one.
    pub fn i64(&self) -> Option<i64> {
        if let Val::I64(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `f32`, if this is one.
    pub fn f32_value(&self) -> Option<f32> {
        if let Val::F32(v) = self {
            Some(f32::from_bits(*v))
        } else {
            None
        }
    }
    /// The `f64`, if this is one.
    pub fn f64_value(&self) -> Option<f64> {
        if let Val::F64(v) = self {
            Some(f64::from_bits(*v))
        } else {
            None
        }
    }
    /// The `v128`, if this is one.
    pub fn v128(&self) -> Option<V128> {
        if let Val::V128(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `funcref`, if this is one.
    pub fn funcref(&self) -> Option<Option<Func>> {
        if let Val::FuncRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
    /// The `externref`, if this is one.
    pub fn externref(&self) -> Option<Option<ExternRef>> {
        if let Val::ExternRef(v) = self {
            Some(*v)
        } else {
            None
        }
    }
}

impl From<i32> for Val {
    fn from(v: i32) -> Val {
        Val::I32(v)
    }
}
impl From<i64> for Val {
    fn from(v: i64) -> Val {
        Val::I64(v)
    }
}
impl From<f32> for Val {
    fn from(v: f32) -> Val {
        Val::f32(v)
    }
}
impl From<f64> for Val {
    fn from(v: f64) -> Val {
        Val::f64(v)
    }
}
impl From<V128> for Val {
    fn from(v: V128) -> Val {
        Val::V128(v)
    }
}

/// One untyped value slot, 16 bytes, as trampolines move values between
/// the host and compiled code.
///
/// The layout is the C API's `wasm_val_t`: a kind byte at offset 0 and
/// scalars (i32, i64, f32, f64, references) at offset 8. A v128 fills all 16
/// bytes. Sharing the layout lets the C layer pass `wasm_val_t` arrays to
/// compiled code and C callbacks without copying.
#[repr(C, align(8))]
#[derive(Copy, Clone, Default, PartialEq, Eq)]
pub struct ValRaw {
    bytes: [u8; 16],
}

impl fmt::Debug for ValRaw {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ValRaw({:02x?})", self.bytes)
    }
}

impl ValRaw {
    /// Offset of scalar payloads within the slot.
    pub const PAYLOAD: usize = 8;

    fn scalar(kind: ValType, payload: u64) -> ValRaw {
        let mut bytes = [0u8; 16];
        bytes[0] = kind as u8;
        bytes[8..].copy_from_slice(&payload.to_le_bytes());
        ValRaw { bytes }
    }

    fn payload(&self) -> u64 {
        u64::from_le_bytes(self.bytes[8..].try_into().unwrap())
    }

    /// An `i32` slot.
    pub fn i32(v: i32) -> ValRaw {
        ValRaw::scalar(ValType::I32, v as u32 as u64)
    }
    /// An `i64` slot.
    pub fn i64(v: i64) -> ValRaw {
        ValRaw::scalar(ValType::I64, v as u64)
    }
    /// An `f32` slot from its bits.
    pub fn f32(bits: u32) -> ValRaw {
        ValRaw::scalar(ValType::F32, bits as u64)
    }
    /// An `f64` slot from its bits.
    pub fn f64(bits: u64) -> ValRaw {
        ValRaw::scalar(ValType::F64, bits)
    }
    /// A `v128` slot.
    pub fn v128(v: u128) -> ValRaw {
        ValRaw { bytes: v.to_le_bytes() }
    }
    /// A reference slot; `kind` is `FuncRef` or `ExternRef`.
    pub fn reference(kind: ValType, ptr: usize) -> ValRaw {
        ValRaw::scalar(kind, ptr as u64)
    }

    /// The slot as an `i32`.
    pub fn get_i32(&self) -> i32 {
        self.payload() as u32 as i32
    }
    /// The slot as an `i64`.
    pub fn get_i64(&self) -> i64 {
        self.payload() as i64
    }
    /// The slot as `f32` bits.
    pub fn get_f32(&self) -> u32 {
        self.payload() as u32
    }
    /// The slot as `f64` bits.
    pub fn get_f64(&self) -> u64 {
        self.payload()
    }
    /// The slot as a `v128`.
    pub fn get_v128(&self) -> u128 {
        u128::from_le_bytes(self.bytes)
    }
    /// The slot as a raw reference (0 for null).
    pub fn get_ref(&self) -> usize {
        self.payload() as usize
    }
    /// The kind byte (meaningless for a v128 slot).
    pub fn kind_byte(&self) -> u8 {
        self.bytes[0]
    }
}

use crate::runtime::store::StoreOpaque;
use crate::runtime::vm::stored::Stored;

impl Val {
    /// The raw slot form of this value, checking that references belong to
    /// `store`.
    pub(crate) fn to_raw(self, store: &StoreOpaque) -> crate::Result<ValRaw> {
        Ok(match self {
            Val::I32(v) => ValRaw::i32(v),
            Val::I64(v) => ValRaw::i64(v),
            Val::F32(v) => ValRaw::f32(v),
            Val::F64(v) => ValRaw::f64(v),
            Val::V128(v) => ValRaw::v128(v.0),
            Val::FuncRef(f) => ValRaw::reference(
                ValType::FuncRef,
                match f {
                    None => 0,
                    Some(f) => {
                        f.0.check(store)?;
                        f.0.as_ptr() as usize
                    }
                },
            ),
            Val::ExternRef(e) => ValRaw::reference(
                ValType::ExternRef,
                match e {
                    None => 0,
                    Some(e) => {
                        e.0.check(store)?;
                        e.0.as_ptr() as usize
                    }
                },
            ),
        })
    }

    /// The value of type `ty` in a raw slot written by compiled code of
    /// `store`.
    pub(crate) fn from_raw(store: &StoreOpaque, raw: ValRaw, ty: ValType) -> Val {
        match ty {
            ValType::I32 => Val::I32(raw.get_i32()),
            ValType::I64 => Val::I64(raw.get_i64()),
            ValType::F32 => Val::F32(raw.get_f32()),
            ValType::F64 => Val::F64(raw.get_f64()),
            ValType::V128 => Val::V128(V128(raw.get_v128())),
            ValType::FuncRef | ValType::ExternRef => Val::from_raw_ref(store, ty, raw.get_ref()),
        }
    }

    /// A reference value from its raw form (0 for null), which must come
    /// from `store`: written by its compiled code, or stored in its tables
    /// or globals.
    pub(crate) fn from_raw_ref(store: &StoreOpaque, ty: ValType, raw: usize) -> Val {
        let ptr = std::ptr::NonNull::new(raw as *mut u8);
        // SAFETY (both arms): a non-null reference of `store` is the address
        // of a funcref or externref data that the store owns.
        match ty {
            ValType::FuncRef => Val::FuncRef(ptr.map(|p| Func(unsafe { Stored::new_unchecked(store.id(), p.cast()) }))),
            _ => Val::ExternRef(ptr.map(|p| ExternRef(unsafe { Stored::new_unchecked(store.id(), p.cast()) }))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_slots_have_the_c_api_layout() {
        assert_eq!(std::mem::size_of::<ValRaw>(), 16);
        let v = ValRaw::i32(-2);
        assert_eq!(v.kind_byte(), 0);
        assert_eq!(v.bytes[8..12], (-2i32).to_le_bytes());
        assert_eq!(ValRaw::f64(7).kind_byte(), 3);
        assert_eq!(ValRaw::reference(ValType::FuncRef, 0x10).kind_byte(), 129);
        assert_eq!(ValRaw::v128(u128::MAX - 1).get_v128(), u128::MAX - 1);
    }
}
