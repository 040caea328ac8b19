//! Linear memory: loads, stores, `memory.size`/`memory.grow` and the bulk
//! operations. Where an access goes, how it is kept in bounds and with
//! which flags is the function environment's [`HeapAccess`].

use cranelift_codegen::ir::{InstBuilder, Type};
use wasmparser::{MemArg, MemArgTarget};

use super::Translator;
use crate::compile::func_env::HeapAccess;
use crate::environ::error::{Error, Result};
use crate::environ::index::{DataIndex, MemoryIndex};

/// How a load reads its bytes into its result type.
#[derive(Copy, Clone)]
pub(super) enum Load {
    Plain(Type),
    Signed8(Type),
    Unsigned8(Type),
    Signed16(Type),
    Unsigned16(Type),
    Signed32,
    Unsigned32,
}

impl Translator<'_, '_> {
    /// The memory `memarg` accesses.
    pub(super) fn memarg_memory(&self, memarg: &MemArg) -> Result<MemoryIndex> {
        match memarg.target {
            MemArgTarget::Memory(m) => Ok(MemoryIndex::from_u32(m)),
            MemArgTarget::Array(_) => Err(Error::unsupported("memory access to a GC array", Some(self.offset))),
        }
    }

    /// Pops the index of an access of `size` bytes described by `memarg`.
    pub(super) fn heap_access(&mut self, memarg: &MemArg, size: u32) -> Result<HeapAccess> {
        let index = self.pop1();
        let m = self.memarg_memory(memarg)?;
        Ok(self.env.heap_access(&mut self.b, m, index, memarg.offset, size))
    }

    pub(super) fn load(&mut self, memarg: &MemArg, kind: Load, size: u32) -> Result<()> {
        let HeapAccess { addr, offset, flags: f } = self.heap_access(memarg, size)?;
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
        Ok(())
    }

    /// A store of the whole value.
    pub(super) fn store(&mut self, memarg: &MemArg) -> Result<()> {
        let v = self.pop1();
        let size = self.b.func.dfg.value_type(v).bytes();
        let a = self.heap_access(memarg, size)?;
        let ty = self.b.func.dfg.value_type(v);
        self.env.probe_store(&mut self.b, &a, ty);
        self.b.ins().store(a.flags, v, a.addr, a.offset);
        Ok(())
    }

    /// A store of the low `size` bytes of an integer.
    pub(super) fn narrow_store(&mut self, memarg: &MemArg, size: u32) -> Result<()> {
        let v = self.pop1();
        let a = self.heap_access(memarg, size)?;
        self.env.probe_store(&mut self.b, &a, Type::int(size as u16 * 8).expect("1, 2 or 4 bytes"));
        let HeapAccess { addr, offset, flags: f } = a;
        match size {
            1 => self.b.ins().istore8(f, v, addr, offset),
            2 => self.b.ins().istore16(f, v, addr, offset),
            _ => self.b.ins().istore32(f, v, addr, offset),
        };
        Ok(())
    }

    pub(super) fn memory_size(&mut self, m: MemoryIndex) {
        let v = self.env.memory_size(&mut self.b, m);
        self.push1(v);
    }

    pub(super) fn memory_grow(&mut self, m: MemoryIndex) {
        let delta = self.pop1();
        let v = self.env.memory_grow(&mut self.b, m, delta);
        self.push1(v);
    }

    pub(super) fn memory_fill(&mut self, m: MemoryIndex) {
        let operands = self.pop3();
        self.env.memory_fill(&mut self.b, m, operands);
    }

    pub(super) fn memory_copy(&mut self, dst: MemoryIndex, src: MemoryIndex) {
        let operands = self.pop3();
        self.env.memory_copy(&mut self.b, dst, src, operands);
    }

    pub(super) fn memory_init(&mut self, m: MemoryIndex, data: DataIndex) {
        let operands = self.pop3();
        self.env.memory_init(&mut self.b, m, data, operands);
    }
}
