//! v128 loads and stores: whole vectors, widening loads, splats, zero-filled
//! loads and single lanes.

use cranelift_codegen::ir::{
    types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16},
    InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;
use wasmparser::{MemArg, Operator};

use super::super::memory::heap_flags;
use super::Translator;

/// A Cranelift load that widens 8 bytes into a full vector.
type ExtendLoad = fn(&mut FunctionBuilder<'_>, MemFlagsData, Value, i32) -> Value;

impl Translator<'_, '_> {
    pub(super) fn translate_simd_memory(&mut self, op: &Operator<'_>) -> bool {
        use Operator as O;
        match *op {
            O::V128Load { memarg } => {
                let (addr, offset) = self.heap_addr(&memarg, 16);
                let v = self.b.ins().load(I8X16, heap_flags(), addr, offset);
                self.push_v(v)
            }
            O::V128Store { memarg } => {
                let v = self.pop_v(I8X16);
                let (addr, offset) = self.heap_addr(&memarg, 16);
                self.b.ins().store(heap_flags(), v, addr, offset);
            }

            O::V128Load8x8S { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().sload8x8(f, a, o)),
            O::V128Load8x8U { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().uload8x8(f, a, o)),
            O::V128Load16x4S { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().sload16x4(f, a, o)),
            O::V128Load16x4U { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().uload16x4(f, a, o)),
            O::V128Load32x2S { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().sload32x2(f, a, o)),
            O::V128Load32x2U { memarg } => self.load_extend(&memarg, |b, f, a, o| b.ins().uload32x2(f, a, o)),

            O::V128Load8Splat { memarg } => self.load_splat(&memarg, I8X16),
            O::V128Load16Splat { memarg } => self.load_splat(&memarg, I16X8),
            O::V128Load32Splat { memarg } => self.load_splat(&memarg, I32X4),
            O::V128Load64Splat { memarg } => self.load_splat(&memarg, I64X2),

            // As floats: a scalar float load into a vector register already
            // zeroes the other lanes, and loads never alter float bits.
            O::V128Load32Zero { memarg } => self.load_zero(&memarg, F32X4),
            O::V128Load64Zero { memarg } => self.load_zero(&memarg, F64X2),

            O::V128Load8Lane { memarg, lane } => self.load_lane(&memarg, I8X16, lane),
            O::V128Load16Lane { memarg, lane } => self.load_lane(&memarg, I16X8, lane),
            O::V128Load32Lane { memarg, lane } => self.load_lane(&memarg, I32X4, lane),
            O::V128Load64Lane { memarg, lane } => self.load_lane(&memarg, I64X2, lane),
            O::V128Store8Lane { memarg, lane } => self.store_lane(&memarg, I8X16, lane),
            O::V128Store16Lane { memarg, lane } => self.store_lane(&memarg, I16X8, lane),
            O::V128Store32Lane { memarg, lane } => self.store_lane(&memarg, I32X4, lane),
            O::V128Store64Lane { memarg, lane } => self.store_lane(&memarg, I64X2, lane),
            _ => return false,
        }
        true
    }

    /// `v128.loadNxM_{s,u}`: 8 bytes, each lane widened to twice its size.
    fn load_extend(&mut self, memarg: &MemArg, load: ExtendLoad) {
        let (addr, offset) = self.heap_addr(memarg, 8);
        let v = load(&mut self.b, heap_flags(), addr, offset);
        self.push_v(v)
    }

    /// One lane of type `ty` loaded from memory.
    fn load_scalar(&mut self, memarg: &MemArg, ty: Type) -> Value {
        let lane = ty.lane_type();
        let (addr, offset) = self.heap_addr(memarg, lane.bytes());
        self.b.ins().load(lane, heap_flags(), addr, offset)
    }

    fn load_splat(&mut self, memarg: &MemArg, ty: Type) {
        let x = self.load_scalar(memarg, ty);
        let v = self.b.ins().splat(ty, x);
        self.push_v(v)
    }

    /// `v128.loadN_zero`: the value in lane 0, zeros above.
    fn load_zero(&mut self, memarg: &MemArg, ty: Type) {
        let x = self.load_scalar(memarg, ty);
        let v = self.b.ins().scalar_to_vector(ty, x);
        self.push_v(v)
    }

    fn load_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) {
        let v = self.pop_v(ty);
        let x = self.load_scalar(memarg, ty);
        let r = self.b.ins().insertlane(v, x, lane);
        self.push_v(r)
    }

    fn store_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        let (addr, offset) = self.heap_addr(memarg, ty.lane_type().bytes());
        self.b.ins().store(heap_flags(), x, addr, offset);
    }
}
