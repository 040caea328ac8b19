//! Linear memory: loads, stores, `memory.size`/`memory.grow` and the bulk
//! operations.
//!
//! With guard pages (the default), an access is `base + zext(index) +
//! offset` with no compare: the reservation covers every address a 32-bit
//! index and offset can form, and a fault there becomes a trap through the
//! load's trap code. With explicit checks, the end of the access is
//! compared against the current length first.

use cranelift_codegen::ir::{
    condcodes::IntCC,
    types::{self, I32, I64},
    Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use wasmparser::{MemArg, Operator};

use super::Translator;
use crate::builtins::Builtin;
use crate::config::BoundsChecks;
use crate::error::Result;
use crate::index::MemoryIndex;
use crate::trap::TrapCode;

/// Flags of a wasm memory access: little-endian, faults are out-of-bounds
/// traps.
pub(super) fn heap_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little).with_trap_code(Some(TrapCode::MemoryOutOfBounds.to_clif()))
}

#[derive(Copy, Clone)]
enum Load {
    Plain(Type),
    Signed8(Type),
    Unsigned8(Type),
    Signed16(Type),
    Unsigned16(Type),
    Signed32,
    Unsigned32,
}

impl Translator<'_, '_> {
    pub(super) fn translate_memory(&mut self, op: &Operator<'_>) -> Result<bool> {
        use Operator as O;
        match *op {
            O::I32Load { memarg } => self.load(&memarg, Load::Plain(I32), 4),
            O::I64Load { memarg } => self.load(&memarg, Load::Plain(I64), 8),
            O::F32Load { memarg } => self.load(&memarg, Load::Plain(types::F32), 4),
            O::F64Load { memarg } => self.load(&memarg, Load::Plain(types::F64), 8),
            O::I32Load8S { memarg } => self.load(&memarg, Load::Signed8(I32), 1),
            O::I32Load8U { memarg } => self.load(&memarg, Load::Unsigned8(I32), 1),
            O::I32Load16S { memarg } => self.load(&memarg, Load::Signed16(I32), 2),
            O::I32Load16U { memarg } => self.load(&memarg, Load::Unsigned16(I32), 2),
            O::I64Load8S { memarg } => self.load(&memarg, Load::Signed8(I64), 1),
            O::I64Load8U { memarg } => self.load(&memarg, Load::Unsigned8(I64), 1),
            O::I64Load16S { memarg } => self.load(&memarg, Load::Signed16(I64), 2),
            O::I64Load16U { memarg } => self.load(&memarg, Load::Unsigned16(I64), 2),
            O::I64Load32S { memarg } => self.load(&memarg, Load::Signed32, 4),
            O::I64Load32U { memarg } => self.load(&memarg, Load::Unsigned32, 4),
            O::I32Store { memarg } | O::I64Store { memarg } | O::F32Store { memarg } | O::F64Store { memarg } => {
                let v = self.pop1();
                let size = self.b.func.dfg.value_type(v).bytes();
                let (addr, offset) = self.heap_addr(&memarg, size);
                self.b.ins().store(heap_flags(), v, addr, offset);
            }
            O::I32Store8 { memarg } | O::I64Store8 { memarg } => self.narrow_store(&memarg, 1),
            O::I32Store16 { memarg } | O::I64Store16 { memarg } => self.narrow_store(&memarg, 2),
            O::I64Store32 { memarg } => self.narrow_store(&memarg, 4),

            O::MemorySize { mem } => {
                let len = self.env.memory_length(&mut self.b, MemoryIndex::from_u32(mem));
                let pages = self.b.ins().ushr_imm_u(len, 16);
                let v = self.b.ins().ireduce(I32, pages);
                self.push1(v);
            }
            O::MemoryGrow { mem } => {
                let delta = self.pop1();
                let m = self.b.ins().iconst(I32, mem as i64);
                let r = self.env.call_builtin(&mut self.b, Builtin::memory_grow, &[m, delta]);
                self.push1(r.expect("memory_grow returns"));
            }
            O::MemoryFill { mem } => {
                let (dst, val, len) = self.pop3();
                let m = self.b.ins().iconst(I32, mem as i64);
                let dst = self.b.ins().uextend(I64, dst);
                let len = self.b.ins().uextend(I64, len);
                self.env.call_builtin(&mut self.b, Builtin::memory_fill, &[m, dst, val, len]);
            }
            O::MemoryCopy { dst_mem, src_mem } => {
                let (dst, src, len) = self.pop3();
                let dm = self.b.ins().iconst(I32, dst_mem as i64);
                let sm = self.b.ins().iconst(I32, src_mem as i64);
                let dst = self.b.ins().uextend(I64, dst);
                let src = self.b.ins().uextend(I64, src);
                let len = self.b.ins().uextend(I64, len);
                self.env.call_builtin(&mut self.b, Builtin::memory_copy, &[dm, dst, sm, src, len]);
            }
            O::MemoryInit { data_index, mem } => {
                let (dst, src, len) = self.pop3();
                let m = self.b.ins().iconst(I32, mem as i64);
                let d = self.b.ins().iconst(I32, data_index as i64);
                let dst = self.b.ins().uextend(I64, dst);
                self.env.call_builtin(&mut self.b, Builtin::memory_init, &[m, d, dst, src, len]);
            }
            O::DataDrop { data_index } => {
                let d = self.b.ins().iconst(I32, data_index as i64);
                self.env.call_builtin(&mut self.b, Builtin::data_drop, &[d]);
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Pops the index of an access of `size` bytes and returns the address
    /// and immediate offset to access it with.
    pub(super) fn heap_addr(&mut self, memarg: &MemArg, size: u32) -> (Value, i32) {
        let index = self.pop1();
        let wasmparser::MemArgTarget::Memory(m) = memarg.target else { unreachable!("GC arrays are not enabled") };
        let m = MemoryIndex::from_u32(m);
        let index = self.b.ins().uextend(I64, index);
        if self.env.module.bounds_checks == BoundsChecks::Explicit {
            // index < 2^32 and offset < 2^32, so the sum cannot wrap.
            let end = self.b.ins().iadd_imm_u(index, (memarg.offset + size as u64) as i64);
            let len = self.env.memory_length(&mut self.b, m);
            let oob = self.b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
            self.trap_if(oob, TrapCode::MemoryOutOfBounds);
        }
        let base = self.env.memory_base(&mut self.b, m);
        let addr = self.b.ins().iadd(base, index);
        match i32::try_from(memarg.offset) {
            Ok(offset) => (addr, offset),
            Err(_) => (self.b.ins().iadd_imm_u(addr, memarg.offset as i64), 0),
        }
    }

    fn load(&mut self, memarg: &MemArg, kind: Load, size: u32) {
        let (addr, offset) = self.heap_addr(memarg, size);
        let f = heap_flags();
        let ins = self.b.ins();
        let v = match kind {
            Load::Plain(ty) => ins.load(ty, f, addr, offset),
            Load::Signed8(ty) => ins.sload8(ty, f, addr, offset),
            Load::Unsigned8(ty) => ins.uload8(ty, f, addr, offset),
            Load::Signed16(ty) => ins.sload16(ty, f, addr, offset),
            Load::Unsigned16(ty) => ins.uload16(ty, f, addr, offset),
            Load::Signed32 => ins.sload32(f, addr, offset),
            Load::Unsigned32 => ins.uload32(f, addr, offset),
        };
        self.push1(v);
    }

    fn narrow_store(&mut self, memarg: &MemArg, size: u32) {
        let v = self.pop1();
        let (addr, offset) = self.heap_addr(memarg, size);
        let f = heap_flags();
        match size {
            1 => self.b.ins().istore8(f, v, addr, offset),
            2 => self.b.ins().istore16(f, v, addr, offset),
            _ => self.b.ins().istore32(f, v, addr, offset),
        };
    }
}
