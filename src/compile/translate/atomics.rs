//! The threads proposal's operators: atomic loads, stores,
//! read-modify-writes and compare-exchanges, `memory.atomic.wait32/64`,
//! `memory.atomic.notify` and `atomic.fence`.
//!
//! Every access is sequentially consistent, as the proposal requires, and
//! maps to one Cranelift atomic instruction on the access's own width (a
//! narrow operator works on the low bytes of its operands and zero-extends
//! its result). On x86-64 a load is a plain `mov` (the memory model makes
//! it sequentially consistent already) and a store is one `xchg` (an
//! `atomic_rmw` whose old value is unused, cheaper than `mov` + `mfence`).
//! Addresses are checked for alignment before bounds, as the spec orders
//! the two traps; the function environment does both.

use cranelift_codegen::ir::{
    types::{I16, I32, I64, I8},
    AtomicRmwOp, InstBuilder, Type, Value,
};
use wasmparser::MemArg;

use super::Translator;
use crate::compile::func_env::HeapAccess;
use crate::environ::error::Result;
use crate::environ::trap::TrapCode;

/// The integer type of an access of `size` bytes.
fn access_type(size: u32) -> Type {
    match size {
        1 => I8,
        2 => I16,
        4 => I32,
        _ => I64,
    }
}

impl Translator<'_, '_> {
    /// Pops the index of an atomic access of `size` bytes and checks it.
    fn atomic_access(&mut self, memarg: &MemArg, size: u32) -> Result<HeapAccess> {
        let index = self.pop1();
        let m = self.memarg_memory(memarg)?;
        Ok(self.env.atomic_access(&mut self.b, m, index, memarg.offset, size))
    }

    /// `v` cut to an access of `size` bytes.
    fn narrow(&mut self, v: Value, size: u32) -> Value {
        let ty = access_type(size);
        if self.b.func.dfg.value_type(v) == ty {
            v
        } else {
            self.b.ins().ireduce(ty, v)
        }
    }

    /// Pushes `v`, read by an access, zero-extended to `ty`.
    fn push_extended(&mut self, v: Value, ty: Type) {
        let v = if self.b.func.dfg.value_type(v) == ty { v } else { self.b.ins().uextend(ty, v) };
        self.push1(v);
    }

    /// `iNN.atomic.load*`: a `size`-byte load zero-extended to `ty`.
    pub(super) fn atomic_load(&mut self, memarg: &MemArg, ty: Type, size: u32) -> Result<()> {
        let a = self.atomic_access(memarg, size)?;
        let v = self.b.ins().atomic_load(access_type(size), a.flags, a.addr);
        self.push_extended(v, ty);
        Ok(())
    }

    /// `iNN.atomic.store*`: the low `size` bytes of the value.
    pub(super) fn atomic_store(&mut self, memarg: &MemArg, size: u32) -> Result<()> {
        let v = self.pop1();
        let a = self.atomic_access(memarg, size)?;
        let v = self.narrow(v, size);
        // An exchange whose old value nobody reads: one `xchg` on x86-64.
        self.b.ins().atomic_rmw(access_type(size), a.flags, AtomicRmwOp::Xchg, a.addr, v);
        Ok(())
    }

    /// `iNN.atomic.rmw*.op`: the old value, zero-extended.
    pub(super) fn atomic_rmw(&mut self, memarg: &MemArg, op: AtomicRmwOp, size: u32) -> Result<()> {
        let v = self.pop1();
        let ty = self.b.func.dfg.value_type(v);
        let a = self.atomic_access(memarg, size)?;
        let v = self.narrow(v, size);
        let old = self.b.ins().atomic_rmw(access_type(size), a.flags, op, a.addr, v);
        self.push_extended(old, ty);
        Ok(())
    }

    /// `iNN.atomic.rmw*.cmpxchg`: stores the replacement if the cell holds
    /// the expected value (both cut to the access's width); the old value.
    pub(super) fn atomic_cmpxchg(&mut self, memarg: &MemArg, size: u32) -> Result<()> {
        let (expected, replacement) = self.pop2();
        let ty = self.b.func.dfg.value_type(expected);
        let a = self.atomic_access(memarg, size)?;
        let expected = self.narrow(expected, size);
        let replacement = self.narrow(replacement, size);
        let old = self.b.ins().atomic_cas(a.flags, a.addr, expected, replacement);
        self.push_extended(old, ty);
        Ok(())
    }

    /// `memory.atomic.wait32` (`size` 4) or `wait64` (8). On an unshared
    /// memory nothing could notify the waiter: it traps, after the checks
    /// of its address.
    pub(super) fn atomic_wait(&mut self, memarg: &MemArg, size: u32) -> Result<()> {
        let timeout = self.pop1();
        let (index, expected) = self.pop2();
        let m = self.memarg_memory(memarg)?;
        let ea = self.env.atomic_cell(&mut self.b, m, index, memarg.offset, size);
        if !self.env.memory_is_shared(m) {
            self.trap(TrapCode::AtomicWaitNonSharedMemory);
            return Ok(());
        }
        let v = self.env.memory_atomic_wait(&mut self.b, m, ea, expected, timeout);
        self.push1(v);
        Ok(())
    }

    /// `memory.atomic.notify`: how many waiters were woken (none can wait
    /// on an unshared memory).
    pub(super) fn atomic_notify(&mut self, memarg: &MemArg) -> Result<()> {
        let (index, count) = self.pop2();
        let m = self.memarg_memory(memarg)?;
        let ea = self.env.atomic_cell(&mut self.b, m, index, memarg.offset, 4);
        let woken = if self.env.memory_is_shared(m) {
            self.env.memory_atomic_notify(&mut self.b, m, ea, count)
        } else {
            self.b.ins().iconst(I32, 0)
        };
        self.push1(woken);
        Ok(())
    }

    /// `atomic.fence`: orders every memory access before it against every
    /// one after it.
    pub(super) fn atomic_fence(&mut self) {
        self.b.ins().fence();
    }
}
