//! 128-bit SIMD operators, including the relaxed-SIMD proposal.
//!
//! A v128 on the operand stack is always an `I8X16` value, the canonical
//! type that locals, block parameters, globals and calls use (see
//! `func_env::ir_type`). Each operator views its operands as the lane type
//! it works on with a bitcast, and its result is cast back before it is
//! pushed; bitcasts between 128-bit vector types cost no instruction.
//!
//! `visit.rs` maps every operator to its translation: most are one
//! Cranelift instruction through the helpers here, the others live in the
//! files of their family: `memory` (loads and stores), `lanes` (constants,
//! shuffles, splats, lane access), `integer`, `float`, `conversions`
//! (narrow, widen, convert) and `relaxed`.

mod conversions;
mod float;
mod integer;
mod lanes;
mod memory;
mod relaxed;
mod visit;

use cranelift_codegen::ir::{types::I8X16, Endianness, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

/// Flags of a bitcast between vector types: the lane order is wasm's
/// little-endian order whatever the host.
pub(super) fn cast_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl Translator<'_, '_> {
    /// `v` viewed as vector type `ty`.
    fn cast(&mut self, v: Value, ty: Type) -> Value {
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().bitcast(ty, cast_flags(), v)
        }
    }

    /// Pops a v128 viewed as `ty`.
    fn pop_v(&mut self, ty: Type) -> Value {
        let v = self.pop1();
        self.cast(v, ty)
    }

    /// Pushes a vector result in the canonical v128 type.
    fn push_v(&mut self, v: Value) {
        let v = self.cast(v, I8X16);
        self.push1(v)
    }

    /// A lane-wise operation on one vector of type `ty`.
    fn v_unary(&mut self, ty: Type, f: impl FnOnce(&mut FunctionBuilder<'_>, Value) -> Value) {
        let a = self.pop_v(ty);
        let r = f(&mut self.b, a);
        self.push_v(r)
    }

    /// A lane-wise operation on two vectors of type `ty`.
    fn v_binary(&mut self, ty: Type, f: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value) -> Value) {
        let y = self.pop_v(ty);
        let x = self.pop_v(ty);
        let r = f(&mut self.b, x, y);
        self.push_v(r)
    }

    /// A lane-wise operation on three vectors of type `ty`.
    fn v_ternary(&mut self, ty: Type, f: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value, Value) -> Value) {
        let z = self.pop_v(ty);
        let y = self.pop_v(ty);
        let x = self.pop_v(ty);
        let r = f(&mut self.b, x, y, z);
        self.push_v(r)
    }

    /// A 128-bit constant of type `ty`.
    fn v_const(&mut self, ty: Type, bytes: [u8; 16]) -> Value {
        let c = self.b.func.dfg.constants.insert(bytes.to_vec().into());
        self.b.ins().vconst(ty, c)
    }
}
