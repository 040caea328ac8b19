//! References: `ref.null`, `ref.is_null`, `ref.func` and
//! `ref.as_non_null`. A reference is whatever the function environment
//! makes of it (a pointer, null as 0).

use cranelift_codegen::ir::InstBuilder;

use super::Translator;
use crate::compile::trap_codes::ToClif;
use crate::environ::index::FuncIndex;
use crate::environ::trap::TrapCode;

impl Translator<'_, '_> {
    pub(super) fn ref_null(&mut self) {
        let v = self.env.null_ref(&mut self.b);
        self.push1(v);
    }

    pub(super) fn ref_is_null(&mut self) {
        let r = self.pop1();
        let v = self.env.ref_is_null(&mut self.b, r);
        self.push1(v);
    }

    pub(super) fn ref_func(&mut self, f: FuncIndex) {
        let v = self.env.func_ref(&mut self.b, f);
        self.push1(v);
    }
}

impl Translator<'_, '_> {
    /// `ref.as_non_null`: traps on null, else leaves the reference.
    pub(super) fn ref_as_non_null(&mut self) {
        let r = *self.top(1).last().expect("validated: operand present");
        self.b.ins().trapz(r, TrapCode::NullReference.to_clif());
    }
}
