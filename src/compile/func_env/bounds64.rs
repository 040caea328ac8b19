//! Bounds checks for the memories guard pages alone cannot cover: 64-bit
//! memories (memory64), and memories of 1-byte pages (custom page sizes),
//! whose length need not end at a host page, so that the bytes up to the
//! next page are accessible past it.
//!
//! Every such memory lives in the same reservation as a 32-bit one: at
//! most 4 GiB of memory (`MAX_MEMORY_BYTES`) followed, with guard pages,
//! by 4 GiB of guard region, and everything past the length faults. So
//! with guard pages, a 64-bit memory of 64 KiB pages needs one compare
//! per access whose offset and size the guard region covers, and with a
//! constant, not the length: `index <= 4 GiB` puts `index + offset +
//! size` inside the reservation, where whatever lies past the length
//! faults, exactly as a 32-bit index does. No length is loaded, so the
//! check costs a compare and a conditional move, and nothing a loop must
//! reload. Other accesses compare their end with the length exactly
//! (`index + offset + size`, trapping if that wraps).
//!
//! An access whose index's definition keeps it inside the 8 GiB
//! reservation (`ranges::max_u64`: a constant address plus a masked or
//! zero-extended i32, as a C table lookup or a static array indexed by
//! an `unsigned` compiles to) needs no check at all.
//!
//! With guard pages, an out-of-bounds access is not branched around. In
//! the one-compare form the compare replaces an index past 4 GiB with 4
//! GiB (`select_spectre_guard`, a conditional move that speculation
//! respects), so the access lands in the guard region and faults there
//! with its out-of-bounds trap code, and base, index and offset stay one
//! addressing mode. In the exact form it selects the null address. So
//! even a mispredicted path cannot read outside the memory. With explicit
//! checks (the valgrind mode) the check traps before the access, as for
//! 32-bit memories.
//!
//! Checks that an earlier one in the same block proves are not repeated:
//! the length never shrinks (and the one-compare form's bound is a
//! constant), so an index (with an end no greater) checked once stays in
//! bounds. The access then reuses the earlier clamped index (or compare,
//! still spectre-safe), or, with explicit checks, needs nothing at all.
//! Loop code that accesses `p`, `p + 8` and `p + 16` through immediate
//! offsets pays for one compare. So does `p` and then `(i64.add p 8)`,
//! clang's other form, in the one-compare form: the clamped `p` plus 8
//! cannot wrap, and the guard region covers the step as it covers an
//! offset.
//!
//! Across iterations, `compile/loop_bounds64.rs` takes over: a loop
//! address stepped on every iteration is clamped once on entry instead.

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{condcodes::IntCC, types::I64, Block, InstBuilder, InstructionData, Opcode, Value};
use cranelift_frontend::FunctionBuilder;

use super::memory::{heap_access_flags, HeapAccess};
use super::ranges;
use super::{FuncEnv, POINTER};
use crate::environ::config::BoundsChecks;
use crate::environ::index::MemoryIndex;
use crate::environ::trap::TrapCode;
use crate::environ::types::{GUARDED_RESERVATION_BYTES, MAX_MEMORY_BYTES};

/// Bytes at address 0 that are never mapped: an access there faults, and
/// the runtime's fault handler takes a fault on this page as a trap
/// (`runtime::vm::fault_regions::NULL_PAGE`).
const NULL_PAGE: u64 = 4096;

/// A check done earlier in the current block: `index + end <= length` of
/// `memory` holds wherever `oob` was false.
#[derive(Copy, Clone)]
pub(super) struct DoneCheck {
    block: Block,
    memory: MemoryIndex,
    index: Value,
    /// The checked end past `index`; `None` for the one-compare form
    /// (anything the guard region covers).
    end: Option<u64>,
    /// The compare's result, true when out of bounds.
    oob: Value,
    /// In the one-compare form: `index`, or 4 GiB when out of bounds (the
    /// select of the first access), which every access of `index` or a
    /// small step past it adds to the base.
    clamped: Option<Value>,
}

impl FuncEnv<'_> {
    /// Whether accesses to memory `m` need [`checked_heap_access`]: it is
    /// 64-bit or its pages are not 64 KiB.
    ///
    /// [`checked_heap_access`]: Self::checked_heap_access
    pub(super) fn needs_explicit_checks(&self, m: MemoryIndex) -> bool {
        let ty = &self.info().memories[m];
        ty.is_64() || ty.page_size_log2() != 16
    }

    /// An access of `size` bytes at `index + offset` of memory `m`, which
    /// [`needs_explicit_checks`](Self::needs_explicit_checks); `index` is
    /// the i64 address (zero-extended for a 32-bit memory).
    pub(super) fn checked_heap_access(
        &mut self,
        b: &mut FunctionBuilder,
        m: MemoryIndex,
        index: Value,
        offset: u64,
        size: u32,
    ) -> HeapAccess {
        debug_assert_eq!(b.func.dfg.value_type(index), I64);
        let guarded = self.module.bounds_checks == BoundsChecks::GuardPages;
        let ty = self.info().memories[m];
        let end = offset.saturating_add(size.into());
        // Under guard pages a memory of 64 KiB pages ends at a page, and
        // its reservation holds the guard region after at most 4 GiB.
        let reserved = guarded && ty.page_size_log2() == 16;
        // The one-compare form: the guard region covers the end.
        let one_compare = reserved && end <= MAX_MEMORY_BYTES;
        let wanted = if one_compare { None } else { Some(end) };
        // An index whose definition keeps the whole access inside the
        // reservation (a constant table address plus a masked, shifted
        // i32, or a static array plus a zero-extended i32) needs no check,
        // as a 32-bit index needs none.
        if reserved
            && self.module.analyses
            && ranges::max_u64(&b.func.dfg, index).checked_add(end).is_some_and(|e| e <= GUARDED_RESERVATION_BYTES)
        {
            let base = self.memory_base(b, m);
            let addr = b.ins().iadd(base, index);
            return at_offset(b, addr, offset);
        }
        let block = b.current_block().expect("accesses are translated in a block");
        // `index = x + step`, with `x` checked in this block in any form:
        // the earlier compare bounds this access too.
        let stepped = wanted.is_none().then(|| small_step(b, index)).flatten().and_then(|(x, step)| {
            let covered = end.saturating_add(step) <= MAX_MEMORY_BYTES;
            let c = self.done_checks.iter().find(|c| c.block == block && c.memory == m && c.index == x);
            c.filter(|_| covered).map(|c| (*c, step))
        });
        if let Some((DoneCheck { clamped: Some(x), .. }, step)) = stepped {
            // `x` clamped to 4 GiB, plus step and offset (at most 4 GiB
            // together), stays inside the reservation.
            let base = self.memory_base(b, m);
            let addr = b.ins().iadd(base, x);
            return at_offset(b, addr, offset + step);
        }
        let done = self.done_checks.iter().find(|c| {
            c.block == block
                && c.memory == m
                && c.index == index
                && match (c.end, wanted) {
                    (None, None) => true,
                    (Some(done), Some(end)) => end <= done,
                    // An exact check of `index` bounds it by the length
                    // as the one-compare form does.
                    (Some(_), None) => true,
                    (None, Some(_)) => false,
                }
        });
        let done = done.copied();
        if let Some(DoneCheck { clamped: Some(clamped), .. }) = done.filter(|_| wanted.is_none()) {
            let base = self.memory_base(b, m);
            let addr = b.ins().iadd(base, clamped);
            return at_offset(b, addr, offset);
        }
        let oob = match done.map(|c| c.oob).or(stepped.map(|(c, _)| c.oob)) {
            Some(oob) => oob,
            None => {
                let oob = match wanted {
                    None => b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, index, MAX_MEMORY_BYTES as i64),
                    Some(end) => {
                        let len = self.memory_length(b, m);
                        // A saturated `end` (past 2^64 nothing fits) makes
                        // `index + end` wrap unless the index is 0, which
                        // the compare then refuses.
                        let end = b.ins().iconst(I64, end as i64);
                        let last = b.ins().uadd_overflow_trap(index, end, TrapCode::MemoryOutOfBounds.to_clif());
                        b.ins().icmp(IntCC::UnsignedGreaterThan, last, len)
                    }
                };
                if !guarded {
                    b.ins().trapnz(oob, TrapCode::MemoryOutOfBounds.to_clif());
                }
                self.done_checks.retain(|c| c.block == block);
                self.done_checks.push(DoneCheck { block, memory: m, index, end: wanted, oob, clamped: None });
                oob
            }
        };
        let base = self.memory_base(b, m);
        if !guarded {
            // The trap above came first; the access is in bounds.
            let addr = b.ins().iadd(base, index);
            return at_offset(b, addr, offset);
        }
        if wanted.is_none() {
            // An index past 4 GiB becomes 4 GiB: with the offset, at most
            // 4 GiB more, the access lands in the guard region and faults.
            // A conditional move, so even a mispredicted path stays there,
            // and the base, index and offset remain one addressing mode.
            let limit = b.ins().iconst(I64, MAX_MEMORY_BYTES as i64);
            let clamped = b.ins().select_spectre_guard(oob, limit, index);
            let c = self.done_checks.iter_mut().find(|c| c.block == block && c.memory == m && c.index == index);
            if let Some(c) = c.filter(|c| c.oob == oob && c.clamped.is_none()) {
                c.clamped = Some(clamped);
            }
            let addr = b.ins().iadd(base, clamped);
            return at_offset(b, addr, offset);
        }
        // The exact form: an access out of bounds goes to the null
        // address, plus an immediate offset that stays on the null page
        // (a larger one goes into the address before the select).
        let mut addr = b.ins().iadd(base, index);
        let small = end <= NULL_PAGE;
        if !small {
            addr = b.ins().iadd_imm_u(addr, offset as i64);
        }
        let null = b.ins().iconst(POINTER, 0);
        let addr = b.ins().select_spectre_guard(oob, null, addr);
        HeapAccess { addr, offset: if small { offset as i32 } else { 0 }, flags: heap_access_flags() }
    }
}

/// An access at `addr + offset`: the offset as the instruction's
/// immediate when it fits one, else added to the address.
fn at_offset(b: &mut FunctionBuilder, addr: Value, offset: u64) -> HeapAccess {
    match i32::try_from(offset) {
        Ok(offset) => HeapAccess { addr, offset, flags: heap_access_flags() },
        Err(_) => HeapAccess { addr: b.ins().iadd_imm_u(addr, offset as i64), offset: 0, flags: heap_access_flags() },
    }
}

/// `(x, c)` when `v` is `x + c` for a constant `c` below 2^31 (either
/// operand order), as the translator emits an `i64.add` of a constant.
fn small_step(b: &FunctionBuilder, v: Value) -> Option<(Value, u64)> {
    let dfg = &b.func.dfg;
    let inst = dfg.value_def(v).inst()?;
    let InstructionData::Binary { opcode: Opcode::Iadd, args: [x, y] } = dfg.insts[inst] else { return None };
    let constant = |c| crate::compile::iconst_bits(dfg, c).filter(|c| (0..1 << 31).contains(c));
    match (constant(y), constant(x)) {
        (Some(c), _) => Some((x, c as u64)),
        (None, Some(c)) => Some((y, c as u64)),
        _ => None,
    }
}
