//! References: `ref.null`, `ref.is_null` and `ref.func`. A reference is
//! whatever the function environment makes of it (a pointer, null as 0).

use super::Translator;
use crate::environ::index::FuncIndex;

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
