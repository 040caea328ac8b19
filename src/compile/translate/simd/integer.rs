//! Bitwise operators, integer lane arithmetic, shifts and comparisons.
//!
//! Cranelift's vector instructions have wasm's semantics here: shift counts
//! are taken modulo the lane width, saturating and rounding-average ops
//! work per lane, and `icmp` yields all-ones or all-zeros lanes.

use cranelift_codegen::ir::{condcodes::IntCC, types::I32, InstBuilder, Type, Value};
use cranelift_frontend::FunctionBuilder;

use super::Translator;

/// A shift of every lane by a scalar count.
type Shift = fn(&mut FunctionBuilder<'_>, Value, Value) -> Value;

impl Translator<'_, '_> {
    /// A whole-vector test (`any_true`, `all_true`) as the i32 wasm expects.
    pub(super) fn v_test(&mut self, ty: Type, f: impl FnOnce(&mut FunctionBuilder<'_>, Value) -> Value) {
        let v = self.pop_v(ty);
        let t = f(&mut self.b, v);
        let r = self.b.ins().uextend(I32, t);
        self.push1(r)
    }

    /// The top bit of every lane, lane 0 in bit 0.
    pub(super) fn bitmask(&mut self, ty: Type) {
        let v = self.pop_v(ty);
        let r = self.b.ins().vhigh_bits(I32, v);
        self.push1(r)
    }

    /// Cranelift's vector shifts take the count modulo the lane width, as
    /// wasm specifies.
    pub(super) fn shift(&mut self, ty: Type, f: Shift) {
        let n = self.pop1();
        let v = self.pop_v(ty);
        let r = f(&mut self.b, v, n);
        self.push_v(r)
    }

    pub(super) fn v_icmp(&mut self, ty: Type, cc: IntCC) {
        self.v_binary(ty, |b, x, y| b.ins().icmp(cc, x, y))
    }
}
