//! Constants, integer and float arithmetic, comparisons and conversions.
//!
//! Cranelift's instructions already have WebAssembly's semantics for the
//! delicate cases (shift amounts taken modulo the width, `fmin`/`fmax` NaN
//! and signed-zero rules, trapping float-to-int conversions), so most
//! operators map to one instruction; divisions get an explicit zero check.

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types::{self, I32, I64},
    InstBuilder, InstructionData, MemFlagsData, Opcode, Type, Value,
};
use wasmparser::Operator;

use super::Translator;

impl Translator<'_, '_> {
    /// Translates `op` if it is a scalar numeric operator.
    pub(super) fn translate_numeric(&mut self, op: &Operator<'_>) -> bool {
        use Operator as O;
        match *op {
            O::I32Const { value } => {
                let v = self.b.ins().iconst(I32, value as i64);
                self.push1(v)
            }
            O::I64Const { value } => {
                let v = self.b.ins().iconst(I64, value);
                self.push1(v)
            }
            O::F32Const { value } => {
                let v = self.b.ins().f32const(f32::from_bits(value.bits()));
                self.push1(v)
            }
            O::F64Const { value } => {
                let v = self.b.ins().f64const(f64::from_bits(value.bits()));
                self.push1(v)
            }

            O::I32Eqz | O::I64Eqz => {
                let a = self.pop1();
                let c = self.b.ins().icmp_imm_u(IntCC::Equal, a, 0);
                self.push_bool(c)
            }
            O::I32Eq | O::I64Eq => self.icmp(IntCC::Equal),
            O::I32Ne | O::I64Ne => self.icmp(IntCC::NotEqual),
            O::I32LtS | O::I64LtS => self.icmp(IntCC::SignedLessThan),
            O::I32LtU | O::I64LtU => self.icmp(IntCC::UnsignedLessThan),
            O::I32GtS | O::I64GtS => self.icmp(IntCC::SignedGreaterThan),
            O::I32GtU | O::I64GtU => self.icmp(IntCC::UnsignedGreaterThan),
            O::I32LeS | O::I64LeS => self.icmp(IntCC::SignedLessThanOrEqual),
            O::I32LeU | O::I64LeU => self.icmp(IntCC::UnsignedLessThanOrEqual),
            O::I32GeS | O::I64GeS => self.icmp(IntCC::SignedGreaterThanOrEqual),
            O::I32GeU | O::I64GeU => self.icmp(IntCC::UnsignedGreaterThanOrEqual),

            O::F32Eq | O::F64Eq => self.fcmp(FloatCC::Equal),
            O::F32Ne | O::F64Ne => self.fcmp(FloatCC::NotEqual),
            O::F32Lt | O::F64Lt => self.fcmp(FloatCC::LessThan),
            O::F32Gt | O::F64Gt => self.fcmp(FloatCC::GreaterThan),
            O::F32Le | O::F64Le => self.fcmp(FloatCC::LessThanOrEqual),
            O::F32Ge | O::F64Ge => self.fcmp(FloatCC::GreaterThanOrEqual),

            O::I32Clz | O::I64Clz => self.unary(|b, a| b.ins().clz(a)),
            O::I32Ctz | O::I64Ctz => self.unary(|b, a| b.ins().ctz(a)),
            O::I32Popcnt | O::I64Popcnt => self.unary(|b, a| b.ins().popcnt(a)),
            O::I32Add | O::I64Add => self.binary(|b, x, y| b.ins().iadd(x, y)),
            O::I32Sub | O::I64Sub => self.binary(|b, x, y| b.ins().isub(x, y)),
            O::I32Mul | O::I64Mul => self.binary(|b, x, y| b.ins().imul(x, y)),
            O::I32DivS | O::I64DivS => self.divide(|b, x, y| b.ins().sdiv(x, y)),
            O::I32DivU | O::I64DivU => self.divide(|b, x, y| b.ins().udiv(x, y)),
            O::I32RemS | O::I64RemS => self.divide(|b, x, y| b.ins().srem(x, y)),
            O::I32RemU | O::I64RemU => self.divide(|b, x, y| b.ins().urem(x, y)),
            O::I32And | O::I64And => self.binary(|b, x, y| b.ins().band(x, y)),
            O::I32Or | O::I64Or => self.binary(|b, x, y| b.ins().bor(x, y)),
            O::I32Xor | O::I64Xor => self.binary(|b, x, y| b.ins().bxor(x, y)),
            O::I32Shl | O::I64Shl => self.binary(|b, x, y| b.ins().ishl(x, y)),
            O::I32ShrS | O::I64ShrS => self.binary(|b, x, y| b.ins().sshr(x, y)),
            O::I32ShrU | O::I64ShrU => self.binary(|b, x, y| b.ins().ushr(x, y)),
            O::I32Rotl | O::I64Rotl => self.binary(|b, x, y| b.ins().rotl(x, y)),
            O::I32Rotr | O::I64Rotr => self.binary(|b, x, y| b.ins().rotr(x, y)),

            O::F32Abs | O::F64Abs => self.unary(|b, a| b.ins().fabs(a)),
            O::F32Neg | O::F64Neg => self.unary(|b, a| b.ins().fneg(a)),
            O::F32Ceil | O::F64Ceil => self.unary(|b, a| b.ins().ceil(a)),
            O::F32Floor | O::F64Floor => self.unary(|b, a| b.ins().floor(a)),
            O::F32Trunc | O::F64Trunc => self.unary(|b, a| b.ins().trunc(a)),
            O::F32Nearest | O::F64Nearest => self.unary(|b, a| b.ins().nearest(a)),
            O::F32Sqrt | O::F64Sqrt => self.unary(|b, a| b.ins().sqrt(a)),
            O::F32Add | O::F64Add => self.binary(|b, x, y| b.ins().fadd(x, y)),
            O::F32Sub | O::F64Sub => self.binary(|b, x, y| b.ins().fsub(x, y)),
            O::F32Mul | O::F64Mul => self.binary(|b, x, y| b.ins().fmul(x, y)),
            O::F32Div | O::F64Div => self.binary(|b, x, y| b.ins().fdiv(x, y)),
            O::F32Min | O::F64Min => self.binary(|b, x, y| b.ins().fmin(x, y)),
            O::F32Max | O::F64Max => self.binary(|b, x, y| b.ins().fmax(x, y)),
            O::F32Copysign | O::F64Copysign => self.binary(|b, x, y| b.ins().fcopysign(x, y)),

            O::I32WrapI64 => self.unary(|b, a| b.ins().ireduce(I32, a)),
            O::I64ExtendI32S => self.unary(|b, a| b.ins().sextend(I64, a)),
            O::I64ExtendI32U => self.unary(|b, a| b.ins().uextend(I64, a)),
            O::I32Extend8S => self.sign_extend_from(types::I8, I32),
            O::I32Extend16S => self.sign_extend_from(types::I16, I32),
            O::I64Extend8S => self.sign_extend_from(types::I8, I64),
            O::I64Extend16S => self.sign_extend_from(types::I16, I64),
            O::I64Extend32S => self.sign_extend_from(I32, I64),

            O::I32TruncF32S | O::I32TruncF64S => self.unary(|b, a| b.ins().fcvt_to_sint(I32, a)),
            O::I32TruncF32U | O::I32TruncF64U => self.unary(|b, a| b.ins().fcvt_to_uint(I32, a)),
            O::I64TruncF32S | O::I64TruncF64S => self.unary(|b, a| b.ins().fcvt_to_sint(I64, a)),
            O::I64TruncF32U | O::I64TruncF64U => self.unary(|b, a| b.ins().fcvt_to_uint(I64, a)),
            O::I32TruncSatF32S | O::I32TruncSatF64S => self.unary(|b, a| b.ins().fcvt_to_sint_sat(I32, a)),
            O::I32TruncSatF32U | O::I32TruncSatF64U => self.unary(|b, a| b.ins().fcvt_to_uint_sat(I32, a)),
            O::I64TruncSatF32S | O::I64TruncSatF64S => self.unary(|b, a| b.ins().fcvt_to_sint_sat(I64, a)),
            O::I64TruncSatF32U | O::I64TruncSatF64U => self.unary(|b, a| b.ins().fcvt_to_uint_sat(I64, a)),
            O::F32ConvertI32S | O::F32ConvertI64S => self.unary(|b, a| b.ins().fcvt_from_sint(types::F32, a)),
            O::F32ConvertI32U | O::F32ConvertI64U => self.unary(|b, a| b.ins().fcvt_from_uint(types::F32, a)),
            O::F64ConvertI32S | O::F64ConvertI64S => self.unary(|b, a| b.ins().fcvt_from_sint(types::F64, a)),
            O::F64ConvertI32U | O::F64ConvertI64U => self.unary(|b, a| b.ins().fcvt_from_uint(types::F64, a)),
            O::F32DemoteF64 => self.unary(|b, a| b.ins().fdemote(types::F32, a)),
            O::F64PromoteF32 => self.unary(|b, a| b.ins().fpromote(types::F64, a)),
            O::I32ReinterpretF32 => self.bitcast(I32),
            O::I64ReinterpretF64 => self.bitcast(I64),
            O::F32ReinterpretI32 => self.bitcast(types::F32),
            O::F64ReinterpretI64 => self.bitcast(types::F64),
            _ => return false,
        }
        true
    }

    /// Pushes a comparison result as the i32 wasm expects.
    fn push_bool(&mut self, c: Value) {
        let v = self.b.ins().uextend(I32, c);
        self.push1(v)
    }

    fn icmp(&mut self, cc: IntCC) {
        let (x, y) = self.pop2();
        let c = self.b.ins().icmp(cc, x, y);
        self.push_bool(c)
    }

    fn fcmp(&mut self, cc: FloatCC) {
        let (x, y) = self.pop2();
        let c = self.b.ins().fcmp(cc, x, y);
        self.push_bool(c)
    }

    pub(super) fn unary(&mut self, f: impl FnOnce(&mut cranelift_frontend::FunctionBuilder<'_>, Value) -> Value) {
        let a = self.pop1();
        let v = f(&mut self.b, a);
        self.push1(v)
    }

    pub(super) fn binary(
        &mut self,
        f: impl FnOnce(&mut cranelift_frontend::FunctionBuilder<'_>, Value, Value) -> Value,
    ) {
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
    fn divide(&mut self, f: impl FnOnce(&mut cranelift_frontend::FunctionBuilder<'_>, Value, Value) -> Value) {
        let (x, y) = self.pop2();
        let constant = self.b.func.dfg.value_def(y).inst().and_then(|i| match self.b.func.dfg.insts[i] {
            InstructionData::UnaryImm { opcode: Opcode::Iconst, imm } => Some(imm.bits()),
            _ => None,
        });
        if !matches!(constant, Some(c) if c != 0) {
            self.b.ins().trapz(y, crate::trap::TrapCode::IntegerDivisionByZero.to_clif());
        }
        let v = f(&mut self.b, x, y);
        self.push1(v)
    }

    fn sign_extend_from(&mut self, narrow: Type, wide: Type) {
        self.unary(|b, a| {
            let n = b.ins().ireduce(narrow, a);
            b.ins().sextend(wide, n)
        })
    }

    fn bitcast(&mut self, to: Type) {
        self.unary(|b, a| b.ins().bitcast(to, MemFlagsData::new(), a))
    }
}
