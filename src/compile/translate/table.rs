//! Tables: `table.get`/`set`/`size`/`grow` and the bulk table operators.
//! Element addresses, bounds and the runtime calls are the function
//! environment's; this file moves operands.

use super::Translator;
use crate::environ::index::{ElemIndex, TableIndex};

impl Translator<'_, '_> {
    pub(super) fn table_get(&mut self, t: TableIndex) {
        let index = self.pop1();
        let v = self.env.table_get(&mut self.b, t, index);
        self.push1(v);
    }

    pub(super) fn table_set(&mut self, t: TableIndex) {
        let (index, value) = self.pop2();
        self.env.table_set(&mut self.b, t, index, value);
    }

    pub(super) fn table_size(&mut self, t: TableIndex) {
        let v = self.env.table_size(&mut self.b, t);
        self.push1(v);
    }

    pub(super) fn table_grow(&mut self, t: TableIndex) {
        let (init, delta) = self.pop2();
        let v = self.env.table_grow(&mut self.b, t, init, delta);
        self.push1(v);
    }

    pub(super) fn table_fill(&mut self, t: TableIndex) {
        let operands = self.pop3();
        self.env.table_fill(&mut self.b, t, operands);
    }

    pub(super) fn table_copy(&mut self, dst: TableIndex, src: TableIndex) {
        let operands = self.pop3();
        self.env.table_copy(&mut self.b, dst, src, operands);
    }

    pub(super) fn table_init(&mut self, t: TableIndex, elem: ElemIndex) {
        let operands = self.pop3();
        self.env.table_init(&mut self.b, t, elem, operands);
    }
}
