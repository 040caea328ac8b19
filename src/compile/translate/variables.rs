//! Variables: locals, which are Cranelift frontend variables, and globals,
//! which live where the function environment says.

use cranelift_codegen::ir::Value;

use super::Translator;
use crate::environ::index::GlobalIndex;

impl Translator<'_, '_> {
    pub(super) fn local_get(&mut self, local: u32) {
        let v = self.b.use_var(self.locals[local as usize]);
        self.push1(v);
    }

    pub(super) fn local_set(&mut self, local: u32) {
        let v = self.pop1();
        self.b.def_var(self.locals[local as usize], v);
    }

    /// `local.tee`: sets the local and leaves the value on the stack.
    pub(super) fn local_tee(&mut self, local: u32) {
        let v: Value = *self.stack.last().expect("validated: operand present");
        self.b.def_var(self.locals[local as usize], v);
    }

    pub(super) fn global_get(&mut self, g: GlobalIndex) {
        let v = self.env.global_get(&mut self.b, g);
        self.push1(v);
    }

    pub(super) fn global_set(&mut self, g: GlobalIndex) {
        let v = self.pop1();
        self.env.global_set(&mut self.b, g, v);
    }
}
