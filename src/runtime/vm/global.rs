//! A global's storage, [`VMGlobal`] (laid out in `vmctx.rs`, where compiled
//! code reads it), read and written as typed values.
//!
//! A global lives in its defining instance's VMContext or, when the host
//! creates it, in a box of the store's; either way compiled code and
//! handles reach it by address.

use super::store::StoreOpaque;
use super::stored::StoreOwned;
use crate::environ::types::ValType;
use crate::environ::val_raw::ValRaw;
use crate::environ::vmctx::VMGlobal;

impl VMGlobal {
    /// The stored value, as a raw value of type `ty`.
    pub(crate) fn read(&self, ty: ValType) -> ValRaw {
        let b = self.bytes;
        let word = u64::from_le_bytes(b[..8].try_into().unwrap());
        match ty {
            ValType::I32 => ValRaw::i32(word as u32 as i32),
            ValType::I64 => ValRaw::i64(word as i64),
            ValType::F32 => ValRaw::f32(word as u32),
            ValType::F64 => ValRaw::f64(word),
            ValType::V128 => ValRaw::v128(u128::from_le_bytes(b)),
            ValType::Ref(_) => ValRaw::reference(ty, word as usize),
        }
    }

    /// Stores the raw value `v` of type `ty`.
    pub(crate) fn write(&mut self, ty: ValType, v: ValRaw) {
        self.bytes = match ty {
            ValType::I32 | ValType::F32 => (v.get_i32() as u32 as u128).to_le_bytes(),
            ValType::I64 | ValType::F64 => (v.get_i64() as u64 as u128).to_le_bytes(),
            ValType::V128 => v.get_v128().to_le_bytes(),
            ValType::Ref(_) => (v.get_ref() as u128).to_le_bytes(),
        };
    }
}

impl StoreOwned for VMGlobal {
    fn list(store: &mut StoreOpaque) -> &mut Vec<Box<Self>> {
        &mut store.globals
    }
}
