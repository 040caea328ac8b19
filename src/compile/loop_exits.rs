//! After a one-block loop that steps a counter, the counter's last value
//! is recomputed from its stepped value, so the loop needs no second
//! register for it.
//!
//! `while (a[i] < pivot) i++;` followed by uses of `i` (quicksort's
//! partition) is, in CLIF, a block `b(i)` ending `i2 = iadd i, 1; brif c,
//! b(i2), exit` with `i` used after the exit. Both `i` and `i2` are live
//! at the branch, so the register allocator gives them two registers and
//! copies `i2` into `i`'s on the back edge: a critical edge, so a block of
//! its own, a `mov` and a `jmp` per iteration (sort's two partition scans
//! were 7 and 9 instructions where clang's are 5). Clang instead keeps
//! only the stepped value and subtracts the step once after the loop.
//!
//! This pass does the same: for a block parameter `p` of a block `b`
//! whose branch back to `b` passes `q = iadd p, c` (a constant `c`), it
//! defines `p' = isub q, c` at the start of the loop's exit block and
//! makes every use of `p` outside `b` use `p'`. That is `p`'s value there:
//! the exit block's only predecessor is `b`, whose only other successor is
//! `b` itself, so every path to a use of `p` outside `b` leaves `b` for
//! the last time through the exit block, right after `q` was computed
//! from that `p`; integer adds wrap, so `q - c == p` exactly. Then `p`
//! dies at `q` and both can share a register. It runs after Cranelift's
//! optimiser (see `compile_function`).

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::entity::packed_option::PackedOption;
use cranelift_codegen::entity::SecondaryMap;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{Block, BlockArg, Function, InstBuilder, InstructionData, Opcode, Value, ValueDef};

/// Recomputes after each one-block loop the counters it steps (see the
/// module comment). Adds no block and no branch; one scan of `func`.
pub fn recompute_loop_exit_values(func: &mut Function, cfg: &ControlFlowGraph) {
    // Each candidate `p`: its loop block, the exit block, `q` and the step.
    let mut candidates: HashMap<Value, (Block, Block, Value, Value)> = HashMap::new();
    for b in func.layout.blocks() {
        let Some(term) = func.layout.last_inst(b) else { continue };
        let InstructionData::Brif { blocks: targets, .. } = func.dfg.insts[term] else { continue };
        let pool = &func.dfg.value_lists;
        let (back, exit) = match (targets[0].block(pool), targets[1].block(pool)) {
            (t, e) if t == b && e != b => (targets[0], e),
            (e, t) if t == b && e != b => (targets[1], e),
            _ => continue,
        };
        let mut exit_preds = cfg.pred_iter(exit);
        if !matches!((exit_preds.next(), exit_preds.next()), (Some(p), None) if p.block == b) {
            continue;
        }
        for (&p, arg) in func.dfg.block_params(b).iter().zip(back.args(pool)) {
            let BlockArg::Value(q) = arg else { continue };
            if let Some(step) = step_of(func, b, p, q) {
                candidates.insert(p, (b, exit, q, step));
            }
        }
    }
    if candidates.is_empty() {
        return;
    }
    for (&p, &(b, _, q, step)) in &candidates {
        compare_stepped_value(func, b, p, q, step);
    }
    // Each candidate's loop block, by value, for a cheap test per operand.
    let mut loop_of: SecondaryMap<Value, PackedOption<Block>> = SecondaryMap::new();
    for (p, c) in &candidates {
        loop_of[*p] = c.0.into();
    }
    let mut outside_uses = Vec::new();
    for u in func.layout.blocks() {
        for inst in func.layout.block_insts(u) {
            let outside = |v: Value| loop_of[v].expand().is_some_and(|b| b != u);
            // Arguments first: block-call arguments only on branches
            // (`inst_values` chains both, and costs more per instruction).
            let branch = func.dfg.insts[inst].opcode().is_branch();
            if func.dfg.inst_args(inst).iter().any(|v| outside(*v)) || branch && func.dfg.inst_values(inst).any(outside)
            {
                outside_uses.push((u, inst));
            }
        }
    }
    let mut last_values: SecondaryMap<Value, PackedOption<Value>> = SecondaryMap::new();
    for &(u, inst) in &outside_uses {
        let used: Vec<Value> =
            func.dfg.inst_values(inst).filter(|v| loop_of[*v].expand().is_some_and(|b| b != u)).collect();
        for p in used {
            if last_values[p].is_none() {
                let (_, exit, q, step) = candidates[&p];
                last_values[p] = FuncCursor::new(func).at_first_insertion_point(exit).ins().isub(q, step).into();
            }
        }
        func.dfg.map_inst_values(inst, |v| match loop_of[v].expand() {
            Some(b) if b != u => last_values[v].expect("made above"),
            _ => v,
        });
    }
}

/// Makes `icmp eq/ne p, K` in loop block `b` test `q = p + c` against
/// `K + c` instead, the same test since adds wrap (only equality is
/// preserved so). Cranelift's optimiser turns clang's `i + 2 != 4096`
/// into `i != 4094`, which keeps `i` live beside `i + 2` up to the branch
/// (dispatch's loop: one more register and a copy on the back edge).
/// A compare above `q`'s definition moves down to the end of the block
/// when nothing before the branch reads it (it is pure).
fn compare_stepped_value(func: &mut Function, b: Block, p: Value, q: Value, step: Value) {
    let (Some(c), Some(term)) = (constant(func, step), func.layout.last_inst(b)) else { return };
    let ty = func.dfg.value_type(p);
    let mask = if ty.bits() >= 64 { u64::MAX } else { (1u64 << ty.bits()) - 1 };
    let ValueDef::Result(q_def, _) = func.dfg.value_def(q) else { return };
    let insts: Vec<_> = func.layout.block_insts(b).collect();
    for (at, &inst) in insts.iter().enumerate() {
        let InstructionData::IntCompare { opcode: Opcode::Icmp, cond, args } = func.dfg.insts[inst] else { continue };
        if !matches!(cond, IntCC::Equal | IntCC::NotEqual) {
            continue;
        }
        let (k, k_at) = match args {
            [x, k] if x == p => (k, 1usize),
            [k, x] if x == p => (k, 0),
            _ => continue,
        };
        let Some(k) = constant(func, k) else { continue };
        let result = func.dfg.first_result(inst);
        let after_q = insts[..at].contains(&q_def);
        if !after_q && insts[at + 1..].iter().any(|i| *i != term && func.dfg.inst_values(*i).any(|v| v == result)) {
            continue;
        }
        let mut pos = FuncCursor::new(func).at_inst(if after_q { inst } else { term });
        let k = pos.ins().iconst(ty, ((k as u64).wrapping_add(c as u64) & mask) as i64);
        if !after_q {
            pos.func.layout.remove_inst(inst);
            pos.insert_inst(inst);
        }
        let mut args = args;
        args[1 - k_at] = q;
        args[k_at] = k;
        pos.func.dfg.insts[inst] = InstructionData::IntCompare { opcode: Opcode::Icmp, cond, args };
    }
}

fn constant(func: &Function, v: Value) -> Option<i64> {
    super::iconst_bits(&func.dfg, v)
}

/// The constant `c` (as a value) when `q` is `iadd p, c` computed in
/// block `b`.
fn step_of(func: &Function, b: Block, p: Value, q: Value) -> Option<Value> {
    let ValueDef::Result(inst, 0) = func.dfg.value_def(q) else { return None };
    if func.layout.inst_block(inst) != Some(b) {
        return None;
    }
    let InstructionData::Binary { opcode: Opcode::Iadd, args } = func.dfg.insts[inst] else { return None };
    let is_const = |v: Value| constant(func, v).is_some();
    match args {
        [x, c] if x == p && is_const(c) => Some(c),
        [c, x] if x == p && is_const(c) => Some(c),
        _ => None,
    }
}
