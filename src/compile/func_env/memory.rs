//! Linear memories: the address of an access and the bounds-check policy,
//! the memory's size, the bulk operations (runtime builtins), and what the
//! atomic operations of the threads proposal need (alignment checks, cells
//! for wait/notify).
//!
//! With guard pages (the default), an access is `base + zext(index) +
//! offset` with no compare: the reservation covers every address a 32-bit
//! index and offset can form, and a fault there becomes a trap through the
//! access's trap code. With explicit checks, the end of the access is
//! compared against the current length first. 64-bit memories and
//! memories of 1-byte pages are always compared (`bounds64`).
//!
//! A shared memory's length can change under the code's feet (another
//! thread grows it), but never its base, and it never shrinks: the same
//! addresses and checks hold, and `memory.size` reads the length with an
//! atomic load that no optimisation may merge with an earlier one.

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{
    condcodes::IntCC,
    types::{I32, I64},
    Block, Endianness, InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::call::index_arg;
use super::{heap, ranges, trusted, FuncEnv, POINTER};
use crate::environ::builtins::Builtin;
use crate::environ::config::BoundsChecks;
use crate::environ::index::{DataIndex, MemoryIndex};
use crate::environ::trap::TrapCode;
use crate::environ::vmctx::VMMemoryDefinition;

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
    pub(super) fn memory_base(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().memory_base(m))
    }

    /// The current length in bytes of memory `m`.
    pub(super) fn memory_length(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        let def = self.load_vmctx_ptr(b, self.offsets().memory_definition(m));
        b.ins().load(POINTER, trusted(), def, VMMemoryDefinition::LENGTH)
    }

    /// Whether memory `m` is shared (the threads proposal).
    pub fn memory_is_shared(&self, m: MemoryIndex) -> bool {
        self.info().memories[m].is_shared()
    }

    /// An access of `size` bytes at `index + offset` of memory `m`, where
    /// `index` is the address operand (i32, or i64 for a 64-bit memory)
    /// and `offset` the static immediate; with explicit bounds checks, the
    /// check is emitted here.
    pub fn heap_access(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        index: Value,
        offset: u64,
        size: u32,
    ) -> HeapAccess {
        if self.needs_explicit_checks(m) {
            let index = to_i64(b, index);
            return self.checked_heap_access(b, m, index, offset, size);
        }
        // `index + extra` is `zext(index)`, with `index` shifted where an
        // addressing mode can scale it (see `ranges`).
        let (index, extra) = match self.module.analyses {
            true => ranges::widen_index(b, index),
            false => (b.ins().uextend(I64, index), 0),
        };
        let offset = offset + extra;
        if self.module.bounds_checks == BoundsChecks::Explicit {
            // index + offset <= zext(i32) + u32 < 2^33: the sum cannot wrap.
            let end = b.ins().iadd_imm_u(index, (offset + size as u64) as i64);
            self.trap_past_length(b, m, end);
        }
        let base = self.memory_base(b, m);
        let addr = b.ins().iadd(base, index);
        let flags = heap_access_flags();
        match i32::try_from(offset) {
            Ok(offset) => HeapAccess { addr, offset, flags },
            Err(_) => HeapAccess { addr: b.ins().iadd_imm_u(addr, offset as i64), offset: 0, flags },
        }
    }

    /// Before a store of a `ty` to `a`, where the target needs it: a load
    /// of the same bytes, so that a store that guard pages would stop
    /// part-way traps before it writes anything. An unaligned store that
    /// crosses into a guard page may write its bytes below the page before
    /// the fault on AArch64 (the architecture allows it; vector stores and
    /// qemu do it), and wasm forbids any effect of a trapping store; loads
    /// have none. The load traps with the store's code and is kept because
    /// it may trap.
    pub fn probe_store(&mut self, b: &mut FunctionBuilder, a: &HeapAccess, ty: Type) {
        if self.module.probe_stores && ty.bytes() > 1 {
            b.ins().load(ty, a.flags, a.addr, a.offset);
        }
    }

    /// `memory.size`: the current length of memory `m` in pages, as an i32
    /// (an i64 for a 64-bit memory).
    pub fn memory_size(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        let len = if self.memory_is_shared(m) {
            // A loop polling the size of a memory another thread grows
            // must see the growth: an atomic load is never merged or
            // hoisted (and is a plain `mov` on x86-64).
            let def = self.load_vmctx_ptr(b, self.offsets().memory_definition(m));
            let at = b.ins().iadd_imm_u(def, VMMemoryDefinition::LENGTH as i64);
            b.ins().atomic_load(POINTER, trusted(), at)
        } else {
            self.memory_length(b, m)
        };
        let ty = self.info().memories[m];
        let pages = b.ins().ushr_imm_u(len, i64::from(ty.page_size_log2()));
        match ty.is_64() {
            true => pages,
            false => b.ins().ireduce(I32, pages),
        }
    }

    /// The effective address `index + offset` (an i64) of a `size`-byte
    /// atomic access, after trapping with "unaligned atomic" unless it is a
    /// multiple of `size`. The spec checks alignment before bounds.
    fn aligned_address(&mut self, b: &mut FunctionBuilder, index: Value, offset: u64, size: u32) -> Value {
        let ea = match b.func.dfg.value_type(index) {
            // index < 2^32 and offset < 2^32, so the sum cannot wrap.
            I32 => {
                let index = b.ins().uextend(I64, index);
                b.ins().iadd_imm_u(index, offset as i64)
            }
            // A 64-bit sum that wraps is past any memory.
            _ => {
                let offset = b.ins().iconst(I64, offset as i64);
                b.ins().uadd_overflow_trap(index, offset, TrapCode::MemoryOutOfBounds.to_clif())
            }
        };
        if size > 1 {
            let misaligned = b.ins().band_imm_u(ea, (size - 1) as i64);
            b.ins().trapnz(misaligned, TrapCode::HeapMisaligned.to_clif());
        }
        ea
    }

    /// An atomic access of `size` bytes at `index + offset` of memory `m`:
    /// checked for alignment, then kept in bounds as a plain access is. The
    /// offset is folded into the address (atomic instructions take none).
    pub fn atomic_access(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        index: Value,
        offset: u64,
        size: u32,
    ) -> HeapAccess {
        let ea = self.aligned_address(b, index, offset, size);
        if self.needs_explicit_checks(m) {
            return self.checked_heap_access(b, m, ea, 0, size);
        }
        if self.module.bounds_checks == BoundsChecks::Explicit {
            let end = b.ins().iadd_imm_u(ea, size as i64);
            self.trap_past_length(b, m, end);
        }
        let base = self.memory_base(b, m);
        HeapAccess { addr: b.ins().iadd(base, ea), offset: 0, flags: heap_access_flags() }
    }

    /// Traps with "out of bounds memory access" when `end` (an i64 byte
    /// offset one past an access) is past memory `m`'s current length.
    fn trap_past_length(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, end: Value) {
        let len = self.memory_length(b, m);
        let oob = b.ins().icmp(IntCC::UnsignedGreaterThan, end, len);
        b.ins().trapnz(oob, TrapCode::MemoryOutOfBounds.to_clif());
    }

    /// The effective address (an i64) of the `size`-byte cell a
    /// `memory.atomic.wait` or `notify` names, checked aligned and then in
    /// bounds against the current length, whatever the bounds-check mode:
    /// the builtin that uses it does not access memory through an
    /// instruction whose fault would become the trap.
    pub fn atomic_cell(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        index: Value,
        offset: u64,
        size: u32,
    ) -> Value {
        let ea = self.aligned_address(b, index, offset, size);
        let size = b.ins().iconst(I64, i64::from(size));
        let end = b.ins().uadd_overflow_trap(ea, size, TrapCode::MemoryOutOfBounds.to_clif());
        self.trap_past_length(b, m, end);
        ea
    }

    /// `memory.atomic.wait32` (`expected` an i32) or `wait64` (an i64) on
    /// the checked cell `ea` of shared memory `m`, with a timeout in
    /// nanoseconds (negative: none): 0 woken, 1 not equal, 2 timed out.
    pub fn memory_atomic_wait(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        ea: Value,
        expected: Value,
        timeout: Value,
    ) -> Value {
        let builtin = match b.func.dfg.value_type(expected) {
            I32 => Builtin::memory_atomic_wait32,
            _ => Builtin::memory_atomic_wait64,
        };
        let m = index_arg(b, m);
        self.call_builtin(b, builtin, &[m, ea, expected, timeout]).expect("waits return a result")
    }

    /// `memory.atomic.notify` of up to `count` waiters on the checked cell
    /// `ea` of shared memory `m`: how many were woken.
    pub fn memory_atomic_notify(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, ea: Value, count: Value) -> Value {
        let m = index_arg(b, m);
        self.call_builtin(b, Builtin::memory_atomic_notify, &[m, ea, count]).expect("notify returns a result")
    }

    /// `memory.grow`: the old size in pages, or -1 (i32 or i64, as the
    /// memory's addresses).
    pub fn memory_grow(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, delta: Value) -> Value {
        let narrow = b.func.dfg.value_type(delta) == I32;
        let delta = to_i64(b, delta);
        let m = index_arg(b, m);
        let old = self.call_builtin(b, Builtin::memory_grow, &[m, delta]).expect("memory_grow returns");
        // A 32-bit memory has fewer than 2^32 pages, and -1 stays -1.
        if narrow {
            b.ins().ireduce(I32, old)
        } else {
            old
        }
    }

    /// `memory.fill` of `len` bytes of `val` at `dst`.
    pub fn memory_fill(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, [dst, val, len]: [Value; 3]) {
        let m = index_arg(b, m);
        let dst = to_i64(b, dst);
        let len = to_i64(b, len);
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
        // Each operand has its memory's address type (the length the
        // narrower one's).
        let dst = to_i64(b, dst);
        let src = to_i64(b, src);
        let len = to_i64(b, len);
        let within_32 = dst_mem == src_mem && !self.info().memories[dst_mem].is_64();
        let done = within_32.then(|| self.memory_move_if_short(b, dst_mem, [dst, src, len]));
        let dm = index_arg(b, dst_mem);
        let sm = index_arg(b, src_mem);
        self.call_builtin(b, Builtin::memory_copy, &[dm, dst, sm, src, len]);
        if let Some(done) = done {
            b.ins().jump(done, &[]);
            b.seal_block(done);
            b.switch_to_block(done);
        }
    }

    /// `memory.copy` within one 32-bit memory: a copy of at most
    /// [`SHORT_COPY`] bytes whose two ranges are in bounds calls `memmove`
    /// on host addresses ([`Builtin::memory_move`]) and branches to the
    /// returned block; the code emitted after this (the general builtin,
    /// which checks the bounds, traps, and stops a pending interrupt) runs
    /// for the rest. Programs copy many short, odd-sized ranges
    /// (`memcpy` of a field, a string piece), where the general builtin's
    /// lookups of the memory cost as much as the copy.
    fn memory_move_if_short(&mut self, b: &mut FunctionBuilder, m: MemoryIndex, [dst, src, len]: [Value; 3]) -> Block {
        // Each operand is below 2^32: the sum cannot wrap.
        let start = b.ins().umax(dst, src);
        let end = b.ins().iadd(start, len);
        let length = self.memory_length(b, m);
        let in_bounds = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, length);
        let short = b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, len, SHORT_COPY);
        let fast = b.ins().band(in_bounds, short);
        let (fast_block, general, done) = (b.create_block(), b.create_block(), b.create_block());
        b.ins().brif(fast, fast_block, &[], general, &[]);
        b.seal_block(fast_block);
        b.seal_block(general);
        b.switch_to_block(fast_block);
        let base = self.memory_base(b, m);
        let to = b.ins().iadd(base, dst);
        let from = b.ins().iadd(base, src);
        self.call_builtin(b, Builtin::memory_move, &[to, from, len]);
        b.ins().jump(done, &[]);
        b.switch_to_block(general);
        done
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
        let dst = to_i64(b, dst);
        self.call_builtin(b, Builtin::memory_init, &[m, d, dst, src, len]);
    }

    /// `data.drop`.
    pub fn data_drop(&mut self, b: &mut FunctionBuilder, data: DataIndex) {
        let d = index_arg(b, data);
        self.call_builtin(b, Builtin::data_drop, &[d]);
    }
}

/// The longest `memory.copy` that skips the general builtin (see
/// `memory_move_if_short`): past it the copy itself outweighs the
/// builtin's lookups, and the builtin's interrupt check matters more.
const SHORT_COPY: i64 = 256;

/// `v` as an i64: an address or length operand, zero-extended when its
/// memory is 32-bit.
pub(super) fn to_i64(b: &mut FunctionBuilder, v: Value) -> Value {
    match b.func.dfg.value_type(v) {
        I64 => v,
        _ => b.ins().uextend(I64, v),
    }
}

/// The flags of a linear-memory access: little-endian, and a fault is an
/// out-of-bounds trap (how guard pages bound accesses).
pub(super) fn heap_access_flags() -> MemFlagsData {
    heap().with_endianness(Endianness::Little).with_trap_code(Some(TrapCode::MemoryOutOfBounds.to_clif()))
}
