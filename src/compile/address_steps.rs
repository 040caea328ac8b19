//! An address a small step past one that was just accessed is formed in
//! 64 bits, where the step folds into the access.
//!
//! clang steps wasm32 pointers by constants: matmul's unrolled
//! `c[j] += a * b[j]` accesses `p` and then `p + 8`, and steps `p` by 16.
//! Each step is an i32 add, zero-extended for the access, because a wasm32
//! address wraps at 4 GiB: `(%r8, %rax)`, then `leal 8(%rax), %r15d` and
//! `(%r8, %r15)`, where native code has `8(%rsi, %rax)`.
//!
//! An access that did not trap proves its index small: `x + offset +
//! size` is at most the memory's length (every index the translator forms
//! is below 2^33, inside the guard region, so one past the length
//! faults; with explicit checks, the check traps). A memory declared smaller than
//! 4 GiB stops growing 64 KiB short of it (`environ::types::GROWN_MAX_PAGES`),
//! so when every memory of the module is such a memory (or an import whose
//! maximum is below 4 GiB: `ModuleInfo::memories_below_4gib`), `x < 2^32 -
//! 65536` after an access at `x`, and `x + c` cannot wrap for a step `c`
//! below 64 KiB: `zext(x + c) == zext(x) + c`.
//!
//! So this pass rewrites `uextend.i64 (iadd.i32 x, c)` into `iadd.i64 X,
//! c`, where `X` is the 64-bit index (`zext(x)`) of an access that
//! dominates the extension: a loop's 64-bit address parameter (see
//! `widen_params`) is then stepped by one 64-bit add. An access at `base +
//! (X + c)` then becomes one at the earlier access's `base + X` with `c`
//! added to its offset, which the addressing mode takes (also when the
//! load is sunk into an arithmetic instruction). The bytes accessed, and
//! whether the access traps, are the same. Runs after Cranelift's
//! optimiser, after `widen_params` (`Config::address_steps`).

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::dominator_tree::DominatorTree;
use cranelift_codegen::ir::{types, Function, Inst, InstBuilder, InstructionData, Opcode, Value, ValueDef};

use super::func_env::{is_heap_access, is_readonly_runtime_load};

/// The largest step folded: below the 64 KiB that the module's memories
/// keep between their largest size and 4 GiB.
const MAX_STEP: i64 = 0xffff;

/// Forms in 64 bits the small steps past accessed addresses of `func`
/// (see the module comment). Changes no control flow.
pub fn fold_address_steps(func: &mut Function, domtree: &DominatorTree) {
    // The heap accesses, mapped by their 64-bit index below once there
    // is a step to fold (most functions have none: no hashing for them).
    let mut accesses: Vec<Access> = Vec::new();
    // Per i32 value `x`, the i64 values that are `zext(x)` if accessed:
    // its extensions, and the values it is the `ireduce` of (which
    // `widen_params` and `widen_loads` make of zero extensions). An i64
    // heap index that was accessed is below 4 GiB, so either way it is
    // the zero extension of its low half.
    let mut extended: HashMap<Value, Vec<Value>> = HashMap::new();
    // The candidates: `uextend.i64 y` with `y = iadd.i32 x, c`.
    let mut steps: Vec<(Inst, Value, i64)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            if let Some(access) = heap_access(func, inst) {
                accesses.push(access);
                continue;
            }
            match func.dfg.insts[inst] {
                InstructionData::Unary { opcode: Opcode::Uextend, arg } if is_i32_to_i64(func, inst, arg) => {
                    extended.entry(arg).or_default().push(func.dfg.first_result(inst));
                    if let Some((x, c)) = small_step(func, arg) {
                        steps.push((inst, x, c));
                    }
                }
                InstructionData::Unary { opcode: Opcode::Ireduce, arg } if func.dfg.value_type(arg) == types::I64 => {
                    extended.entry(func.dfg.first_result(inst)).or_default().push(arg);
                }
                _ => {}
            }
        }
    }
    if steps.is_empty() {
        return;
    }
    let mut accessed: HashMap<Value, Vec<Access>> = HashMap::new();
    for access in accesses {
        accessed.entry(access.index).or_default().push(access);
    }
    // Each stepped index `X + c`, with the address `base + X` it steps.
    let mut stepped: HashMap<Value, (Value, Value, i64)> = HashMap::new();
    for (extend, x, c) in steps {
        let Some(prior) =
            extended.get(&x).into_iter().flatten().find_map(|w| {
                accessed.get(w)?.iter().find(|a| domtree.dominates(a.inst, extend, &func.layout)).copied()
            })
        else {
            continue;
        };
        let mut pos = FuncCursor::new(func).at_inst(extend);
        let step = pos.ins().iconst(types::I64, c);
        pos.func.replace(extend).iadd(prior.index, step);
        stepped.insert(func.dfg.first_result(extend), (prior.base, prior.addr, c));
    }
    // An access at `base + (X + c)` becomes one at `base + X` with `c` more
    // in its offset: an addressing mode takes that whether the load is on
    // its own or sunk into an arithmetic instruction, and the address is
    // the prior access's (which dominates this one, through the step).
    if stepped.is_empty() {
        return;
    }
    for access in accessed.into_values().flatten() {
        let Some(&(base, addr, c)) = stepped.get(&access.index) else { continue };
        if base != access.base {
            continue;
        }
        match &mut func.dfg.insts[access.inst] {
            InstructionData::Load { arg, offset, .. } | InstructionData::Store { args: [_, arg], offset, .. } => {
                let Ok(sum) = i32::try_from(i64::from(*offset) + c) else { continue };
                *arg = addr;
                *offset = sum.into();
            }
            _ => unreachable!("heap_access matched a load or a store"),
        }
    }
}

/// A heap access at `base + index`, the sum being `addr`.
#[derive(Copy, Clone)]
struct Access {
    inst: Inst,
    base: Value,
    index: Value,
    addr: Value,
}

/// `inst` as an [`Access`], if it is a heap access at `base + index` (a
/// memory's base, loaded from the VMContext, and an i64 index).
fn heap_access(func: &Function, inst: Inst) -> Option<Access> {
    let addr = match func.dfg.insts[inst] {
        InstructionData::Load { flags, arg, .. } if is_heap_access(&func.dfg.mem_flags[flags]) => arg,
        InstructionData::Store { flags, args: [_, arg], .. } if is_heap_access(&func.dfg.mem_flags[flags]) => arg,
        _ => return None,
    };
    let ValueDef::Result(add, 0) = func.dfg.value_def(addr) else { return None };
    let InstructionData::Binary { opcode: Opcode::Iadd, args: [a, b] } = func.dfg.insts[add] else { return None };
    let is_base = |v: Value| match func.dfg.value_def(v) {
        ValueDef::Result(load, 0) => match func.dfg.insts[load] {
            InstructionData::Load { opcode: Opcode::Load, flags, .. } => {
                is_readonly_runtime_load(&func.dfg.mem_flags[flags])
            }
            _ => false,
        },
        _ => false,
    };
    let (base, index) = match (is_base(a), is_base(b)) {
        (true, false) => (a, b),
        (false, true) => (b, a),
        _ => return None,
    };
    Some(Access { inst, base, index, addr })
}

fn is_i32_to_i64(func: &Function, inst: Inst, arg: Value) -> bool {
    func.dfg.ctrl_typevar(inst) == types::I64 && func.dfg.value_type(arg) == types::I32
}

/// `(x, c)` if `y` is `iadd.i32 x, c` with a constant `c` in `0..=MAX_STEP`.
fn small_step(func: &Function, y: Value) -> Option<(Value, i64)> {
    let ValueDef::Result(add, 0) = func.dfg.value_def(y) else { return None };
    let InstructionData::Binary { opcode: Opcode::Iadd, args } = func.dfg.insts[add] else { return None };
    let constant = |v: Value| {
        super::iconst_bits(&func.dfg, v).map(|bits| bits as u32 as i64).filter(|c| (0..=MAX_STEP).contains(c))
    };
    match (constant(args[0]), constant(args[1])) {
        (_, Some(c)) => Some((args[0], c)),
        (Some(c), None) => Some((args[1], c)),
        _ => None,
    }
}
