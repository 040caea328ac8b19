//! Constants, shuffles, splats and single-lane access.

use cranelift_codegen::ir::{
    types::{F32X4, F64X2, I16X8, I32, I32X4, I64X2, I8X16},
    ConstantData, InstBuilder, Type,
};
use wasmparser::Operator;

use super::Translator;

impl Translator<'_, '_> {
    pub(super) fn translate_simd_lanes(&mut self, op: &Operator<'_>) -> bool {
        use Operator as O;
        match *op {
            O::V128Const { value } => {
                let v = self.v_const(I8X16, *value.bytes());
                self.push_v(v)
            }
            O::I8x16Shuffle { lanes } => {
                // Validation guarantees every index is below 32, which is
                // what `shuffle` accepts: 0..16 from `a`, 16..32 from `b`.
                let mask = self.b.func.dfg.immediates.push(ConstantData::from(&lanes[..]));
                self.v_binary(I8X16, |b, x, y| b.ins().shuffle(x, y, mask))
            }
            // `swizzle` yields 0 for indices of 16 and above, as wasm does.
            O::I8x16Swizzle => self.v_binary(I8X16, |b, x, y| b.ins().swizzle(x, y)),

            O::I8x16Splat => self.splat(I8X16),
            O::I16x8Splat => self.splat(I16X8),
            O::I32x4Splat => self.splat(I32X4),
            O::I64x2Splat => self.splat(I64X2),
            O::F32x4Splat => self.splat(F32X4),
            O::F64x2Splat => self.splat(F64X2),

            O::I8x16ExtractLaneS { lane } => self.extract_small_lane(I8X16, lane, true),
            O::I8x16ExtractLaneU { lane } => self.extract_small_lane(I8X16, lane, false),
            O::I16x8ExtractLaneS { lane } => self.extract_small_lane(I16X8, lane, true),
            O::I16x8ExtractLaneU { lane } => self.extract_small_lane(I16X8, lane, false),
            O::I32x4ExtractLane { lane } => self.extract_lane(I32X4, lane),
            O::I64x2ExtractLane { lane } => self.extract_lane(I64X2, lane),
            O::F32x4ExtractLane { lane } => self.extract_lane(F32X4, lane),
            O::F64x2ExtractLane { lane } => self.extract_lane(F64X2, lane),

            O::I8x16ReplaceLane { lane } => self.replace_lane(I8X16, lane),
            O::I16x8ReplaceLane { lane } => self.replace_lane(I16X8, lane),
            O::I32x4ReplaceLane { lane } => self.replace_lane(I32X4, lane),
            O::I64x2ReplaceLane { lane } => self.replace_lane(I64X2, lane),
            O::F32x4ReplaceLane { lane } => self.replace_lane(F32X4, lane),
            O::F64x2ReplaceLane { lane } => self.replace_lane(F64X2, lane),
            _ => return false,
        }
        true
    }

    /// The operand of a splat or replace_lane as a value of `ty`'s lane
    /// type: i8 and i16 lanes come from an i32 operand.
    fn pop_lane_value(&mut self, ty: Type) -> cranelift_codegen::ir::Value {
        let x = self.pop1();
        let lane = ty.lane_type();
        if lane.is_int() && lane.bits() < 32 {
            self.b.ins().ireduce(lane, x)
        } else {
            x
        }
    }

    fn splat(&mut self, ty: Type) {
        let x = self.pop_lane_value(ty);
        let v = self.b.ins().splat(ty, x);
        self.push_v(v)
    }

    fn extract_lane(&mut self, ty: Type, lane: u8) {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        self.push1(x)
    }

    /// An i8 or i16 lane, extended to the i32 wasm gives it.
    fn extract_small_lane(&mut self, ty: Type, lane: u8, signed: bool) {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        let x = if signed { self.b.ins().sextend(I32, x) } else { self.b.ins().uextend(I32, x) };
        self.push1(x)
    }

    fn replace_lane(&mut self, ty: Type, lane: u8) {
        let x = self.pop_lane_value(ty);
        let v = self.pop_v(ty);
        let r = self.b.ins().insertlane(v, x, lane);
        self.push_v(r)
    }
}
