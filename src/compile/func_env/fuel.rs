//! Fuel compiled into code, only with `Config::consume_fuel` (otherwise
//! nothing here emits an instruction).
//!
//! The store's `VMStoreContext::fuel_consumed` is negative while fuel
//! remains. A function keeps it in a variable: every operator adds its cost
//! at compile time, and the sum is added to the variable at the next point
//! where control flow splits or joins, so a straight run of code costs one
//! add. The variable goes back to the store before calls and returns (where
//! the callee or the host may look) and is read again after calls. Function
//! entries and loop headers trap once it is no longer negative.
//!
//! (Interrupts and epoch deadlines need no code: see `runtime::vm::interrupt`.)

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{condcodes::IntCC, types::I64, InstBuilder, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use wasmparser::Operator;

use super::{trusted, FuncEnv};
use crate::environ::trap::TrapCode;
use crate::environ::vmctx::{header, VMStoreContext};

/// What a function's fuel counting keeps while it is translated.
#[derive(Default)]
pub(super) struct Fuel {
    /// The store's `VMStoreContext`, loaded at function entry.
    store: Option<Value>,
    /// `fuel_consumed` of the store, while the function runs.
    consumed: Option<Variable>,
    /// Cost of the operators since the last flush into `consumed`.
    pending: i64,
}

/// What an operator costs: control structure and `nop`, `drop` are free,
/// as in wasmtime.
fn cost(op: &Operator<'_>) -> i64 {
    match op {
        Operator::Nop
        | Operator::Drop
        | Operator::Block { .. }
        | Operator::Loop { .. }
        | Operator::Unreachable
        | Operator::Return
        | Operator::Else
        | Operator::End => 0,
        _ => 1,
    }
}

/// Whether control flow splits or joins at `op` (or leaves the function),
/// so the pending cost must be in the variable before it.
fn flushes(op: &Operator<'_>) -> bool {
    matches!(
        op,
        Operator::Unreachable
            | Operator::Loop { .. }
            | Operator::If { .. }
            | Operator::Else
            | Operator::End
            | Operator::Br { .. }
            | Operator::BrIf { .. }
            | Operator::BrTable { .. }
            | Operator::Return
            | Operator::Call { .. }
            | Operator::CallIndirect { .. }
            | Operator::ReturnCall { .. }
            | Operator::ReturnCallIndirect { .. }
    )
}

impl FuncEnv<'_> {
    /// Reads the store's fuel at the start of a function body (after its
    /// locals are defined) and checks it.
    pub fn fuel_function_entry(&mut self, b: &mut FunctionBuilder) {
        if !self.module.consume_fuel {
            return;
        }
        let store = self.load_vmctx_ptr(b, header::STORE as u32);
        self.fuel.store = Some(store);
        let var = b.declare_var(I64);
        let consumed = b.ins().load(I64, trusted(), store, VMStoreContext::FUEL_CONSUMED);
        b.def_var(var, consumed);
        self.fuel.consumed = Some(var);
        self.fuel_check(b);
    }

    /// Counts `op` (about to be translated in reachable code).
    #[inline]
    pub fn fuel_before_op(&mut self, b: &mut FunctionBuilder, op: &Operator<'_>) {
        if self.fuel.consumed.is_none() {
            return;
        }
        self.fuel.pending += cost(op);
        if flushes(op) {
            self.fuel_flush(b);
        }
    }

    /// Adds the pending cost to the variable.
    fn fuel_flush(&mut self, b: &mut FunctionBuilder) {
        let (Some(var), pending) = (self.fuel.consumed, std::mem::take(&mut self.fuel.pending)) else { return };
        if pending != 0 {
            let v = b.use_var(var);
            let v = b.ins().iadd_imm_s(v, pending);
            b.def_var(var, v);
        }
    }

    /// Writes the variable back to the store: before a call or a return,
    /// where others may read or change it.
    pub(super) fn fuel_save(&mut self, b: &mut FunctionBuilder) {
        let (Some(var), Some(store)) = (self.fuel.consumed, self.fuel.store) else { return };
        let v = b.use_var(var);
        b.ins().store(trusted(), v, store, VMStoreContext::FUEL_CONSUMED);
    }

    /// Reads the variable again after a call: the callee or the host may
    /// have used or changed the fuel.
    pub(super) fn fuel_after_call(&mut self, b: &mut FunctionBuilder) {
        let (Some(var), Some(store)) = (self.fuel.consumed, self.fuel.store) else { return };
        let v = b.ins().load(I64, trusted(), store, VMStoreContext::FUEL_CONSUMED);
        b.def_var(var, v);
    }

    /// Before the function returns.
    pub fn fuel_before_return(&mut self, b: &mut FunctionBuilder) {
        self.fuel_save(b);
    }

    /// At the top of a loop body: traps with `OutOfFuel` (the store seeing
    /// what was used) once the variable is no longer negative.
    pub fn fuel_check(&mut self, b: &mut FunctionBuilder) {
        let Some(var) = self.fuel.consumed else { return };
        let v = b.use_var(var);
        let out = b.ins().icmp_imm_s(IntCC::SignedGreaterThanOrEqual, v, 0);
        let (trap, cont) = (b.create_block(), b.create_block());
        b.ins().brif(out, trap, &[], cont, &[]);
        b.set_cold_block(trap);
        b.seal_block(trap);
        b.seal_block(cont);
        b.switch_to_block(trap);
        self.fuel_save(b);
        b.ins().trap(TrapCode::OutOfFuel.to_clif());
        b.switch_to_block(cont);
    }
}
