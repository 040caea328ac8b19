//! A multiplication by a small constant becomes one or two single-cycle
//! instructions, as native compilers emit it.
//!
//! clang leaves `h * 5`, or the offset of `node[i]` in an array of 24-byte
//! structs, as an `i32.mul`/`i64.mul` by a constant in wasm, and Cranelift
//! lowers every such multiplication to `imul`, whose result comes three
//! cycles later on x64. Natively, clang emits `lea (%rax,%rax,4)` for `h *
//! 5` (one cycle) and `lea` plus `shl` for `i * 24` (two). Where the
//! product is on a chain of dependent instructions, the chain pays the
//! difference: the hash kernel's murmur loop, `h = rotl(h, 27) * 5 + c`, or
//! Lua's hash-part lookup `node + (hash & mask) * 24`.
//!
//! The forms, with `m` one of 3, 5 and 9 (`x + (x << k)`, which x64's
//! `lea` computes with `x` as base and index), and the wrapping arithmetic
//! of the multiplication:
//!
//! | constant | becomes | x64 |
//! |---|---|---|
//! | `m` | `x + (x << k)` | `lea` |
//! | `m << s` | `(x + (x << k)) << s` | `lea`, `shl` |
//! | `m1 * m2` | `y = x + (x << k1)`, `y + (y << k2)` | `lea`, `lea` |
//! | `2^k + 1`, `k > 3` | `x + (x << k)` | `shl`, `add` |
//! | `2^k - 1` | `(x << k) - x` | `shl`, `sub` |
//!
//! Any other constant stays an `imul`: one instruction, where a third
//! would cost more issue slots than the cycle it saves. Cranelift's
//! optimiser has turned powers of two into shifts already. The pass runs
//! after that optimiser, so that the optimiser still sees (and folds) the
//! multiplication, and the shifts reach the code generator, which folds
//! `x + (x << k)` into `lea` and a shifted product into an addressing
//! mode (`Config::mul_consts`).

use cranelift_codegen::cursor::{Cursor, FuncCursor};
use cranelift_codegen::ir::{types, Function, Inst, InstBuilder, InstructionData, Opcode, Type, Value};

use super::iconst_bits;

/// One step of a multiplication: `x + (x << k)`, `(x << k) - x` or `x << k`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Step {
    AddShifted(u32),
    SubFromShifted(u32),
    Shift(u32),
}

/// Rewrites every scalar `imul` by a constant of `func` that has a
/// cheaper form (see the module comment). Changes no control flow.
pub fn reduce_multiplications(func: &mut Function) {
    let mut found: Vec<(Inst, Value, Steps)> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            let InstructionData::Binary { opcode: Opcode::Imul, args: [a, b] } = func.dfg.insts[inst] else {
                continue;
            };
            let ty = func.dfg.ctrl_typevar(inst);
            if ty != types::I32 && ty != types::I64 {
                continue;
            }
            let (x, c) = match (iconst_bits(&func.dfg, a), iconst_bits(&func.dfg, b)) {
                (_, Some(c)) => (a, c),
                (Some(c), None) => (b, c),
                (None, None) => continue,
            };
            if let Some(steps) = decompose(c as u64 & width_mask(ty.bits()), ty.bits()) {
                found.push((inst, x, steps));
            }
        }
    }
    for (inst, x, (first, second)) in found {
        // The new instructions keep the multiplication's source location
        // (and with it an inlined function's chain, see `inline`).
        let loc = func.srcloc(inst);
        let mut pos = FuncCursor::new(func).at_inst(inst).with_srcloc(loc);
        let ty = pos.func.dfg.ctrl_typevar(inst);
        let operand = match second {
            Some(_) => {
                let (amount, shifted) = prepare(&mut pos, ty, first, x);
                finish(pos.ins(), first, x, amount, shifted)
            }
            None => x,
        };
        // The last step replaces the `imul` in place, so the product stays
        // the value that its uses read.
        let last = second.unwrap_or(first);
        let (amount, shifted) = prepare(&mut pos, ty, last, operand);
        finish(pos.func.replace(inst), last, operand, amount, shifted);
    }
}

/// Inserts before the cursor what `step` of `x` needs besides its last
/// instruction: the shift amount `k`, and `x << k` for the steps that
/// combine it with `x` (`x` itself for a plain shift).
fn prepare(pos: &mut FuncCursor, ty: Type, step: Step, x: Value) -> (Value, Value) {
    let (Step::AddShifted(k) | Step::SubFromShifted(k) | Step::Shift(k)) = step;
    let amount = pos.ins().iconst(ty, i64::from(k));
    match step {
        Step::Shift(_) => (amount, x),
        _ => (amount, pos.ins().ishl(x, amount)),
    }
}

/// The last instruction of `step` of `x`, built by `ins`: inserted, or
/// replacing the `imul` in place.
fn finish<'f>(ins: impl InstBuilder<'f>, step: Step, x: Value, amount: Value, shifted: Value) -> Value {
    match step {
        Step::AddShifted(_) => ins.iadd(x, shifted),
        Step::SubFromShifted(_) => ins.isub(shifted, x),
        Step::Shift(_) => ins.ishl(x, amount),
    }
}

/// One or two steps, applied in order.
type Steps = (Step, Option<Step>);

fn width_mask(bits: u32) -> u64 {
    u64::MAX >> (64 - bits)
}

/// The steps that multiply by `c` (a `bits`-bit constant), or `None` when
/// `imul` is as good.
fn decompose(c: u64, bits: u32) -> Option<Steps> {
    // The `k` of `m`, whose product `x + (x << k)` is one `lea`.
    let lea = |m: u64| match m {
        3 => Some(1),
        5 => Some(2),
        9 => Some(3),
        _ => None,
    };
    if c < 3 || c.is_power_of_two() {
        return None;
    }
    if let Some(k) = lea(c) {
        return Some((Step::AddShifted(k), None));
    }
    let s = c.trailing_zeros();
    if let Some(k) = lea(c >> s) {
        return Some((Step::AddShifted(k), Some(Step::Shift(s))));
    }
    for m in [3, 5, 9] {
        if let (0, Some(k1), Some(k2)) = (c % m, lea(m), lea(c / m)) {
            return Some((Step::AddShifted(k1), Some(Step::AddShifted(k2))));
        }
    }
    // A shift by the width or more would be taken modulo the width, so
    // `k` stays below it.
    let k = (c - 1).trailing_zeros();
    if (c - 1).is_power_of_two() && k < bits {
        return Some((Step::AddShifted(k), None));
    }
    let k = c.wrapping_add(1).trailing_zeros();
    if c.wrapping_add(1).is_power_of_two() && k < bits {
        return Some((Step::SubFromShifted(k), None));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Evaluates the steps on `x` with wrapping `bits`-bit arithmetic.
    fn eval((first, second): Steps, x: u64, bits: u32) -> u64 {
        let m = width_mask(bits);
        [Some(first), second].into_iter().flatten().fold(x, |v, step| match step {
            Step::AddShifted(k) => v.wrapping_add(v << k) & m,
            Step::SubFromShifted(k) => (v << k).wrapping_sub(v) & m,
            Step::Shift(k) => (v << k) & m,
        })
    }

    #[test]
    fn forms_multiply_by_their_constant() {
        let xs = [0, 1, 2, 7, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 0x1234_5678_9abc_def0, u64::MAX];
        let mut reduced = 0;
        for bits in [32, 64] {
            let m = width_mask(bits);
            let constants = (0..=1100u64).chain([0x8000_0001, 0xffff_ffff, 0x8000_0000_0000_0001, u64::MAX]);
            for c in constants.map(|c| c & m) {
                let Some(steps) = decompose(c, bits) else { continue };
                reduced += 1;
                for x in xs.map(|x| x & m) {
                    assert_eq!(eval(steps, x, bits), x.wrapping_mul(c) & m, "{x} * {c} in {bits} bits: {steps:?}");
                }
            }
        }
        assert!(reduced > 50, "only {reduced} constants reduced");
    }

    #[test]
    fn chooses_the_native_forms() {
        use Step::*;
        assert_eq!(decompose(5, 32), Some((AddShifted(2), None)));
        assert_eq!(decompose(24, 32), Some((AddShifted(1), Some(Shift(3)))));
        assert_eq!(decompose(45, 64), Some((AddShifted(2), Some(AddShifted(3)))));
        assert_eq!(decompose(17, 64), Some((AddShifted(4), None)));
        assert_eq!(decompose(31, 32), Some((SubFromShifted(5), None)));
        // Powers of two are the optimiser's shifts; 7 * 8 would take three.
        for c in [0, 1, 2, 8, 56, 1664525, 0xffff_ffff] {
            assert_eq!(decompose(c, 32), None, "{c}");
        }
        assert_eq!(decompose(u64::MAX, 64), None);
    }
}
