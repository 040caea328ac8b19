//! Calls: `call`, `call_indirect` and their tail-call forms.
//!
//! The arguments come off the operand stack and the results go back on it;
//! how the callee is reached, and what `call_indirect` checks, is the
//! function environment's business.

use cranelift_codegen::ir::Inst;

use super::Translator;
use crate::environ::index::{FuncIndex, TableIndex, TypeIndex};

impl Translator<'_, '_> {
    /// `call` (or `return_call` when `tail`).
    pub(super) fn call(&mut self, f: FuncIndex, tail: bool) {
        let n = self.env.info().func_type(f).params().len();
        let args = self.popn(n);
        let call = self.env.call(&mut self.b, f, args, tail);
        self.finish_call(call);
    }

    /// `call_indirect` (or `return_call_indirect` when `tail`).
    pub(super) fn call_indirect(&mut self, ty: TypeIndex, table: TableIndex, tail: bool) {
        let n = self.env.info().func_sig(ty).params().len();
        let index = self.pop1();
        let args = self.popn(n);
        let call = self.env.call_indirect(&mut self.b, ty, table, index, args, tail);
        self.finish_call(call);
    }

    /// Pushes the results of a call; after a tail call, nothing follows.
    fn finish_call(&mut self, call: Option<Inst>) {
        match call {
            Some(call) => self.stack.extend_from_slice(self.b.inst_results(call)),
            None => self.reachable = false,
        }
    }
}
