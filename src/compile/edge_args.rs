//! Reading and rewriting one block parameter's argument on a branch, for
//! the passes that change what loops carry (`widen_params`,
//! `loop_bounds64`).

use cranelift_codegen::ir::{Block, BlockArg, Function, Inst, InstructionData, Value};

/// The values `branch` passes as parameter `index` of `block` (one per
/// call to it), if it is a plain jump or conditional branch passing values.
/// Other branches (tables, exception edges) give `None`: the passes leave
/// such loops alone rather than rewrite edges they cannot see through.
pub(super) fn edge_args(func: &Function, branch: Inst, block: Block, index: usize) -> Option<Vec<Value>> {
    let calls = match &func.dfg.insts[branch] {
        InstructionData::Jump { destination, .. } => vec![*destination],
        InstructionData::Brif { blocks, .. } => blocks.to_vec(),
        _ => return None,
    };
    calls
        .into_iter()
        .filter(|call| call.block(&func.dfg.value_lists) == block)
        .map(|call| match call.args(&func.dfg.value_lists).nth(index) {
            Some(BlockArg::Value(v)) => Some(v),
            _ => None,
        })
        .collect()
}

/// Replaces what `branch` passes as parameter `index` of `block` by `f` of
/// it, calling `f` once per call to `block`, in the order [`edge_args`]
/// lists them.
pub(super) fn set_edge_args(
    func: &mut Function,
    branch: Inst,
    block: Block,
    index: usize,
    mut f: impl FnMut(Value) -> Value,
) {
    let dfg = &mut func.dfg;
    for call in dfg.insts[branch].branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables) {
        if call.block(&dfg.value_lists) != block {
            continue;
        }
        let mut at = 0;
        call.update_args(&mut dfg.value_lists, |arg| {
            at += 1;
            match arg {
                BlockArg::Value(v) if at - 1 == index => BlockArg::Value(f(v)),
                other => other,
            }
        });
    }
}
