//! Bitwise operators, integer lane arithmetic, shifts and comparisons.
//!
//! Cranelift's vector instructions have wasm's semantics here: shift counts
//! are taken modulo the lane width, saturating and rounding-average ops
//! work per lane, and `icmp` yields all-ones or all-zeros lanes.

use cranelift_codegen::ir::{
    condcodes::IntCC,
    types::{I16X8, I32, I32X4, I64X2, I8X16},
    InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use wasmparser::Operator;

use super::Translator;

/// A shift of every lane by a scalar count.
type Shift = fn(&mut FunctionBuilder<'_>, Value, Value) -> Value;

impl Translator<'_, '_> {
    pub(super) fn translate_simd_integer(&mut self, op: &Operator<'_>) -> bool {
        use IntCC::*;
        use Operator as O;
        match *op {
            O::V128Not => self.v_unary(I8X16, |b, x| b.ins().bnot(x)),
            O::V128And => self.v_binary(I8X16, |b, x, y| b.ins().band(x, y)),
            O::V128AndNot => self.v_binary(I8X16, |b, x, y| b.ins().band_not(x, y)),
            O::V128Or => self.v_binary(I8X16, |b, x, y| b.ins().bor(x, y)),
            O::V128Xor => self.v_binary(I8X16, |b, x, y| b.ins().bxor(x, y)),
            // wasm's operands are (v1, v2, mask); Cranelift's mask comes first.
            O::V128Bitselect => self.v_ternary(I8X16, |b, x, y, m| b.ins().bitselect(m, x, y)),
            O::V128AnyTrue => self.v_test(I8X16, |b, x| b.ins().vany_true(x)),

            O::I8x16AllTrue => self.v_test(I8X16, |b, x| b.ins().vall_true(x)),
            O::I16x8AllTrue => self.v_test(I16X8, |b, x| b.ins().vall_true(x)),
            O::I32x4AllTrue => self.v_test(I32X4, |b, x| b.ins().vall_true(x)),
            O::I64x2AllTrue => self.v_test(I64X2, |b, x| b.ins().vall_true(x)),
            O::I8x16Bitmask => self.bitmask(I8X16),
            O::I16x8Bitmask => self.bitmask(I16X8),
            O::I32x4Bitmask => self.bitmask(I32X4),
            O::I64x2Bitmask => self.bitmask(I64X2),

            O::I8x16Abs => self.v_unary(I8X16, |b, x| b.ins().iabs(x)),
            O::I16x8Abs => self.v_unary(I16X8, |b, x| b.ins().iabs(x)),
            O::I32x4Abs => self.v_unary(I32X4, |b, x| b.ins().iabs(x)),
            O::I64x2Abs => self.v_unary(I64X2, |b, x| b.ins().iabs(x)),
            O::I8x16Neg => self.v_unary(I8X16, |b, x| b.ins().ineg(x)),
            O::I16x8Neg => self.v_unary(I16X8, |b, x| b.ins().ineg(x)),
            O::I32x4Neg => self.v_unary(I32X4, |b, x| b.ins().ineg(x)),
            O::I64x2Neg => self.v_unary(I64X2, |b, x| b.ins().ineg(x)),
            O::I8x16Popcnt => self.v_unary(I8X16, |b, x| b.ins().popcnt(x)),

            O::I8x16Shl => self.shift(I8X16, |b, x, n| b.ins().ishl(x, n)),
            O::I16x8Shl => self.shift(I16X8, |b, x, n| b.ins().ishl(x, n)),
            O::I32x4Shl => self.shift(I32X4, |b, x, n| b.ins().ishl(x, n)),
            O::I64x2Shl => self.shift(I64X2, |b, x, n| b.ins().ishl(x, n)),
            O::I8x16ShrS => self.shift(I8X16, |b, x, n| b.ins().sshr(x, n)),
            O::I16x8ShrS => self.shift(I16X8, |b, x, n| b.ins().sshr(x, n)),
            O::I32x4ShrS => self.shift(I32X4, |b, x, n| b.ins().sshr(x, n)),
            O::I64x2ShrS => self.shift(I64X2, |b, x, n| b.ins().sshr(x, n)),
            O::I8x16ShrU => self.shift(I8X16, |b, x, n| b.ins().ushr(x, n)),
            O::I16x8ShrU => self.shift(I16X8, |b, x, n| b.ins().ushr(x, n)),
            O::I32x4ShrU => self.shift(I32X4, |b, x, n| b.ins().ushr(x, n)),
            O::I64x2ShrU => self.shift(I64X2, |b, x, n| b.ins().ushr(x, n)),

            O::I8x16Add => self.v_binary(I8X16, |b, x, y| b.ins().iadd(x, y)),
            O::I16x8Add => self.v_binary(I16X8, |b, x, y| b.ins().iadd(x, y)),
            O::I32x4Add => self.v_binary(I32X4, |b, x, y| b.ins().iadd(x, y)),
            O::I64x2Add => self.v_binary(I64X2, |b, x, y| b.ins().iadd(x, y)),
            O::I8x16Sub => self.v_binary(I8X16, |b, x, y| b.ins().isub(x, y)),
            O::I16x8Sub => self.v_binary(I16X8, |b, x, y| b.ins().isub(x, y)),
            O::I32x4Sub => self.v_binary(I32X4, |b, x, y| b.ins().isub(x, y)),
            O::I64x2Sub => self.v_binary(I64X2, |b, x, y| b.ins().isub(x, y)),
            O::I16x8Mul => self.v_binary(I16X8, |b, x, y| b.ins().imul(x, y)),
            O::I32x4Mul => self.v_binary(I32X4, |b, x, y| b.ins().imul(x, y)),
            O::I64x2Mul => self.v_binary(I64X2, |b, x, y| b.ins().imul(x, y)),

            O::I8x16AddSatS => self.v_binary(I8X16, |b, x, y| b.ins().sadd_sat(x, y)),
            O::I16x8AddSatS => self.v_binary(I16X8, |b, x, y| b.ins().sadd_sat(x, y)),
            O::I8x16AddSatU => self.v_binary(I8X16, |b, x, y| b.ins().uadd_sat(x, y)),
            O::I16x8AddSatU => self.v_binary(I16X8, |b, x, y| b.ins().uadd_sat(x, y)),
            O::I8x16SubSatS => self.v_binary(I8X16, |b, x, y| b.ins().ssub_sat(x, y)),
            O::I16x8SubSatS => self.v_binary(I16X8, |b, x, y| b.ins().ssub_sat(x, y)),
            O::I8x16SubSatU => self.v_binary(I8X16, |b, x, y| b.ins().usub_sat(x, y)),
            O::I16x8SubSatU => self.v_binary(I16X8, |b, x, y| b.ins().usub_sat(x, y)),
            O::I16x8Q15MulrSatS => self.v_binary(I16X8, |b, x, y| b.ins().sqmul_round_sat(x, y)),

            O::I8x16MinS => self.v_binary(I8X16, |b, x, y| b.ins().smin(x, y)),
            O::I16x8MinS => self.v_binary(I16X8, |b, x, y| b.ins().smin(x, y)),
            O::I32x4MinS => self.v_binary(I32X4, |b, x, y| b.ins().smin(x, y)),
            O::I8x16MinU => self.v_binary(I8X16, |b, x, y| b.ins().umin(x, y)),
            O::I16x8MinU => self.v_binary(I16X8, |b, x, y| b.ins().umin(x, y)),
            O::I32x4MinU => self.v_binary(I32X4, |b, x, y| b.ins().umin(x, y)),
            O::I8x16MaxS => self.v_binary(I8X16, |b, x, y| b.ins().smax(x, y)),
            O::I16x8MaxS => self.v_binary(I16X8, |b, x, y| b.ins().smax(x, y)),
            O::I32x4MaxS => self.v_binary(I32X4, |b, x, y| b.ins().smax(x, y)),
            O::I8x16MaxU => self.v_binary(I8X16, |b, x, y| b.ins().umax(x, y)),
            O::I16x8MaxU => self.v_binary(I16X8, |b, x, y| b.ins().umax(x, y)),
            O::I32x4MaxU => self.v_binary(I32X4, |b, x, y| b.ins().umax(x, y)),
            O::I8x16AvgrU => self.v_binary(I8X16, |b, x, y| b.ins().avg_round(x, y)),
            O::I16x8AvgrU => self.v_binary(I16X8, |b, x, y| b.ins().avg_round(x, y)),

            O::I8x16Eq => self.v_icmp(I8X16, Equal),
            O::I16x8Eq => self.v_icmp(I16X8, Equal),
            O::I32x4Eq => self.v_icmp(I32X4, Equal),
            O::I64x2Eq => self.v_icmp(I64X2, Equal),
            O::I8x16Ne => self.v_icmp(I8X16, NotEqual),
            O::I16x8Ne => self.v_icmp(I16X8, NotEqual),
            O::I32x4Ne => self.v_icmp(I32X4, NotEqual),
            O::I64x2Ne => self.v_icmp(I64X2, NotEqual),
            O::I8x16LtS => self.v_icmp(I8X16, SignedLessThan),
            O::I16x8LtS => self.v_icmp(I16X8, SignedLessThan),
            O::I32x4LtS => self.v_icmp(I32X4, SignedLessThan),
            O::I64x2LtS => self.v_icmp(I64X2, SignedLessThan),
            O::I8x16LtU => self.v_icmp(I8X16, UnsignedLessThan),
            O::I16x8LtU => self.v_icmp(I16X8, UnsignedLessThan),
            O::I32x4LtU => self.v_icmp(I32X4, UnsignedLessThan),
            O::I8x16GtS => self.v_icmp(I8X16, SignedGreaterThan),
            O::I16x8GtS => self.v_icmp(I16X8, SignedGreaterThan),
            O::I32x4GtS => self.v_icmp(I32X4, SignedGreaterThan),
            O::I64x2GtS => self.v_icmp(I64X2, SignedGreaterThan),
            O::I8x16GtU => self.v_icmp(I8X16, UnsignedGreaterThan),
            O::I16x8GtU => self.v_icmp(I16X8, UnsignedGreaterThan),
            O::I32x4GtU => self.v_icmp(I32X4, UnsignedGreaterThan),
            O::I8x16LeS => self.v_icmp(I8X16, SignedLessThanOrEqual),
            O::I16x8LeS => self.v_icmp(I16X8, SignedLessThanOrEqual),
            O::I32x4LeS => self.v_icmp(I32X4, SignedLessThanOrEqual),
            O::I64x2LeS => self.v_icmp(I64X2, SignedLessThanOrEqual),
            O::I8x16LeU => self.v_icmp(I8X16, UnsignedLessThanOrEqual),
            O::I16x8LeU => self.v_icmp(I16X8, UnsignedLessThanOrEqual),
            O::I32x4LeU => self.v_icmp(I32X4, UnsignedLessThanOrEqual),
            O::I8x16GeS => self.v_icmp(I8X16, SignedGreaterThanOrEqual),
            O::I16x8GeS => self.v_icmp(I16X8, SignedGreaterThanOrEqual),
            O::I32x4GeS => self.v_icmp(I32X4, SignedGreaterThanOrEqual),
            O::I64x2GeS => self.v_icmp(I64X2, SignedGreaterThanOrEqual),
            O::I8x16GeU => self.v_icmp(I8X16, UnsignedGreaterThanOrEqual),
            O::I16x8GeU => self.v_icmp(I16X8, UnsignedGreaterThanOrEqual),
            O::I32x4GeU => self.v_icmp(I32X4, UnsignedGreaterThanOrEqual),
            _ => return false,
        }
        true
    }

    /// A whole-vector test (`any_true`, `all_true`) as the i32 wasm expects.
    fn v_test(&mut self, ty: Type, f: impl FnOnce(&mut FunctionBuilder<'_>, Value) -> Value) {
        let v = self.pop_v(ty);
        let t = f(&mut self.b, v);
        let r = self.b.ins().uextend(I32, t);
        self.push1(r)
    }

    /// The top bit of every lane, lane 0 in bit 0.
    fn bitmask(&mut self, ty: Type) {
        let v = self.pop_v(ty);
        let r = self.b.ins().vhigh_bits(I32, v);
        self.push1(r)
    }

    /// Cranelift's vector shifts take the count modulo the lane width, as
    /// wasm specifies.
    fn shift(&mut self, ty: Type, f: Shift) {
        let n = self.pop1();
        let v = self.pop_v(ty);
        let r = f(&mut self.b, v, n);
        self.push_v(r)
    }

    fn v_icmp(&mut self, ty: Type, cc: IntCC) {
        self.v_binary(ty, |b, x, y| b.ins().icmp(cc, x, y))
    }
}
