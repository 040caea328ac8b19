//! Globals, references and tables.

use cranelift_codegen::ir::{condcodes::IntCC, types::I32, InstBuilder, Value};
use wasmparser::Operator;

use super::Translator;
use crate::builtins::Builtin;
use crate::compile::func_env::{ir_type, readonly, trusted};
use crate::index::*;
use crate::trap::TrapCode;
use crate::types::Mutability;
use crate::vmctx::VMTableDefinition;

impl Translator<'_, '_> {
    pub(super) fn translate_table(&mut self, op: &Operator<'_>) -> bool {
        use Operator as O;
        match *op {
            O::GlobalGet { global_index } => {
                let g = GlobalIndex::from_u32(global_index);
                let ty = self.env.info().globals[g];
                let addr = self.env.global_address(&mut self.b, g);
                let flags = if ty.mutability == Mutability::Const { readonly() } else { trusted() };
                let v = self.b.ins().load(ir_type(ty.content), flags, addr, 0);
                self.push1(v);
            }
            O::GlobalSet { global_index } => {
                let v = self.pop1();
                let addr = self.env.global_address(&mut self.b, GlobalIndex::from_u32(global_index));
                self.b.ins().store(trusted(), v, addr, 0);
            }
            O::RefNull { .. } => {
                let v = self.b.ins().iconst(crate::compile::func_env::POINTER, 0);
                self.push1(v);
            }
            O::RefIsNull => {
                let r = self.pop1();
                let c = self.b.ins().icmp_imm_u(IntCC::Equal, r, 0);
                let v = self.b.ins().uextend(I32, c);
                self.push1(v);
            }
            O::RefFunc { function_index } => {
                let v = self.env.func_ref(&mut self.b, FuncIndex::from_u32(function_index));
                self.push1(v);
            }
            O::TableGet { table } => {
                let index = self.pop1();
                let addr = self.table_element_addr(TableIndex::from_u32(table), index, TrapCode::TableOutOfBounds);
                let v = self.b.ins().load(crate::compile::func_env::POINTER, trusted(), addr, 0);
                self.push1(v);
            }
            O::TableSet { table } => {
                let (index, value) = self.pop2();
                let addr = self.table_element_addr(TableIndex::from_u32(table), index, TrapCode::TableOutOfBounds);
                self.b.ins().store(trusted(), value, addr, 0);
            }
            O::TableSize { table } => {
                let def = self.env.table_definition(&mut self.b, TableIndex::from_u32(table));
                let v = self.b.ins().load(I32, trusted(), def, VMTableDefinition::LENGTH);
                self.push1(v);
            }
            O::TableGrow { table } => {
                let (init, delta) = self.pop2();
                let t = self.b.ins().iconst(I32, table as i64);
                let r = self.env.call_builtin(&mut self.b, Builtin::table_grow, &[t, delta, init]);
                self.push1(r.expect("table_grow returns"));
            }
            O::TableFill { table } => {
                let (dst, value, len) = self.pop3();
                let t = self.b.ins().iconst(I32, table as i64);
                self.env.call_builtin(&mut self.b, Builtin::table_fill, &[t, dst, value, len]);
            }
            O::TableCopy { dst_table, src_table } => {
                let (dst, src, len) = self.pop3();
                let d = self.b.ins().iconst(I32, dst_table as i64);
                let s = self.b.ins().iconst(I32, src_table as i64);
                self.env.call_builtin(&mut self.b, Builtin::table_copy, &[d, s, dst, src, len]);
            }
            O::TableInit { elem_index, table } => {
                let (dst, src, len) = self.pop3();
                let t = self.b.ins().iconst(I32, table as i64);
                let e = self.b.ins().iconst(I32, elem_index as i64);
                self.env.call_builtin(&mut self.b, Builtin::table_init, &[t, e, dst, src, len]);
            }
            O::ElemDrop { elem_index } => {
                let e = self.b.ins().iconst(I32, elem_index as i64);
                self.env.call_builtin(&mut self.b, Builtin::elem_drop, &[e]);
            }
            _ => return false,
        }
        true
    }

    /// Address of element `index` of `table`, trapping with `oob` when the
    /// index is past the end.
    pub(super) fn table_element_addr(&mut self, table: TableIndex, index: Value, oob: TrapCode) -> Value {
        let def = self.env.table_definition(&mut self.b, table);
        let len = self.b.ins().load(I32, trusted(), def, VMTableDefinition::LENGTH);
        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, len);
        self.trap_if(out, oob);
        let base = self.b.ins().load(crate::compile::func_env::POINTER, trusted(), def, VMTableDefinition::BASE);
        let index = self.b.ins().uextend(crate::compile::func_env::POINTER, index);
        let offset = self.b.ins().ishl_imm_u(index, 3);
        self.b.ins().iadd(base, offset)
    }
}
