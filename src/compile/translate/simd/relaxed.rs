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
    types::{I32X4, I8X16},
    InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

/// `i16x8.relaxed_dot_i8x16_i7x16_s` in the deterministic profile: the
/// signed products of `x` and `y` as i16 (always exact), and each adjacent
/// pair summed with signed saturation. The pair sums are formed exactly in
/// i32 lanes and narrowed with saturation.
pub(super) fn dot_i8_saturating(b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Value {
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
    /// `i32x4.relaxed_dot_i8x16_i7x16_add_s`: the saturating i8 dot
    /// product, its pairs summed again into i32 lanes, plus the accumulator.
    pub(super) fn relaxed_dot_add(&mut self) {
        let acc = self.pop_v(I32X4);
        let y = self.pop_v(I8X16);
        let x = self.pop_v(I8X16);
        let dot = dot_i8_saturating(&mut self.b, x, y);
        let sums = pair_sums(&mut self.b, dot);
        let r = self.b.ins().iadd(sums, acc);
        self.push_v(r)
    }

    /// `x * y + z` (or `-(x * y) + z`), each step rounded.
    pub(super) fn multiply_add(&mut self, ty: Type, negate: bool) {
        self.v_ternary(ty, |b, x, y, z| {
            let x = if negate { b.ins().fneg(x) } else { x };
            let p = b.ins().fmul(x, y);
            b.ins().fadd(p, z)
        })
    }

    /// Lanes of the first operand where the mask bits are set, of the
    /// second elsewhere, bit by bit.
    pub(super) fn laneselect(&mut self, ty: Type) {
        self.v_ternary(ty, |b, x, y, m| b.ins().bitselect(m, x, y))
    }
}
