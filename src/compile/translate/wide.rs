//! Wide arithmetic (`i64.add128`, `i64.sub128`, `i64.mul_wide_s/u`): 128-bit
//! integers as pairs of i64 operands, low half first.
//!
//! The sum and difference are formed in Cranelift's i128, which x86-64 and
//! aarch64 lower to an add (sub) and an add-with-carry (sub-with-borrow).
//! The products take the low half from `imul` and the high half from
//! `umulhi`/`smulhi`, which keeps to 64-bit registers.

use cranelift_codegen::ir::{types::I128, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

impl Translator<'_, '_> {
    /// `i64.add128` (`sub` false) or `i64.sub128`: `[lo1 hi1 lo2 hi2] ->
    /// [lo hi]`, modulo 2^128.
    pub(super) fn add_sub128(&mut self, sub: bool) {
        let operands = self.popn(4);
        let b = &mut self.b;
        let x = b.ins().iconcat(operands[0], operands[1]);
        let y = b.ins().iconcat(operands[2], operands[3]);
        let r = if sub { b.ins().isub(x, y) } else { b.ins().iadd(x, y) };
        self.push_halves(r);
    }

    /// `i64.mul_wide_s` (`signed`) or `i64.mul_wide_u`: `[x y] -> [lo hi]`,
    /// the full 128-bit product.
    pub(super) fn mul_wide(&mut self, signed: bool) {
        let (x, y) = self.pop2();
        let b: &mut FunctionBuilder = &mut self.b;
        let lo = b.ins().imul(x, y);
        let hi = if signed { b.ins().smulhi(x, y) } else { b.ins().umulhi(x, y) };
        self.push1(lo);
        self.push1(hi);
    }

    /// Pushes an i128 as its low and high i64 halves.
    fn push_halves(&mut self, v: Value) {
        debug_assert_eq!(self.b.func.dfg.value_type(v), I128);
        let (lo, hi) = self.b.ins().isplit(v);
        self.push1(lo);
        self.push1(hi);
    }
}
