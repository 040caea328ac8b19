//! Loop parameters that are used zero-extended become 64-bit parameters.
//!
//! clang keeps a wasm32 loop's addresses as i32 values stepped by a
//! constant (matmul's `c[j] += a * b[j]`, sort's downward scan), and each
//! access zero-extends the loop block's i32 parameter: Cranelift's x64
//! lowering knows that a 32-bit ALU result has a clear upper half, not
//! that a block parameter has, so each iteration pays a `movl %r15d,
//! %edi` before `(%r8, %rdi)`.
//!
//! This pass gives such a parameter `p` (of a loop header: a block with a
//! branch back to it from a block it dominates) the type i64 and has every
//! branch to the block pass `uextend.i64` of what it passed. The i32 uses
//! of `p` read `ireduce.i32` of the new parameter, and its extensions read
//! the parameter itself. Nothing about wrap-around is assumed: the new
//! parameter is the zero extension of the same i32 on every edge. The
//! extension costs nothing where the passed value is a 32-bit add,
//! subtract, multiply, and, or, xor or shift (x64's 32-bit operations
//! clear the upper half, and the lowering knows it), a constant (passed
//! as an i64 constant), or a load widened by `widen_loads` (passed as the
//! 64-bit value); only those are accepted on the back edges, which run on
//! every iteration. A loop entry may pass anything: a `movl` there runs
//! once per entry into the loop, against one per iteration saved.
//! Runs after Cranelift's optimiser, with `widen_loads` (same switch).

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::flowgraph::ControlFlowGraph;
use cranelift_codegen::ir::{types, Function, Inst, InstBuilder, InstructionData, Opcode, Value, ValueDef};

use super::edge_args::{edge_args, set_edge_args};

/// Widens the zero-extended i32 parameters of `func`'s loop headers (see
/// the module comment). Adds no block and no branch.
pub fn widen_loop_params(func: &mut Function, cfg: &ControlFlowGraph, domtree: &DominatorTree) {
    // The extensions of block parameters, found in one scan.
    let mut extended: Vec<(Inst, Value)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let InstructionData::Unary { opcode: Opcode::Uextend, arg } = func.dfg.insts[inst] else { continue };
            if func.dfg.ctrl_typevar(inst) == types::I64
                && func.dfg.value_type(arg) == types::I32
                && matches!(func.dfg.value_def(arg), ValueDef::Param(..))
            {
                extended.push((inst, arg));
            }
        }
    }
    if extended.is_empty() {
        return;
    }
    // One extension per parameter is widened: it becomes the parameter.
    // Common subexpressions are merged already, so a second one is rare;
    // it stays, reading the `ireduce` (no longer a parameter, so `widen`
    // leaves it).
    for (extend, p) in extended {
        widen(func, cfg, domtree, p, extend);
    }
}

/// Makes parameter `p` an i64, the result of `extend` (a `uextend.i64
/// p`), if its block is a loop header whose back edges pass it values
/// extended for free; then `p` is that parameter's `ireduce`. Values
/// change places rather than become aliases, which lowering would not
/// resolve and resolving would cost a scan of the function.
fn widen(func: &mut Function, cfg: &ControlFlowGraph, domtree: &DominatorTree, p: Value, extend: Inst) {
    let ValueDef::Param(block, index) = func.dfg.value_def(p) else { return };
    if func.layout.entry_block() == Some(block) {
        return;
    }
    let mut edges = Vec::new();
    let mut back_edge = false;
    for pred in cfg.pred_iter(block) {
        let back = domtree.dominates(block, pred.block, &func.layout);
        back_edge |= back;
        let Some(args) = edge_args(func, pred.inst, block, index) else { return };
        if back && !args.iter().all(|a| *a == p || free_extension(func, *a).is_some()) {
            return;
        }
        edges.push((pred.inst, args));
    }
    if !back_edge {
        return;
    }
    // The extension's result takes `p`'s place among the parameters.
    let wide = func.dfg.first_result(extend);
    func.layout.remove_inst(extend);
    func.dfg.clear_results(extend);
    let params = func.dfg.block_params(block).to_vec();
    for &v in params[index..].iter().rev() {
        func.dfg.swap_remove_block_param(v);
    }
    func.dfg.attach_block_param(block, wide);
    for &v in &params[index + 1..] {
        func.dfg.attach_block_param(block, v);
    }
    let reduce = func.dfg.make_inst(InstructionData::Unary { opcode: Opcode::Ireduce, arg: wide });
    func.dfg.make_inst_results_reusing(reduce, types::I32, std::iter::once(Some(p)));
    FuncCursor::new(func).at_first_insertion_point(block).insert_inst(reduce);
    for (branch, args) in edges {
        let mut pos = FuncCursor::new(func).at_inst(branch);
        let wide_args: Vec<Value> = args
            .into_iter()
            .map(|a| match (a == p, free_extension(pos.func, a)) {
                (true, _) => wide,
                (false, Some(Extension::Constant(k))) => pos.ins().iconst(types::I64, k),
                (false, Some(Extension::Wide(w))) => w,
                (false, _) => pos.ins().uextend(types::I64, a),
            })
            .collect();
        let mut next = wide_args.into_iter();
        set_edge_args(pos.func, branch, block, index, |_| next.next().expect("one per call to the block"));
    }
}

/// How an i32 value is had zero-extended at no cost.
enum Extension {
    /// It is a 32-bit ALU result: `uextend` lowers to nothing.
    Alu,
    /// It is this constant: pass an i64 constant.
    Constant(i64),
    /// It is the `ireduce` of this zero-extending 64-bit load.
    Wide(Value),
}

/// How `v` (an i32) is had zero-extended at no cost, if it is.
fn free_extension(func: &Function, v: Value) -> Option<Extension> {
    let ValueDef::Result(def, 0) = func.dfg.value_def(v) else { return None };
    match func.dfg.insts[def] {
        InstructionData::Binary {
            opcode:
                Opcode::Iadd
                | Opcode::Isub
                | Opcode::Imul
                | Opcode::Band
                | Opcode::Bor
                | Opcode::Bxor
                | Opcode::Ishl
                | Opcode::Ushr,
            ..
        } => Some(Extension::Alu),
        InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => {
            Some(Extension::Constant(imm.bits() & 0xffff_ffff))
        }
        InstructionData::Unary { opcode: Opcode::Ireduce, arg } => match func.dfg.value_def(arg) {
            ValueDef::Result(load, 0)
                if matches!(func.dfg.insts[load].opcode(), Opcode::Uload32 | Opcode::Uload8 | Opcode::Uload16) =>
            {
                Some(Extension::Wide(arg))
            }
            _ => None,
        },
        _ => None,
    }
}
