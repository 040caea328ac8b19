//! 64-bit loop addresses checked once per loop entry, not once per access.
//!
//! clang strength-reduces a wasm64 loop's `a[j]` to a pointer stepped by
//! the stride (the sieve's `p += i`, matmul's `p += 16`), so each access
//! is at a loop parameter `p`, and `bounds64` clamps it on every
//! iteration: `select_spectre_guard(p > 4 GiB, 4 GiB, p)`, a compare, a
//! copy and a conditional move with a 64-bit constant, where a wasm32
//! loop pays nothing.
//!
//! This pass rewrites such a parameter when nothing but its clamps and
//! its own step reads it. Its entry value is clamped once, on the edges
//! into the loop, and the accesses use `p & (2^33 - 1)`. Why that is the
//! same program:
//!
//! - On the first iteration `p` is the clamped entry value, at most 4 GiB,
//!   which the mask leaves as it is, and which every access used before.
//! - A later iteration follows one in which an access `A` through `p`
//!   completed (`A` is required to dominate every back edge), so then `p
//!   + end(A) <= length <= 4 GiB`; and the step `s` is below 4 GiB (a
//!   constant, a value whose definition bounds it, or an index that an
//!   access dominating the back edge proved to be in bounds). So the next
//!   `p` is below 2^33, exactly the address the program computed, and the
//!   mask leaves it as it is.
//! - That address, plus an access's offset and size (at most
//!   `GUARD_TAIL_BYTES`), lies inside the guarded reservation, where
//!   every byte past the length faults: the access traps exactly when the
//!   clamped one did, and reads or writes the same bytes when it does
//!   not.
//!
//! Nothing but accesses reads `p` and its steps, so no other value
//! changes. The mask is there for speculation, not for the program: a
//! faulting access does not stop the iterations after it from running
//! speculatively, so the proof above (which needs the access to complete)
//! does not bound a speculative `p`; the mask does, keeping every address
//! a mispredicted path forms inside the reservation, as the clamp did. It
//! sits beside the access, off the chain of steps that carries `p` from
//! one iteration to the next (masking the step itself would make that
//! chain two instructions long, which the sieve's loop, one add per
//! iteration, measurably paid). Per access the loop pays a copy and an
//! `and` with a constant made once, in the entry block, instead of a
//! compare, a copy and a conditional move with a 64-bit constant. Runs
//! after Cranelift's optimiser (`Config::loop_passes`).

use std::collections::{BTreeMap, HashMap};

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, Block, BlockArg, Function, Inst, InstBuilder, InstructionData, Opcode, Value, ValueDef,
};

use super::edge_args::{edge_args, set_edge_args};
use super::func_env::{is_heap_access, max_u64};
use super::iconst_bits;
use crate::environ::types::{GUARD_TAIL_BYTES, MAX_MEMORY_BYTES};

/// The mask of the loop-carried addresses: below 8 GiB.
const MASK: i64 = (2 * MAX_MEMORY_BYTES - 1) as i64;

/// The widest access a heap load or store makes (a `v128`).
const MAX_ACCESS_BYTES: u64 = 16;

/// A one-compare clamp `select_spectre_guard(x > 4 GiB, 4 GiB, x)`.
struct Clamp {
    select: Inst,
    compare: Inst,
    /// The clamped index.
    index: Value,
    /// The blocks of the heap accesses made at the clamped index.
    access_blocks: Vec<Block>,
}

/// Rewrites the clamped loop addresses of `func` (see the module comment).
/// Adds no block and no branch.
pub fn check_loop_addresses_once(func: &mut Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
    // Only 64-bit memories' accesses are clamped: without a clamp (every
    // function of a wasm32 module) there is nothing to map uses for.
    let has_clamp = func.layout.blocks().any(|block| {
        func.layout.block_insts(block).any(|inst| func.dfg.insts[inst].opcode() == Opcode::SelectSpectreGuard)
    });
    if !has_clamp {
        return;
    }
    let uses = uses(func);
    let clamps = clamps(func, &uses);
    if clamps.is_empty() {
        return;
    }
    let mut by_index: BTreeMap<Value, Vec<usize>> = BTreeMap::new();
    for (i, c) in clamps.iter().enumerate() {
        by_index.entry(c.index).or_default().push(i);
    }
    let mut mask = None;
    for (&p, mine) in &by_index {
        let Some(plan) = plan(func, cfg, domtree, &uses, &clamps, &by_index, p, mine) else { continue };
        let mask = *mask.get_or_insert_with(|| {
            let entry = func.layout.entry_block().expect("a function has an entry block");
            FuncCursor::new(func).at_first_insertion_point(entry).ins().iconst(types::I64, MASK)
        });
        rewrite(func, &uses, &clamps, p, mine, plan, mask);
    }
}

/// What rewriting `p` changes: the branches into the loop.
struct Plan {
    header: Block,
    index: usize,
    entries: Vec<Inst>,
}

/// The plan for parameter `p` whose clamps are `mine`, if the module
/// comment's conditions hold.
#[allow(clippy::too_many_arguments)]
fn plan(
    func: &Function,
    cfg: &ControlFlowGraph,
    domtree: &DominatorTree,
    uses: &HashMap<Value, Vec<Inst>>,
    clamps: &[Clamp],
    by_index: &BTreeMap<Value, Vec<usize>>,
    p: Value,
    mine: &[usize],
) -> Option<Plan> {
    let ValueDef::Param(header, index) = func.dfg.value_def(p) else { return None };
    if func.layout.entry_block() == Some(header) {
        return None;
    }
    let mut entries = Vec::new();
    let mut steps = Vec::new();
    let mut back_edges = Vec::new();
    for pred in cfg.pred_iter(header) {
        let args = edge_args(func, pred.inst, header, index)?;
        if !domtree.dominates(header, pred.block, &func.layout) {
            entries.push(pred.inst);
            continue;
        }
        back_edges.push(pred.block);
        for a in args {
            if a == p {
                continue;
            }
            // The step `p + s`, with `s < 4 GiB` where the back edge is.
            let s = step_of(func, a, p)?;
            if !below_4gib(func, domtree, clamps, by_index, s, pred.block) {
                return None;
            }
            steps.push(a);
        }
    }
    if back_edges.is_empty() {
        return None;
    }
    // An access through `p` completes on every iteration that goes round.
    let every_round = mine.iter().any(|&c| {
        clamps[c].access_blocks.iter().any(|&a| back_edges.iter().all(|&b| domtree.dominates(a, b, &func.layout)))
    });
    if !every_round {
        return None;
    }
    // Nothing else reads `p` or its steps, and they go back only as `p`.
    let ours = |inst: Inst| mine.iter().any(|&c| clamps[c].select == inst || clamps[c].compare == inst);
    let step_def = |inst: Inst| steps.iter().any(|&s| func.dfg.value_def(s).inst() == Some(inst));
    let passed_back = |inst: Inst, v: Value| {
        func.layout.inst_block(inst).is_some_and(|b| back_edges.contains(&b))
            && edge_args(func, inst, header, index).is_some()
            && !func.dfg.inst_args(inst).contains(&v)
            && branch_calls(func, inst)
                .iter()
                .all(|(to, args)| args.iter().enumerate().all(|(i, a)| *a != v || (*to == header && i == index)))
    };
    if !uses.get(&p).into_iter().flatten().all(|&u| ours(u) || step_def(u) || passed_back(u, p)) {
        return None;
    }
    if !steps.iter().all(|&s| uses.get(&s).into_iter().flatten().all(|&u| passed_back(u, s))) {
        return None;
    }
    Some(Plan { header, index, entries })
}

fn rewrite(
    func: &mut Function,
    uses: &HashMap<Value, Vec<Inst>>,
    clamps: &[Clamp],
    p: Value,
    mine: &[usize],
    plan: Plan,
    mask: Value,
) {
    // Entry edges: the clamp, once per entry into the loop.
    for branch in plan.entries {
        let mut pos = FuncCursor::new(func).at_inst(branch);
        let mut clamped = HashMap::new();
        let args: Vec<Value> = edge_args(pos.func, branch, plan.header, plan.index).expect("checked by plan");
        for a in args {
            if clamped.contains_key(&a) {
                continue;
            }
            let c = if max_u64(&pos.func.dfg, a) <= MAX_MEMORY_BYTES {
                a
            } else {
                let limit = pos.ins().iconst(types::I64, MAX_MEMORY_BYTES as i64);
                let oob = pos.ins().icmp(IntCC::UnsignedGreaterThan, a, limit);
                pos.ins().select_spectre_guard(oob, limit, a)
            };
            clamped.insert(a, c);
        }
        set_edge_args(pos.func, branch, plan.header, plan.index, |a| clamped[&a]);
    }
    // The accesses read `p` masked below 8 GiB, off the loop's chain of
    // steps: the select becomes the `and`, its result the same value.
    for &c in mine {
        func.replace(clamps[c].select).band(p, mask);
    }
    // A compare goes with the last of its clamps.
    for &c in mine {
        let compare = clamps[c].compare;
        let oob = func.dfg.first_result(compare);
        let served = uses[&oob].iter().all(|&u| mine.iter().any(|&m| clamps[m].select == u));
        if served && func.layout.inst_block(compare).is_some() {
            func.layout.remove_inst(compare);
        }
    }
}

/// Every instruction reading each value (once per instruction).
fn uses(func: &Function) -> HashMap<Value, Vec<Inst>> {
    let mut uses: HashMap<Value, Vec<Inst>> = HashMap::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for v in func.dfg.inst_values(inst) {
                let list = uses.entry(v).or_default();
                if list.last() != Some(&inst) {
                    list.push(inst);
                }
            }
        }
    }
    uses
}

/// The one-compare clamps of `func` that feed nothing but heap accesses
/// whose offset and size the reservation's tail covers.
fn clamps(func: &Function, uses: &HashMap<Value, Vec<Inst>>) -> Vec<Clamp> {
    let dfg = &func.dfg;
    let is_limit = |v: Value| iconst_bits(dfg, v) == Some(MAX_MEMORY_BYTES as i64);
    let mut found = Vec::new();
    for block in func.layout.blocks() {
        for select in func.layout.block_insts(block) {
            let InstructionData::Ternary { opcode: Opcode::SelectSpectreGuard, args: [oob, limit, index] } =
                dfg.insts[select]
            else {
                continue;
            };
            let Some(compare) = dfg.value_def(oob).inst() else { continue };
            let InstructionData::IntCompare { opcode: Opcode::Icmp, cond, args: [x, k] } = dfg.insts[compare] else {
                continue;
            };
            if cond != IntCC::UnsignedGreaterThan || x != index || !is_limit(k) || !is_limit(limit) {
                continue;
            }
            // The compare serves clamps of `index` only.
            if !uses[&oob].iter().all(|&u| dfg.insts[u].opcode() == Opcode::SelectSpectreGuard) {
                continue;
            }
            if let Some(access_blocks) = accesses(func, uses, dfg.first_result(select)) {
                found.push(Clamp { select, compare, index, access_blocks });
            }
        }
    }
    found
}

/// The blocks of the heap accesses at `base + clamped`, if that is all
/// `clamped` feeds and their offsets and sizes fit the reservation's tail.
fn accesses(func: &Function, uses: &HashMap<Value, Vec<Inst>>, clamped: Value) -> Option<Vec<Block>> {
    let dfg = &func.dfg;
    let mut blocks = Vec::new();
    for &add in uses.get(&clamped)? {
        let InstructionData::Binary { opcode: Opcode::Iadd, args } = dfg.insts[add] else { return None };
        if args[0] == args[1] {
            return None;
        }
        let addr = dfg.first_result(add);
        for &access in uses.get(&addr)? {
            let offset = match dfg.insts[access] {
                InstructionData::Load { flags, arg, offset, .. }
                    if arg == addr && is_heap_access(&dfg.mem_flags[flags]) =>
                {
                    offset
                }
                InstructionData::Store { flags, args: [value, arg], offset, .. }
                    if arg == addr && value != addr && is_heap_access(&dfg.mem_flags[flags]) =>
                {
                    offset
                }
                _ => return None,
            };
            let offset = u64::try_from(i64::from(offset)).ok()?;
            if offset + MAX_ACCESS_BYTES > GUARD_TAIL_BYTES {
                return None;
            }
            blocks.push(func.layout.inst_block(access)?);
        }
    }
    Some(blocks)
}

/// `s` when `v` is `p + s`.
fn step_of(func: &Function, v: Value, p: Value) -> Option<Value> {
    let InstructionData::Binary { opcode: Opcode::Iadd, args: [x, y] } =
        func.dfg.insts[func.dfg.value_def(v).inst()?]
    else {
        return None;
    };
    match (x == p, y == p) {
        (true, false) => Some(y),
        (false, true) => Some(x),
        _ => None,
    }
}

/// Whether `s` is below 4 GiB wherever `at` is reached: by its definition,
/// or because a heap access at `s` or `s + c` completed before (a clamped
/// index that an access dominating `at` used is at most 4 GiB less that
/// access's size).
fn below_4gib(
    func: &Function,
    domtree: &DominatorTree,
    clamps: &[Clamp],
    by_index: &BTreeMap<Value, Vec<usize>>,
    s: Value,
    at: Block,
) -> bool {
    if max_u64(&func.dfg, s) < MAX_MEMORY_BYTES {
        return true;
    }
    let proven_by = |x: Value| {
        by_index
            .get(&x)
            .into_iter()
            .flatten()
            .any(|&c| clamps[c].access_blocks.iter().any(|&a| domtree.dominates(a, at, &func.layout)))
    };
    if proven_by(s) {
        return true;
    }
    // `s + c` for a constant `c`: scan the clamped indices for one.
    by_index.keys().any(|&x| {
        let Some(def) = func.dfg.value_def(x).inst() else { return false };
        let InstructionData::Binary { opcode: Opcode::Iadd, args: [a, b] } = func.dfg.insts[def] else {
            return false;
        };
        let plus_constant = (a == s && iconst_bits(&func.dfg, b).is_some_and(|c| c >= 0))
            || (b == s && iconst_bits(&func.dfg, a).is_some_and(|c| c >= 0));
        plus_constant && proven_by(x)
    })
}

/// The blocks `branch` goes to, each with its value arguments.
fn branch_calls(func: &Function, branch: Inst) -> Vec<(Block, Vec<Value>)> {
    let dfg = &func.dfg;
    dfg.insts[branch]
        .branch_destination(&dfg.jump_tables, &dfg.exception_tables)
        .iter()
        .map(|call| {
            let args = call.args(&dfg.value_lists).filter_map(|a| match a {
                BlockArg::Value(v) => Some(v),
                _ => None,
            });
            (call.block(&dfg.value_lists), args.collect())
        })
        .collect()
}
