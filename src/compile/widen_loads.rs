//! Loads whose value is also needed zero-extended to 64 bits load it so.
//!
//! A wasm32 program often loads an i32 (a pointer, a table index, a byte
//! of bytecode) and uses it twice: as an i32 (compared, stored, added)
//! and, zero-extended, as a heap or table index. Cranelift's x64 lowering
//! knows that a 32-bit ALU result has its upper half clear, but not that
//! a 32-, 16- or 8-bit load's has: unless the load's one use is the
//! extension (then the load itself extends), the extension is a `movl
//! %eax, %eax` of its own. The dispatch kernel pays two per handler call
//! (the byte of bytecode, then the table index loaded with it).
//!
//! This pass turns `v = load.i32 p` (or `uload8.i32`, `uload16.i32`) with
//! a `uextend.i64 v` into `w = uload32.i64 p` (`uload8.i64`...), makes the
//! extension an alias of `w` and `v` a (free) `ireduce.i32 w`. The bytes
//! read, the address, the trap code and the alias region are the same, so
//! the program's behaviour is: x64's 32-bit loads clear the upper half
//! either way. It runs after Cranelift's optimiser, since that optimiser
//! forwards stored values only to loads of the stored type: run before,
//! it would cost a `store.i32`/`load.i32` pair its forwarding.

use std::collections::HashMap;

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{types, Function, InstBuilder, InstructionData, Opcode, Value, ValueDef};

/// Widens every load of `func` that a `uextend.i64` reads (see the module
/// comment). Changes no control flow, so a dominator tree stays valid.
pub fn widen_extended_loads(func: &mut Function) {
    // The extensions first, then the loads they read: a load read by two
    // extensions is widened once.
    let mut extends = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let InstructionData::Unary { opcode: Opcode::Uextend, arg } = func.dfg.insts[inst] else { continue };
            if func.dfg.ctrl_typevar(inst) != types::I64 {
                continue;
            }
            let arg = func.dfg.resolve_aliases(arg);
            let ValueDef::Result(load, 0) = func.dfg.value_def(arg) else { continue };
            let InstructionData::Load { opcode, .. } = func.dfg.insts[load] else { continue };
            if func.dfg.value_type(arg) == types::I32
                && matches!(opcode, Opcode::Load | Opcode::Uload8 | Opcode::Uload16)
            {
                extends.push((inst, arg));
            }
        }
    }
    if extends.is_empty() {
        return;
    }
    // Uses other than the extensions: a load without them needs no
    // `ireduce` (an unused one would stay in the IR, not in the code).
    let mut other_uses: HashMap<Value, usize> = extends.iter().map(|(_, narrow)| (*narrow, 0)).collect();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for arg in func.dfg.inst_values(inst) {
                if let Some(n) = other_uses.get_mut(&func.dfg.resolve_aliases(arg)) {
                    *n += 1;
                }
            }
        }
    }
    for (_, narrow) in &extends {
        *other_uses.get_mut(narrow).expect("counted") -= 1;
    }
    let mut wide: HashMap<Value, Value> = HashMap::new();
    for (extend, narrow) in extends {
        let w = *wide.entry(narrow).or_insert_with(|| widen(func, narrow, other_uses[&narrow] > 0));
        let result = func.dfg.first_result(extend);
        func.layout.remove_inst(extend);
        func.dfg.clear_results(extend);
        func.dfg.change_to_alias(result, w);
    }
    func.dfg.resolve_all_aliases();
}

/// Makes the load defining `narrow` (an i32) produce a zero-extended i64,
/// and `narrow`, if `used`, an alias of its `ireduce`; returns the i64.
fn widen(func: &mut Function, narrow: Value, used: bool) -> Value {
    let ValueDef::Result(load, _) = func.dfg.value_def(narrow) else { unreachable!("a load's result") };
    let InstructionData::Load { opcode, arg, flags, offset } = func.dfg.insts[load] else { unreachable!("a load") };
    let opcode = if opcode == Opcode::Load { Opcode::Uload32 } else { opcode };
    func.dfg.insts[load] = InstructionData::Load { opcode, arg, flags, offset };
    let w = func.dfg.replace_result(narrow, types::I64);
    if used {
        let reduced = FuncCursor::new(func).after_inst(load).ins().ireduce(types::I32, w);
        func.dfg.change_to_alias(narrow, reduced);
    }
    w
}
