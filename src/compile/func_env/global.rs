//! Globals: a defined global lives in the instance's VMContext, an
//! imported one is reached through a pointer stored there.

use cranelift_codegen::ir::{InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::{ir_type, readonly, trusted, FuncEnv};
use crate::environ::index::GlobalIndex;
use crate::environ::types::Mutability;

impl FuncEnv<'_> {
    /// Address of the storage of global `g`.
    fn global_address(&mut self, b: &mut FunctionBuilder, g: GlobalIndex) -> Value {
        match self.info().defined_global_index(g) {
            Some(d) => b.ins().iadd_imm_u(self.vmctx(), self.offsets().defined_global(d) as i64),
            None => self.load_vmctx_ptr(b, self.offsets().imported_global(g)),
        }
    }

    /// `global.get`. A constant global's load may be hoisted and merged.
    pub fn global_get(&mut self, b: &mut FunctionBuilder, g: GlobalIndex) -> Value {
        let ty = self.info().globals[g];
        let addr = self.global_address(b, g);
        let flags = if ty.mutability == Mutability::Const { readonly() } else { trusted() };
        b.ins().load(ir_type(ty.content), flags, addr, 0)
    }

    /// `global.set`.
    pub fn global_set(&mut self, b: &mut FunctionBuilder, g: GlobalIndex, value: Value) {
        let addr = self.global_address(b, g);
        b.ins().store(trusted(), value, addr, 0);
    }
}
