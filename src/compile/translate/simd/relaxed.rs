//! The relaxed-SIMD operators.
//!
//! Each has a set of allowed results; we always pick the one of the
//! spec's deterministic profile. That is also the result of the matching
//! non-relaxed operator (or its unfused form for `madd`), so results are
//! the same on every host, and no choice depends on CPU features:
//! - `relaxed_swizzle`: out-of-range indices give 0, like `swizzle`;
//! - `relaxed_trunc*`: saturating, NaN to 0, like `trunc_sat*`;
//! - `relaxed_madd`/`nmadd`: a rounded multiply, then a rounded add;
//! - `relaxed_laneselect`: a bitwise select, like `v128.bitselect`;
//! - `relaxed_min`/`max`: like `min`/`max`;
//! - `relaxed_q15mulr_s`: saturating, like `q15mulr_sat_s`;
//! - `relaxed_dot*`: both operands signed, pair sums saturated to i16.

use cranelift_codegen::ir::{
    types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16},
    InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use wasmparser::Operator;

use super::Translator;

/// `i16x8.relaxed_dot_i8x16_i7x16_s` in the deterministic profile: the
/// signed products of `x` and `y` as i16 (always exact), and each adjacent
/// pair summed with signed saturation. The pair sums are formed exactly in
/// i32 lanes and narrowed with saturation.
fn dot_i8_saturating(b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Value {
    let low = {
        let (x, y) = (b.ins().swiden_low(x), b.ins().swiden_low(y));
        b.ins().imul(x, y)
    };
    let high = {
        let (x, y) = (b.ins().swiden_high(x), b.ins().swiden_high(y));
        b.ins().imul(x, y)
    };
    let low = pair_sums(b, low);
    let high = pair_sums(b, high);
    b.ins().snarrow(low, high)
}

/// Sums of adjacent signed lanes, exact in lanes of twice the width.
fn pair_sums(b: &mut FunctionBuilder<'_>, x: Value) -> Value {
    let lo = b.ins().swiden_low(x);
    let hi = b.ins().swiden_high(x);
    b.ins().iadd_pairwise(lo, hi)
}

impl Translator<'_, '_> {
    pub(super) fn translate_simd_relaxed(&mut self, op: &Operator<'_>) -> bool {
        use Operator as O;
        match *op {
            O::I8x16RelaxedSwizzle => self.v_binary(I8X16, |b, x, y| b.ins().swizzle(x, y)),
            O::I32x4RelaxedTruncF32x4S => self.v_unary(F32X4, |b, x| b.ins().fcvt_to_sint_sat(I32X4, x)),
            O::I32x4RelaxedTruncF32x4U => self.v_unary(F32X4, |b, x| b.ins().fcvt_to_uint_sat(I32X4, x)),
            O::I32x4RelaxedTruncF64x2SZero => self.trunc_sat_f64x2_zero(true),
            O::I32x4RelaxedTruncF64x2UZero => self.trunc_sat_f64x2_zero(false),

            O::F32x4RelaxedMadd => self.multiply_add(F32X4, false),
            O::F64x2RelaxedMadd => self.multiply_add(F64X2, false),
            O::F32x4RelaxedNmadd => self.multiply_add(F32X4, true),
            O::F64x2RelaxedNmadd => self.multiply_add(F64X2, true),

            O::I8x16RelaxedLaneselect => self.laneselect(I8X16),
            O::I16x8RelaxedLaneselect => self.laneselect(I16X8),
            O::I32x4RelaxedLaneselect => self.laneselect(I32X4),
            O::I64x2RelaxedLaneselect => self.laneselect(I64X2),

            O::F32x4RelaxedMin => self.v_binary(F32X4, |b, x, y| b.ins().fmin(x, y)),
            O::F64x2RelaxedMin => self.v_binary(F64X2, |b, x, y| b.ins().fmin(x, y)),
            O::F32x4RelaxedMax => self.v_binary(F32X4, |b, x, y| b.ins().fmax(x, y)),
            O::F64x2RelaxedMax => self.v_binary(F64X2, |b, x, y| b.ins().fmax(x, y)),

            O::I16x8RelaxedQ15mulrS => self.v_binary(I16X8, |b, x, y| b.ins().sqmul_round_sat(x, y)),
            O::I16x8RelaxedDotI8x16I7x16S => self.v_binary(I8X16, dot_i8_saturating),
            O::I32x4RelaxedDotI8x16I7x16AddS => {
                let acc = self.pop_v(I32X4);
                let y = self.pop_v(I8X16);
                let x = self.pop_v(I8X16);
                let dot = dot_i8_saturating(&mut self.b, x, y);
                let sums = pair_sums(&mut self.b, dot);
                let r = self.b.ins().iadd(sums, acc);
                self.push_v(r)
            }
            _ => return false,
        }
        true
    }

    /// `x * y + z` (or `-(x * y) + z`), each step rounded.
    fn multiply_add(&mut self, ty: Type, negate: bool) {
        self.v_ternary(ty, |b, x, y, z| {
            let x = if negate { b.ins().fneg(x) } else { x };
            let p = b.ins().fmul(x, y);
            b.ins().fadd(p, z)
        })
    }

    /// Lanes of the first operand where the mask bits are set, of the
    /// second elsewhere, bit by bit.
    fn laneselect(&mut self, ty: Type) {
        self.v_ternary(ty, |b, x, y, m| b.ins().bitselect(m, x, y))
    }
}
