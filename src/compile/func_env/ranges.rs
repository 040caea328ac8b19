//! Upper bounds of i32 and i64 values, read off their definitions, and
//! what they allow: an index that provably fits below a table's size needs
//! no bounds check, a memory64 address that provably stays within the
//! guard region needs none either (`bounds64.rs`), and a heap index that
//! provably does not wrap can be widened to 64 bits before its shift and
//! constant add rather than after.
//!
//! A wasm32 heap address is `base + zext(index) + offset`. When the index
//! is `(x << k) + c` computed in i32, the zero-extension must come after
//! the i32 arithmetic (which wraps), so x64 gets `shl; add; movl; add
//! base` and only then an addressing mode. If `x`'s range shows that
//! neither the shift nor the add can pass 2^32, the i32 and the i64
//! results are equal, so `base + (zext(x) << k) + (c + offset)` is the same
//! address: one `c+offset(base, x, 1<<k)` operand. The bounds come from a
//! mask with a constant, an 8- or 16-bit zero-extending load, a logical
//! right shift, a remainder by a constant, a zero-extended comparison, a
//! constant, and the xor, or, sum or shift of bounded values.

use cranelift_codegen::ir::{
    types::{I32, I64},
    DataFlowGraph, InstBuilder, InstructionData, Opcode, Value, ValueDef,
};
use cranelift_frontend::FunctionBuilder;

/// How far definitions are followed: the patterns above are shallow.
const MAX_DEPTH: u32 = 6;

/// The largest value `v` (an i32) can hold, as an unsigned number.
pub(super) fn max_u32(dfg: &DataFlowGraph, v: Value) -> u64 {
    if dfg.value_type(v) != I32 {
        return u32::MAX.into();
    }
    max_at(dfg, v, 0)
}

/// The largest value `v` (an i64, such as a memory64 address) can hold, as
/// an unsigned number: the same patterns in 64 bits, and the
/// zero-extension of a bounded i32 (a wasm64 program's `table[i & 0xff]`
/// is `TABLE + (zext(i & 0xff) << 2)`).
pub(crate) fn max_u64(dfg: &DataFlowGraph, v: Value) -> u64 {
    if dfg.value_type(v) != I64 {
        return u64::MAX;
    }
    max_at(dfg, v, 0)
}

/// `v`'s value if it is a constant, as an unsigned number of its width.
fn constant(dfg: &DataFlowGraph, v: Value) -> Option<u64> {
    let bits = crate::compile::iconst_bits(dfg, v)?;
    match dfg.value_type(v) {
        I32 => Some(bits as u64 & u64::from(u32::MAX)),
        I64 => Some(bits as u64),
        _ => None,
    }
}

/// The bound of `v`, an i32 or i64 (anything else is unbounded: only the
/// callers' types get here).
fn max_at(dfg: &DataFlowGraph, v: Value, depth: u32) -> u64 {
    let width = dfg.value_type(v).bits();
    let any = if width == 32 { u64::from(u32::MAX) } else { u64::MAX };
    if depth > MAX_DEPTH {
        return any;
    }
    if let Some(c) = constant(dfg, v) {
        return c;
    }
    let ValueDef::Result(inst, _) = dfg.value_def(v) else { return any };
    let max = |x| max_at(dfg, x, depth + 1);
    // A shift count is taken modulo the width.
    let count = |k| constant(dfg, k).map(|k| k & u64::from(width - 1));
    match dfg.insts[inst] {
        InstructionData::Binary { opcode: Opcode::Band, args: [x, y] } => max(x).min(max(y)),
        // No bit above the higher operand's top bit: a CRC's `(c & 0xff) ^ byte`.
        InstructionData::Binary { opcode: Opcode::Bxor | Opcode::Bor, args: [x, y] } => {
            let top = max(x).max(max(y));
            if top == 0 {
                0
            } else {
                (u64::MAX >> top.leading_zeros()).min(any)
            }
        }
        InstructionData::Binary { opcode: Opcode::Ushr, args: [x, k] } => match count(k) {
            Some(k) => max(x) >> k,
            None => any,
        },
        InstructionData::Binary { opcode: Opcode::Urem, args: [x, d] } => match constant(dfg, d) {
            Some(d) if d > 0 => max(x).min(d - 1),
            _ => any,
        },
        // A shift or sum that could pass the width wraps: then anything.
        InstructionData::Binary { opcode: Opcode::Ishl, args: [x, k] } => match count(k) {
            Some(k) => max(x).checked_shl(k as u32).filter(|m| *m >> k == max(x) && *m <= any).unwrap_or(any),
            None => any,
        },
        InstructionData::Binary { opcode: Opcode::Iadd, args: [x, y] } => {
            max(x).checked_add(max(y)).filter(|m| *m <= any).unwrap_or(any)
        }
        InstructionData::Load { opcode: Opcode::Uload8, .. } => 0xff,
        InstructionData::Load { opcode: Opcode::Uload16, .. } => 0xffff,
        InstructionData::Load { opcode: Opcode::Uload32, .. } => u32::MAX.into(),
        InstructionData::Unary { opcode: Opcode::Uextend, arg } => match dfg.value_type(arg).bits() {
            bits @ 1..=16 => (1 << bits) - 1,
            32 => max(arg),
            _ => any,
        },
        _ => any,
    }
}

/// `index` (an i32) as an i64 byte offset plus a constant: the same value
/// as `zext(index)` (see the module comment), with the constant split off
/// for the access's immediate offset and a shift by 1-3 left for the
/// addressing mode, where `index`'s bounds show that nothing wraps.
pub(super) fn widen_index(b: &mut FunctionBuilder, index: Value) -> (Value, u64) {
    widen_at(b, index, 0)
}

fn widen_at(b: &mut FunctionBuilder, index: Value, depth: u32) -> (Value, u64) {
    let plain = |b: &mut FunctionBuilder| (b.ins().uextend(I64, index), 0);
    if depth > MAX_DEPTH {
        return plain(b);
    }
    let dfg = &b.func.dfg;
    let ValueDef::Result(inst, _) = dfg.value_def(index) else { return plain(b) };
    match dfg.insts[inst] {
        InstructionData::Binary { opcode: Opcode::Iadd, args: [x, y] } => {
            // `x + c` does not wrap when max(x) + c < 2^32.
            let (x, c) = match (constant(dfg, y), constant(dfg, x)) {
                (Some(c), _) => (x, c),
                (None, Some(c)) => (y, c),
                (None, None) => return plain(b),
            };
            if max_u32(dfg, x) + c > u64::from(u32::MAX) {
                return plain(b);
            }
            let (wide, more) = widen_at(b, x, depth + 1);
            (wide, more + c)
        }
        InstructionData::Binary { opcode: Opcode::Ishl, args: [x, k] } => {
            let Some(k) = constant(dfg, k).map(|k| k & 31) else { return plain(b) };
            // Only what an addressing mode scales by, and no bit shifted out.
            if k == 0 || k > 3 || max_u32(dfg, x) << k > u64::from(u32::MAX) {
                return plain(b);
            }
            let wide = b.ins().uextend(I64, x);
            (b.ins().ishl_imm_u(wide, k as i64), 0)
        }
        _ => plain(b),
    }
}
