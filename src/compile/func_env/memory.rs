//! Linear memories: the address of an access and the bounds-check policy,
//! the memory's size, and the bulk operations (runtime builtins).
//!
//! With guard pages (the default), an access is `base + zext(index) +
//! offset` with no compare: the reservation covers every address a 32-bit
//! index and offset can form, and a fault there becomes a trap through the
//! access's trap code. With explicit checks, the end of the access is
//! compared against the current length first.

use cranelift_codegen::ir::{
    condcodes::IntCC,
    types::{I32, I64},
    Endianness, InstBuilder, MemFlagsData, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::call::index_arg;
use super::{trusted, FuncEnv, POINTER};
use crate::builtins::Builtin;
use crate::config::BoundsChecks;
use crate::index::{DataIndex, MemoryIndex};
use crate::trap::TrapCode;
use crate::vmctx::VMMemoryDefinition;

/// log2 of the wasm page size (64 KiB).
const WASM_PAGE_SIZE_LOG2: i64 = 16;

/// A wasm memory access, ready to emit as one load or store.
pub struct HeapAccess {
    /// Base address; the access is at `addr + offset`.
    pub addr: Value,
    /// The immediate offset of the load or store.
    pub offset: i32,
    /// Little-endian, and a fault is an out-of-bounds trap.
    pub flags: MemFlagsData,
}

impl FuncEnv<'_> {
    /// The base address of memory `m`. Memories never move, so this is a
    /// read-only VMContext load the optimiser can hoist out of loops.
    fn memory_base(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().memory_base(m))
    }

    /// The current length in bytes of memory `m`.
    fn memory_length(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        let def = self.load_vmctx_ptr(b, self.offsets().memory_definition(m));
        b.ins().load(POINTER, trusted(), def, VMMemoryDefinition::LENGTH)
    }

    /// An access of `size` bytes at `index + offset` of memory `m`, where
    /// `index` is the i32 operand and `offset` the static immediate; with
    /// explicit bounds checks, the check is emitted here.
    pub fn heap_access(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        index: Value,
        offset: u64,
        size: u32,
    ) -> HeapAccess {
        let index = b.ins().uextend(I64, index);
        if self.module.bounds_checks == BoundsChecks::Explicit {
            // index < 2^32 and offset < 2^32, so the sum cannot wrap.
            let end = b.ins().iadd_imm_u(index, (offset + size as u64) as i64);
            let len = self.memory_length(b, m);
            let oob = b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
            b.ins().trapnz(oob, TrapCode::MemoryOutOfBounds.to_clif());
        }
        let base = self.memory_base(b, m);
        let addr = b.ins().iadd(base, index);
        let flags = MemFlagsData::new()
            .with_endianness(Endianness::Little)
            .with_trap_code(Some(TrapCode::MemoryOutOfBounds.to_clif()));
        match i32::try_from(offset) {
            Ok(offset) => HeapAccess { addr, offset, flags },
            Err(_) => HeapAccess { addr: b.ins().iadd_imm_u(addr, offset as i64), offset: 0, flags },
        }
    }

    /// `memory.size`: the current length of memory `m` in pages, as an i32.
    pub fn memory_size(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        let len = self.memory_length(b, m);
        let pages = b.ins().ushr_imm_u(len, WASM_PAGE_SIZE_LOG2);
        b.ins().ireduce(I32, pages)
    }

    /// `memory.grow`: the old size in pages, or -1.
    pub fn memory_grow(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, delta: Value) -> Value {
        let m = index_arg(b, m);
        self.call_builtin(b, Builtin::memory_grow, &[m, delta]).expect("memory_grow returns")
    }

    /// `memory.fill` of `len` bytes of `val` at `dst`.
    pub fn memory_fill(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, [dst, val, len]: [Value; 3]) {
        let m = index_arg(b, m);
        let dst = b.ins().uextend(I64, dst);
        let len = b.ins().uextend(I64, len);
        self.call_builtin(b, Builtin::memory_fill, &[m, dst, val, len]);
    }

    /// `memory.copy` of `len` bytes from `src` in `src_mem` to `dst` in
    /// `dst_mem`.
    pub fn memory_copy(
        &mut self,
        b: &mut FunctionBuilder,
        dst_mem: MemoryIndex,
        src_mem: MemoryIndex,
        [dst, src, len]: [Value; 3],
    ) {
        let dm = index_arg(b, dst_mem);
        let sm = index_arg(b, src_mem);
        let dst = b.ins().uextend(I64, dst);
        let src = b.ins().uextend(I64, src);
        let len = b.ins().uextend(I64, len);
        self.call_builtin(b, Builtin::memory_copy, &[dm, dst, sm, src, len]);
    }

    /// `memory.init` of `len` bytes of segment `data` from `src` to `dst`.
    pub fn memory_init(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        data: DataIndex,
        [dst, src, len]: [Value; 3],
    ) {
        let m = index_arg(b, m);
        let d = index_arg(b, data);
        let dst = b.ins().uextend(I64, dst);
        self.call_builtin(b, Builtin::memory_init, &[m, d, dst, src, len]);
    }

    /// `data.drop`.
    pub fn data_drop(&mut self, b: &mut FunctionBuilder, data: DataIndex) {
        let d = index_arg(b, data);
        self.call_builtin(b, Builtin::data_drop, &[d]);
    }
}
