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
//! a `w = uextend.i64 v` into `w = uload32.i64 p` (`uload8.i64`...) and
//! `v = ireduce.i32 w` (no instruction; unused, it is not lowered). The bytes
//! read, the address, the trap code and the alias region are the same, so
//! the program's behaviour is: x64's 32-bit loads clear the upper half
//! either way. It runs after Cranelift's optimiser, since that optimiser
//! forwards stored values only to loads of the stored type: run before,
//! it would cost a `store.i32`/`load.i32` pair its forwarding.

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::entity::EntitySet;
use cranelift_codegen::ir::{types, Function, InstructionData, Opcode, ValueDef};

/// Widens every load of `func` that a `uextend.i64` reads (see the module
/// comment), in one scan and without aliases (lowering does not resolve
/// them). A second extension of the same load stays, reading the
/// `ireduce` (common subexpressions are merged already, so it is rare).
/// Changes no control flow, so a dominator tree stays valid.
pub fn widen_extended_loads(func: &mut Function) {
    let mut widened = EntitySet::new();
    let blocks: Vec<_> = func.layout.blocks().collect();
    for block in blocks {
        let mut next = func.layout.first_inst(block);
        while let Some(extend) = next {
            next = func.layout.next_inst(extend);
            let InstructionData::Unary { opcode: Opcode::Uextend, arg: narrow } = func.dfg.insts[extend] else {
                continue;
            };
            if func.dfg.ctrl_typevar(extend) != types::I64 || func.dfg.value_type(narrow) != types::I32 {
                continue;
            }
            let ValueDef::Result(load, 0) = func.dfg.value_def(narrow) else { continue };
            let InstructionData::Load { opcode, arg, flags, offset } = func.dfg.insts[load] else { continue };
            if !matches!(opcode, Opcode::Load | Opcode::Uload8 | Opcode::Uload16) || !widened.insert(load) {
                continue;
            }
            // The extension's result becomes the load's, and the load's
            // old i32 result the `ireduce`'s: every use keeps its value.
            let wide = func.dfg.first_result(extend);
            func.layout.remove_inst(extend);
            func.dfg.clear_results(extend);
            let opcode = if opcode == Opcode::Load { Opcode::Uload32 } else { opcode };
            func.dfg.insts[load] = InstructionData::Load { opcode, arg, flags, offset };
            func.dfg.clear_results(load);
            func.dfg.make_inst_results_reusing(load, types::I64, std::iter::once(Some(wide)));
            let reduce = func.dfg.make_inst(InstructionData::Unary { opcode: Opcode::Ireduce, arg: wide });
            func.dfg.make_inst_results_reusing(reduce, types::I32, std::iter::once(Some(narrow)));
            FuncCursor::new(func).after_inst(load).insert_inst(reduce);
        }
    }
}
