//! The untyped value slot that trampolines and compiled code read and
//! write ([`ValRaw`]), and the 128-bit vector value ([`V128`]).

use std::fmt;

use super::types::ValType;

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

    /// The kind byte a slot of type `ty` carries: the C API's
    /// `wasm_valkind_t` codes, since the C layer passes `wasm_val_t`
    /// arrays to compiled code as they are (0-4 for the numbers and
    /// `v128`, 128 for external and internal references, 129 for
    /// function references).
    pub fn kind_of(ty: ValType) -> u8 {
        match ty {
            ValType::I32 => 0,
            ValType::I64 => 1,
            ValType::F32 => 2,
            ValType::F64 => 3,
            ValType::V128 => 4,
            ValType::Ref(r) if r.is_func() => 129,
            ValType::Ref(_) => 128,
        }
    }

    fn scalar(kind: ValType, payload: u64) -> ValRaw {
        let mut bytes = [0u8; 16];
        bytes[0] = ValRaw::kind_of(kind);
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
    /// Where a reference slot keeps its word, which a moving collector
    /// rewrites.
    pub(crate) fn ref_slot(&mut self) -> *mut usize {
        self.bytes[Self::PAYLOAD..].as_mut_ptr().cast()
    }
    /// The kind byte (meaningless for a v128 slot).
    pub fn kind_byte(&self) -> u8 {
        self.bytes[0]
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
        assert_eq!(ValRaw::reference(ValType::FUNCREF, 0x10).kind_byte(), 129);
        assert_eq!(ValRaw::v128(u128::MAX - 1).get_v128(), u128::MAX - 1);
    }
}
