//! v128 loads and stores: whole vectors, widening loads, splats, zero-filled
//! loads and single lanes. Addresses, bounds and flags come from the
//! function environment's [`HeapAccess`], as for scalar accesses.

use cranelift_codegen::ir::{types::I8X16, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;
use wasmparser::MemArg;

use super::Translator;
use crate::compile::func_env::HeapAccess;
use crate::environ::error::Result;

/// A Cranelift load that widens 8 bytes into a full vector.
type ExtendLoad = fn(&mut FunctionBuilder<'_>, MemFlagsData, Value, i32) -> Value;

impl Translator<'_, '_> {
    pub(super) fn v128_load(&mut self, memarg: &MemArg) -> Result<()> {
        let a = self.heap_access(memarg, 16)?;
        let v = self.b.ins().load(I8X16, a.flags, a.addr, a.offset);
        self.push_v(v);
        Ok(())
    }

    pub(super) fn v128_store(&mut self, memarg: &MemArg) -> Result<()> {
        let v = self.pop_v(I8X16);
        let a = self.heap_access(memarg, 16)?;
        self.env.probe_store(&mut self.b, &a, I8X16);
        self.b.ins().store(a.flags, v, a.addr, a.offset);
        Ok(())
    }

    /// `v128.loadNxM_{s,u}`: 8 bytes, each lane widened to twice its size.
    pub(super) fn load_extend(&mut self, memarg: &MemArg, load: ExtendLoad) -> Result<()> {
        let HeapAccess { addr, offset, flags } = self.heap_access(memarg, 8)?;
        let v = load(&mut self.b, flags, addr, offset);
        self.push_v(v);
        Ok(())
    }

    /// One lane of type `ty` loaded from memory.
    fn load_scalar(&mut self, memarg: &MemArg, ty: Type) -> Result<Value> {
        let lane = ty.lane_type();
        let a = self.heap_access(memarg, lane.bytes())?;
        Ok(self.b.ins().load(lane, a.flags, a.addr, a.offset))
    }

    pub(super) fn load_splat(&mut self, memarg: &MemArg, ty: Type) -> Result<()> {
        let x = self.load_scalar(memarg, ty)?;
        let v = self.b.ins().splat(ty, x);
        self.push_v(v);
        Ok(())
    }

    /// `v128.loadN_zero`: the value in lane 0, zeros above. Used with
    /// float lane types: a scalar float load into a vector register already
    /// zeroes the other lanes, and loads never alter float bits.
    pub(super) fn load_zero(&mut self, memarg: &MemArg, ty: Type) -> Result<()> {
        let x = self.load_scalar(memarg, ty)?;
        let v = self.b.ins().scalar_to_vector(ty, x);
        self.push_v(v);
        Ok(())
    }

    pub(super) fn load_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) -> Result<()> {
        let v = self.pop_v(ty);
        let x = self.load_scalar(memarg, ty)?;
        let r = self.b.ins().insertlane(v, x, lane);
        self.push_v(r);
        Ok(())
    }

    pub(super) fn store_lane(&mut self, memarg: &MemArg, ty: Type, lane: u8) -> Result<()> {
        let v = self.pop_v(ty);
        let x = self.b.ins().extractlane(v, lane);
        let a = self.heap_access(memarg, ty.lane_type().bytes())?;
        self.env.probe_store(&mut self.b, &a, ty.lane_type());
        self.b.ins().store(a.flags, x, a.addr, a.offset);
        Ok(())
    }
}
