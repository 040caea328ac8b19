//! Constants, shuffles, splats and single-lane access.

use cranelift_codegen::ir::{
    types::{I32, I8X16},
    ConstantData, InstBuilder, Type,
};

use wasmparser::V128;

use super::Translator;

impl Translator<'_, '_> {
    pub(super) fn v128_const(&mut self, value: V128) {
        let v = self.v_const(I8X16, *value.bytes());
        self.push_v(v)
    }

    /// `i8x16.shuffle`. Validation guarantees every index is below 32,
    /// which is what `shuffle` accepts: 0..16 from `a`, 16..32 from `b`.
    pub(super) fn shuffle(&mut self, lanes: [u8; 16]) {
        let mask = self.b.func.dfg.immediates.push(ConstantData::from(&lanes[..]));
        self.v_binary(I8X16, |b, x, y| b.ins().shuffle(x, y, mask))
    }

    /// The operand of a splat or replace_lane as a value of `ty`'s lane
    /// type: i8 and i16 lanes come from an i32 operand.
    pub(super) fn pop_lane_value(&mut self, ty: Type) -> cranelift_codegen::ir::Value {
        let x = self.pop1();
        let lane = ty.lane_type();
        if lane.is_int() && lane.bits() < 32 {
            self.b.ins().ireduce(lane, x)
        } else {
            x
        }
    }

    pub(super) fn splat(&mut self, ty: Type) {
        let x = self.pop_lane_value(ty);
        let v = self.b.ins().splat(ty, x);
        self.push_v(v)
    }

    pub(super) fn extract_lane(&mut self, ty: Type, lane: u8) {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        self.push1(x)
    }

    /// An i8 or i16 lane, extended to the i32 wasm gives it.
    pub(super) fn extract_small_lane(&mut self, ty: Type, lane: u8, signed: bool) {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        let x = if signed { self.b.ins().sextend(I32, x) } else { self.b.ins().uextend(I32, x) };
        self.push1(x)
    }

    pub(super) fn replace_lane(&mut self, ty: Type, lane: u8) {
        let x = self.pop_lane_value(ty);
        let v = self.pop_v(ty);
        let r = self.b.ins().insertlane(v, x, lane);
        self.push_v(r)
    }
}
