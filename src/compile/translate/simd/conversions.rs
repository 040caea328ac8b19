//! Lane-shape changes: narrowing, widening (extend, extmul,
//! extadd_pairwise, dot) and int/float conversions.
//!
//! The widening operators are written as `swiden`/`uwiden` feeding the
//! arithmetic, the shape Cranelift's backends recognise and lower to one
//! instruction where the host has it (`pmaddwd`, `pmull`, ...).

use cranelift_codegen::ir::{
    types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16},
    InstBuilder, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use wasmparser::Operator;

use super::Translator;

/// Which half of the lanes a widening operator reads.
#[derive(Copy, Clone)]
enum Half {
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
fn dot(b: &mut FunctionBuilder<'_>, x: Value, y: Value) -> Value {
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
    pub(super) fn translate_simd_conversions(&mut self, op: &Operator<'_>) -> bool {
        use Half::*;
        use Operator as O;
        match *op {
            // `snarrow`/`unarrow` read their inputs as signed, as wasm does.
            O::I8x16NarrowI16x8S => self.v_binary(I16X8, |b, x, y| b.ins().snarrow(x, y)),
            O::I8x16NarrowI16x8U => self.v_binary(I16X8, |b, x, y| b.ins().unarrow(x, y)),
            O::I16x8NarrowI32x4S => self.v_binary(I32X4, |b, x, y| b.ins().snarrow(x, y)),
            O::I16x8NarrowI32x4U => self.v_binary(I32X4, |b, x, y| b.ins().unarrow(x, y)),

            O::I16x8ExtendLowI8x16S => self.extend(I8X16, Low, true),
            O::I16x8ExtendHighI8x16S => self.extend(I8X16, High, true),
            O::I16x8ExtendLowI8x16U => self.extend(I8X16, Low, false),
            O::I16x8ExtendHighI8x16U => self.extend(I8X16, High, false),
            O::I32x4ExtendLowI16x8S => self.extend(I16X8, Low, true),
            O::I32x4ExtendHighI16x8S => self.extend(I16X8, High, true),
            O::I32x4ExtendLowI16x8U => self.extend(I16X8, Low, false),
            O::I32x4ExtendHighI16x8U => self.extend(I16X8, High, false),
            O::I64x2ExtendLowI32x4S => self.extend(I32X4, Low, true),
            O::I64x2ExtendHighI32x4S => self.extend(I32X4, High, true),
            O::I64x2ExtendLowI32x4U => self.extend(I32X4, Low, false),
            O::I64x2ExtendHighI32x4U => self.extend(I32X4, High, false),

            O::I16x8ExtMulLowI8x16S => self.ext_mul(I8X16, Low, true),
            O::I16x8ExtMulHighI8x16S => self.ext_mul(I8X16, High, true),
            O::I16x8ExtMulLowI8x16U => self.ext_mul(I8X16, Low, false),
            O::I16x8ExtMulHighI8x16U => self.ext_mul(I8X16, High, false),
            O::I32x4ExtMulLowI16x8S => self.ext_mul(I16X8, Low, true),
            O::I32x4ExtMulHighI16x8S => self.ext_mul(I16X8, High, true),
            O::I32x4ExtMulLowI16x8U => self.ext_mul(I16X8, Low, false),
            O::I32x4ExtMulHighI16x8U => self.ext_mul(I16X8, High, false),
            O::I64x2ExtMulLowI32x4S => self.ext_mul(I32X4, Low, true),
            O::I64x2ExtMulHighI32x4S => self.ext_mul(I32X4, High, true),
            O::I64x2ExtMulLowI32x4U => self.ext_mul(I32X4, Low, false),
            O::I64x2ExtMulHighI32x4U => self.ext_mul(I32X4, High, false),

            O::I16x8ExtAddPairwiseI8x16S => self.ext_add_pairwise(I8X16, true),
            O::I16x8ExtAddPairwiseI8x16U => self.ext_add_pairwise(I8X16, false),
            O::I32x4ExtAddPairwiseI16x8S => self.ext_add_pairwise(I16X8, true),
            O::I32x4ExtAddPairwiseI16x8U => self.ext_add_pairwise(I16X8, false),
            O::I32x4DotI16x8S => self.v_binary(I16X8, dot),

            O::I32x4TruncSatF32x4S => self.v_unary(F32X4, |b, x| b.ins().fcvt_to_sint_sat(I32X4, x)),
            O::I32x4TruncSatF32x4U => self.v_unary(F32X4, |b, x| b.ins().fcvt_to_uint_sat(I32X4, x)),
            O::I32x4TruncSatF64x2SZero => self.trunc_sat_f64x2_zero(true),
            O::I32x4TruncSatF64x2UZero => self.trunc_sat_f64x2_zero(false),
            O::F32x4ConvertI32x4S => self.v_unary(I32X4, |b, x| b.ins().fcvt_from_sint(F32X4, x)),
            O::F32x4ConvertI32x4U => self.v_unary(I32X4, |b, x| b.ins().fcvt_from_uint(F32X4, x)),
            O::F64x2ConvertLowI32x4S => self.v_unary(I32X4, |b, x| {
                let w = b.ins().swiden_low(x);
                b.ins().fcvt_from_sint(F64X2, w)
            }),
            O::F64x2ConvertLowI32x4U => self.v_unary(I32X4, |b, x| {
                let w = b.ins().uwiden_low(x);
                b.ins().fcvt_from_uint(F64X2, w)
            }),
            O::F32x4DemoteF64x2Zero => self.v_unary(F64X2, |b, x| b.ins().fvdemote(x)),
            O::F64x2PromoteLowF32x4 => self.v_unary(F32X4, |b, x| b.ins().fvpromote_low(x)),
            _ => return false,
        }
        true
    }

    /// One half of the lanes of a `ty` vector, widened to twice the size.
    fn extend(&mut self, ty: Type, half: Half, signed: bool) {
        self.v_unary(ty, |b, x| widen(b, x, half, signed))
    }

    /// Products of one half of the lanes, computed at twice the width so
    /// they are exact.
    fn ext_mul(&mut self, ty: Type, half: Half, signed: bool) {
        self.v_binary(ty, |b, x, y| {
            let x = widen(b, x, half, signed);
            let y = widen(b, y, half, signed);
            b.ins().imul(x, y)
        })
    }

    /// Sums of adjacent lanes, at twice the width.
    fn ext_add_pairwise(&mut self, ty: Type, signed: bool) {
        self.v_unary(ty, |b, x| {
            let lo = widen(b, x, Half::Low, signed);
            let hi = widen(b, x, Half::High, signed);
            b.ins().iadd_pairwise(lo, hi)
        })
    }

    /// `i32x4.trunc_sat_f64x2_{s,u}_zero`: two saturating conversions in
    /// the low lanes, zeros above. Written as a 64-bit conversion narrowed
    /// against a zero vector, the pattern Cranelift lowers as one sequence.
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
