//! Lane-shape changes: narrowing, widening (extend, extmul,
//! extadd_pairwise, dot) and int/float conversions.
//!
//! The widening operators are written as `swiden`/`uwiden` feeding the
//! arithmetic, the shape Cranelift's backends recognise and lower to one
//! instruction where the host has it (`pmaddwd`, `pmull`, ...).

use cranelift_codegen::ir::{
    types::{F64X2, I32X4, I64X2},
    InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

/// Which half of the lanes a widening operator reads.
#[derive(Copy, Clone)]
pub(super) enum Half {
    Low,
    High,
}

/// Widens one half of the lanes of `x`, signed or unsigned.
fn widen(b: &mut FunctionBuilder<'_>, x: Value, half: Half, signed: bool) -> Value {
    match (half, signed) {
        (Half::Low, true) => b.ins().swiden_low(x),
        (Half::High, true) => b.ins().swiden_high(x),
        (Half::Low, false) => b.ins().uwiden_low(x),
        (Half::High, false) => b.ins().uwiden_high(x),
    }
}

/// Sums of adjacent pairs of signed products of `x` and `y`, in lanes of
/// twice the width (wrapping, as `i32x4.dot_i16x8_s` specifies).
pub(super) fn dot(b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Value {
    let lo = {
        let (x, y) = (b.ins().swiden_low(x), b.ins().swiden_low(y));
        b.ins().imul(x, y)
    };
    let hi = {
        let (x, y) = (b.ins().swiden_high(x), b.ins().swiden_high(y));
        b.ins().imul(x, y)
    };
    b.ins().iadd_pairwise(lo, hi)
}

impl Translator<'_, '_> {
    /// One half of the lanes of a `ty` vector, widened to twice the size.
    pub(super) fn extend(&mut self, ty: Type, half: Half, signed: bool) {
        self.v_unary(ty, |b, x| widen(b, x, half, signed))
    }

    /// Products of one half of the lanes, computed at twice the width so
    /// they are exact.
    pub(super) fn ext_mul(&mut self, ty: Type, half: Half, signed: bool) {
        self.v_binary(ty, |b, x, y| {
            let x = widen(b, x, half, signed);
            let y = widen(b, y, half, signed);
            b.ins().imul(x, y)
        })
    }

    /// Sums of adjacent lanes, at twice the width.
    pub(super) fn ext_add_pairwise(&mut self, ty: Type, signed: bool) {
        self.v_unary(ty, |b, x| {
            let lo = widen(b, x, Half::Low, signed);
            let hi = widen(b, x, Half::High, signed);
            b.ins().iadd_pairwise(lo, hi)
        })
    }

    /// `i32x4.trunc_sat_f64x2_{s,u}_zero`: two saturating conversions in
    /// the low lanes, zeros above. Written as a 64-bit conversion narrowed
    /// against a zero vector, the pattern Cranelift lowers as one sequence.
    /// `f64x2.convert_low_i32x4_{s,u}`: the two low lanes, widened and
    /// converted exactly.
    pub(super) fn convert_low(&mut self, signed: bool) {
        self.v_unary(I32X4, |b, x| {
            if signed {
                let w = b.ins().swiden_low(x);
                b.ins().fcvt_from_sint(F64X2, w)
            } else {
                let w = b.ins().uwiden_low(x);
                b.ins().fcvt_from_uint(F64X2, w)
            }
        })
    }

    pub(super) fn trunc_sat_f64x2_zero(&mut self, signed: bool) {
        let x = self.pop_v(F64X2);
        let zero = self.v_const(I64X2, [0; 16]);
        let r = if signed {
            let wide = self.b.ins().fcvt_to_sint_sat(I64X2, x);
            self.b.ins().snarrow(wide, zero)
        } else {
            let wide = self.b.ins().fcvt_to_uint_sat(I64X2, x);
            self.b.ins().uunarrow(wide, zero)
        };
        self.push_v(r)
    }
}
