//! The C APIs' kind codes: `wasm_valkind_t` and `wasm_mutability_t` of
//! `wasm_c_api.h`, which `wasm_export.h`'s `wasm_valkind_t` shares.

use cranewasm::{Mutability, ValRaw, ValType};

/// `WASM_I32`.
pub(crate) const I32: u8 = 0;
/// `WASM_I64`.
pub(crate) const I64: u8 = 1;
/// `WASM_F32`.
pub(crate) const F32: u8 = 2;
/// `WASM_F64`.
pub(crate) const F64: u8 = 3;
/// `WASM_V128`.
pub(crate) const V128: u8 = 4;
/// `WASM_EXTERNREF` (WAMR also calls it `WASM_ANYREF`).
pub(crate) const EXTERNREF: u8 = 128;
/// `WASM_FUNCREF`.
pub(crate) const FUNCREF: u8 = 129;

/// The kind code of a value type. The C APIs know the 2.0 types; other
/// references report the code of their hierarchy (function references as
/// `WASM_FUNCREF`, the rest as `WASM_EXTERNREF`), which is also the kind
/// byte compiled code writes into a slot (`ValRaw::kind_of`).
pub fn valkind(ty: ValType) -> u8 {
    let kind = match ty {
        ValType::I32 => I32,
        ValType::I64 => I64,
        ValType::F32 => F32,
        ValType::F64 => F64,
        ValType::V128 => V128,
        ValType::Ref(r) if r.is_func() => FUNCREF,
        ValType::Ref(_) => EXTERNREF,
    };
    debug_assert_eq!(kind, ValRaw::kind_of(ty), "slots carry the C kind codes");
    kind
}

/// The value type of a kind code, if it names one.
pub fn valtype(kind: u8) -> Option<ValType> {
    Some(match kind {
        I32 => ValType::I32,
        I64 => ValType::I64,
        F32 => ValType::F32,
        F64 => ValType::F64,
        V128 => ValType::V128,
        EXTERNREF => ValType::EXTERNREF,
        FUNCREF => ValType::FUNCREF,
        _ => return None,
    })
}

/// `WASM_CONST` (0) or `WASM_VAR` (1).
pub fn mutability_code(m: Mutability) -> u8 {
    match m {
        Mutability::Const => 0,
        Mutability::Var => 1,
    }
}

/// The mutability of a `wasm_mutability_t`, if it names one.
pub fn mutability(code: u8) -> Option<Mutability> {
    match code {
        0 => Some(Mutability::Const),
        1 => Some(Mutability::Var),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        for kind in [I32, I64, F32, F64, V128, EXTERNREF, FUNCREF] {
            assert_eq!(valtype(kind).map(valkind), Some(kind));
        }
        assert_eq!(valtype(7), None);
        assert_eq!(mutability(2), None);
    }
}
