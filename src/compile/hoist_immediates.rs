//! Loop-invariant `x op constant` computed once before a small loop, not
//! on every iteration.
//!
//! Cranelift's optimiser hoists loop-invariant values, but then
//! "rematerialises" every add, subtract, and, or and xor with a constant
//! operand into each block that uses it: it keeps register pressure
//! neutral (`x` is live instead of `x op c`), which pays in a large
//! function. In a small inner loop it costs a `mov` and the operation on
//! each iteration for nothing: clang's matmul loop `for (j = 0; j < n;
//! j += 2)` (unrolled twice) recomputed its bound `mov %rdx, %r15; and
//! $0x7fe, %r15d` on each of its iterations (18 instructions for two
//! elements).
//!
//! This pass runs after the optimiser (see `compile_function`) and moves
//! such an operation, whose non-constant operand is defined outside the
//! loop, to the end of the loop's single entry block. Only innermost loops
//! of at most [`MAX_LOOP_INSTS`] instructions without calls qualify, where
//! one more value live across the loop finds a free register. The
//! operations cannot trap, so computing one on the entry block's other
//! path too (when that block also branches elsewhere) changes nothing
//! observable.

use std::collections::HashSet;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{Block, Function, InstBuilder, InstructionData, Opcode, ValueDef};
use cranelift_codegen::loop_analysis::{Loop, LoopAnalysis};

/// The largest loop (in CLIF instructions) whose immediates are hoisted.
const MAX_LOOP_INSTS: usize = 64;

/// Hoists the rematerialised `x op constant` of `func`'s small inner loops
/// (see the module comment). Changes no control flow.
pub fn hoist_loop_immediates(func: &mut Function, cfg: &ControlFlowGraph, loops: &LoopAnalysis) {
    let parents: HashSet<Loop> = loops.loops().filter_map(|lp| loops.loop_parent(lp)).collect();
    for lp in loops.loops().filter(|lp| !parents.contains(lp)) {
        let header = loops.loop_header(lp);
        let body: Vec<Block> = func.layout.blocks().filter(|b| loops.is_in_loop(*b, lp)).collect();
        let mut entries = cfg.pred_iter(header).map(|p| p.block).filter(|b| !loops.is_in_loop(*b, lp));
        let (Some(entry), None) = (entries.next(), entries.next()) else { continue };
        let insts: Vec<_> = body.iter().flat_map(|b| func.layout.block_insts(*b)).collect();
        if insts.len() > MAX_LOOP_INSTS || insts.iter().any(|i| func.dfg.insts[*i].opcode().is_call()) {
            continue;
        }
        for inst in insts {
            let InstructionData::Binary { opcode, args } = func.dfg.insts[inst] else { continue };
            if !matches!(opcode, Opcode::Iadd | Opcode::Isub | Opcode::Band | Opcode::Bor | Opcode::Bxor) {
                continue;
            }
            let ty = func.dfg.ctrl_typevar(inst);
            if !ty.is_int() || ty.is_vector() || ty.bits() > 64 {
                continue;
            }
            let constant = |v| match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
                ValueDef::Result(d, _) => match func.dfg.insts[d] {
                    InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => Some(imm),
                    _ => None,
                },
                _ => None,
            };
            let outside = |v| {
                let block = match func.dfg.value_def(func.dfg.resolve_aliases(v)) {
                    ValueDef::Result(d, _) => func.layout.inst_block(d),
                    ValueDef::Param(b, _) => Some(b),
                    _ => None,
                };
                block.is_some_and(|b| !loops.is_in_loop(b, lp))
            };
            let (k, imm) = match (constant(args[0]), constant(args[1])) {
                (None, Some(imm)) if outside(args[0]) => (1, imm),
                (Some(imm), None) if outside(args[1]) => (0, imm),
                _ => continue,
            };
            // The operand defined outside the loop dominates its header,
            // hence the end of its one entry block; the constant is made
            // again there, since the loop's copy stays below.
            func.layout.remove_inst(inst);
            let mut pos = FuncCursor::new(func).at_last_inst(entry);
            let c = pos.ins().iconst(ty, imm);
            pos.func.dfg.inst_args_mut(inst)[k] = c;
            pos.insert_inst(inst);
        }
    }
}
