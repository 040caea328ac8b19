//! Calls: `call`, `call_indirect`, `call_ref` and their tail-call forms.
//!
//! The arguments come off the operand stack and the results go back on it;
//! how the callee is reached, and what `call_indirect` checks, is the
//! function environment's business.

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

    /// `call_ref` (or `return_call_ref` when `tail`) of a function of type
    /// `ty`: the reference's type proves the signature, so only null is
    /// checked.
    pub(super) fn call_ref(&mut self, ty: TypeIndex, tail: bool) {
        let n = self.env.info().func_sig(ty).params().len();
        let func_ref = self.pop1();
        let args = self.popn(n);
        let call = self.env.call_ref(&mut self.b, ty, func_ref, args, tail);
        self.finish_call(call);
    }

    /// Pushes the results of a call; after a tail call, nothing follows.
    fn finish_call(&mut self, results: Option<Vec<cranelift_codegen::ir::Value>>) {
        match results {
            Some(results) => self.stack.extend(results),
            None => self.reachable = false,
        }
    }
}
