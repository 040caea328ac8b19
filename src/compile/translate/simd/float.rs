//! Float lane arithmetic, rounding and comparisons.
//!
//! `fmin`/`fmax` already follow wasm's `min`/`max` (NaN wins, -0 < +0);
//! `pmin`/`pmax` are the plain C-style comparisons and are built from a
//! compare and a select so that a NaN or a tie returns the first operand.
//! Vector rounding falls back to per-lane libcalls on hosts without
//! rounding instructions, inside Cranelift.

use cranelift_codegen::ir::{
    condcodes::FloatCC,
    types::{F32X4, F64X2},
    InstBuilder, Type,
};
use wasmparser::Operator;

use super::Translator;

impl Translator<'_, '_> {
    pub(super) fn translate_simd_float(&mut self, op: &Operator<'_>) -> bool {
        use FloatCC::*;
        use Operator as O;
        match *op {
            O::F32x4Abs => self.v_unary(F32X4, |b, x| b.ins().fabs(x)),
            O::F64x2Abs => self.v_unary(F64X2, |b, x| b.ins().fabs(x)),
            O::F32x4Neg => self.v_unary(F32X4, |b, x| b.ins().fneg(x)),
            O::F64x2Neg => self.v_unary(F64X2, |b, x| b.ins().fneg(x)),
            O::F32x4Sqrt => self.v_unary(F32X4, |b, x| b.ins().sqrt(x)),
            O::F64x2Sqrt => self.v_unary(F64X2, |b, x| b.ins().sqrt(x)),
            O::F32x4Ceil => self.v_unary(F32X4, |b, x| b.ins().ceil(x)),
            O::F64x2Ceil => self.v_unary(F64X2, |b, x| b.ins().ceil(x)),
            O::F32x4Floor => self.v_unary(F32X4, |b, x| b.ins().floor(x)),
            O::F64x2Floor => self.v_unary(F64X2, |b, x| b.ins().floor(x)),
            O::F32x4Trunc => self.v_unary(F32X4, |b, x| b.ins().trunc(x)),
            O::F64x2Trunc => self.v_unary(F64X2, |b, x| b.ins().trunc(x)),
            O::F32x4Nearest => self.v_unary(F32X4, |b, x| b.ins().nearest(x)),
            O::F64x2Nearest => self.v_unary(F64X2, |b, x| b.ins().nearest(x)),

            O::F32x4Add => self.v_binary(F32X4, |b, x, y| b.ins().fadd(x, y)),
            O::F64x2Add => self.v_binary(F64X2, |b, x, y| b.ins().fadd(x, y)),
            O::F32x4Sub => self.v_binary(F32X4, |b, x, y| b.ins().fsub(x, y)),
            O::F64x2Sub => self.v_binary(F64X2, |b, x, y| b.ins().fsub(x, y)),
            O::F32x4Mul => self.v_binary(F32X4, |b, x, y| b.ins().fmul(x, y)),
            O::F64x2Mul => self.v_binary(F64X2, |b, x, y| b.ins().fmul(x, y)),
            O::F32x4Div => self.v_binary(F32X4, |b, x, y| b.ins().fdiv(x, y)),
            O::F64x2Div => self.v_binary(F64X2, |b, x, y| b.ins().fdiv(x, y)),
            O::F32x4Min => self.v_binary(F32X4, |b, x, y| b.ins().fmin(x, y)),
            O::F64x2Min => self.v_binary(F64X2, |b, x, y| b.ins().fmin(x, y)),
            O::F32x4Max => self.v_binary(F32X4, |b, x, y| b.ins().fmax(x, y)),
            O::F64x2Max => self.v_binary(F64X2, |b, x, y| b.ins().fmax(x, y)),
            O::F32x4PMin => self.pseudo_min_max(F32X4, false),
            O::F64x2PMin => self.pseudo_min_max(F64X2, false),
            O::F32x4PMax => self.pseudo_min_max(F32X4, true),
            O::F64x2PMax => self.pseudo_min_max(F64X2, true),

            O::F32x4Eq => self.v_fcmp(F32X4, Equal),
            O::F64x2Eq => self.v_fcmp(F64X2, Equal),
            O::F32x4Ne => self.v_fcmp(F32X4, NotEqual),
            O::F64x2Ne => self.v_fcmp(F64X2, NotEqual),
            O::F32x4Lt => self.v_fcmp(F32X4, LessThan),
            O::F64x2Lt => self.v_fcmp(F64X2, LessThan),
            O::F32x4Gt => self.v_fcmp(F32X4, GreaterThan),
            O::F64x2Gt => self.v_fcmp(F64X2, GreaterThan),
            O::F32x4Le => self.v_fcmp(F32X4, LessThanOrEqual),
            O::F64x2Le => self.v_fcmp(F64X2, LessThanOrEqual),
            O::F32x4Ge => self.v_fcmp(F32X4, GreaterThanOrEqual),
            O::F64x2Ge => self.v_fcmp(F64X2, GreaterThanOrEqual),
            _ => return false,
        }
        true
    }

    /// Lane-wise comparison: all-ones where `cc` holds (`ne` holds for
    /// NaN, the ordered comparisons do not).
    fn v_fcmp(&mut self, ty: Type, cc: FloatCC) {
        self.v_binary(ty, |b, x, y| b.ins().fcmp(cc, x, y))
    }

    /// `pmin(a, b)` is `b < a ? b : a` and `pmax(a, b)` is `a < b ? b : a`,
    /// lane by lane.
    fn pseudo_min_max(&mut self, ty: Type, max: bool) {
        let b = self.pop_v(ty);
        let a = self.pop_v(ty);
        let take_b =
            if max { self.b.ins().fcmp(FloatCC::LessThan, a, b) } else { self.b.ins().fcmp(FloatCC::LessThan, b, a) };
        let mask = self.cast(take_b, ty);
        let r = self.b.ins().bitselect(mask, b, a);
        self.push_v(r)
    }
}
