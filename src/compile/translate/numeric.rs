//! Constants, integer and float arithmetic, comparisons and conversions:
//! the shapes their translations share (`visit.rs` maps each operator to
//! one of them with its Cranelift instruction).
//!
//! Cranelift's instructions already have WebAssembly's semantics for the
//! delicate cases (shift amounts taken modulo the width, `fmin`/`fmax` NaN
//! and signed-zero rules, trapping float-to-int conversions), so most
//! operators map to one instruction; divisions get an explicit zero check.

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types::I32,
    InstBuilder, MemFlagsData, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

impl Translator<'_, '_> {
    /// Pushes the constant `f` builds.
    pub(super) fn constant(&mut self, f: impl FnOnce(&mut FunctionBuilder<'_>) -> Value) {
        let v = f(&mut self.b);
        self.push1(v)
    }

    /// `i32.eqz`, `i64.eqz`.
    pub(super) fn eqz(&mut self) {
        let a = self.pop1();
        let c = self.b.ins().icmp_imm_u(IntCC::Equal, a, 0);
        self.push_bool(c)
    }

    /// Pushes a comparison result as the i32 wasm expects.
    fn push_bool(&mut self, c: Value) {
        let v = self.b.ins().uextend(I32, c);
        self.push1(v)
    }

    pub(super) fn icmp(&mut self, cc: IntCC) {
        let (x, y) = self.pop2();
        let c = self.b.ins().icmp(cc, x, y);
        self.push_bool(c)
    }

    pub(super) fn fcmp(&mut self, cc: FloatCC) {
        let (x, y) = self.pop2();
        let c = self.b.ins().fcmp(cc, x, y);
        self.push_bool(c)
    }

    pub(super) fn unary(&mut self, f: impl FnOnce(&mut FunctionBuilder<'_>, Value) -> Value) {
        let a = self.pop1();
        let v = f(&mut self.b, a);
        self.push1(v)
    }

    pub(super) fn binary(&mut self, f: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value) -> Value) {
        let (x, y) = self.pop2();
        let v = f(&mut self.b, x, y);
        self.push1(v)
    }

    /// A division or remainder, with an explicit zero-divisor check unless
    /// the divisor is a nonzero constant. On x86-64 the hardware would
    /// fault on its own (SIGFPE), but a compare and a never-taken branch
    /// cost next to nothing beside a division, and the trap then comes from
    /// a `ud2` like every other explicit trap: one signal path fewer, and
    /// tools that cannot deliver SIGFPE to a handler (valgrind) still see
    /// the trap.
    pub(super) fn divide(&mut self, f: impl FnOnce(&mut FunctionBuilder<'_>, Value, Value) -> Value) {
        let (x, y) = self.pop2();
        let constant = crate::compile::iconst_bits(&self.b.func.dfg, y);
        if !matches!(constant, Some(c) if c != 0) {
            self.b.ins().trapz(y, crate::environ::trap::TrapCode::IntegerDivisionByZero.to_clif());
        }
        let v = f(&mut self.b, x, y);
        self.push1(v)
    }

    pub(super) fn sign_extend_from(&mut self, narrow: Type, wide: Type) {
        self.unary(|b, a| {
            let n = b.ins().ireduce(narrow, a);
            b.ins().sextend(wide, n)
        })
    }

    pub(super) fn bitcast(&mut self, to: Type) {
        self.unary(|b, a| b.ins().bitcast(to, MemFlagsData::new(), a))
    }
}
