//! Tables: element addresses with their bounds check, the table operators
//! (inline or through runtime builtins), and the element `call_indirect`
//! calls through, with its null and signature checks.
//!
//! A table is a `VMTableDefinition` (base pointer and i32 length) reached
//! through the VMContext; elements are pointers, null for a null reference.
//! A 64-bit table (table64) has fewer than 2^32 elements too
//! (`MAX_TABLE_ELEMENTS`), so its i64 operands are narrowed to i32,
//! saturating at `u32::MAX`: an index or length past 2^32 stays out of
//! bounds, a growth past it fails.
//!
//! A table whose type has `max == min` has that length for its whole life
//! (an import of that type must match it exactly, and growth stops at the
//! maximum), and its elements never move: bounds checks compare with a
//! constant and the base is a read-only, hoistable load. So has a frozen
//! table (`module::frozen_tables`: never written after instantiation),
//! whose elements are read-only too, and whose `call_indirect`s skip the
//! signature check when its elements share the expected type, and the null
//! check when every slot is filled. When its elements are besides all this
//! module's functions (or null), a call of their type loads the code
//! address alone, from the table's array of them (`VMTableDefinition::
//! codes`: one dependent load less between the index and the call, which
//! an interpreter's mispredicted dispatch waits for); a null slot's
//! address is a stub that traps (`vm::null_call`).

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::ir::{
    condcodes::IntCC,
    types::{I32, I64},
    InstBuilder, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::call::{index_arg, Callee};
use super::{ranges, readonly, table_element, trusted, FuncEnv, POINTER};
use crate::environ::builtins::Builtin;
use crate::environ::config::BoundsChecks;
use crate::environ::frozen_tables::FrozenTable;
use crate::environ::index::{ElemIndex, TableIndex, TypeIndex};
use crate::environ::trap::TrapCode;
use crate::environ::vmctx::{VMFuncRef, VMTableDefinition};

impl FuncEnv<'_> {
    /// What compiled code may assume of table `t` if it is frozen.
    fn frozen_table(&self, t: TableIndex) -> Option<FrozenTable> {
        self.info().frozen_tables.get(&t).cloned().filter(|_| self.module.analyses)
    }

    /// The size of table `t` if it can never change.
    fn fixed_table_size(&self, t: TableIndex) -> Option<u32> {
        let limits = self.info().tables[t].limits();
        // A 32-bit table's size fits its index type.
        (limits.max == Some(limits.min) || self.frozen_table(t).is_some()).then_some(limits.min as u32)
    }

    /// Pointer to the `VMTableDefinition` of table `t`.
    fn table_definition(&mut self, b: &mut FunctionBuilder, t: TableIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().table(t))
    }

    /// Address of element `index` of table `t`, trapping with `oob` when
    /// the index is past the end.
    fn table_element_addr(&mut self, b: &mut FunctionBuilder, t: TableIndex, index: Value, oob: TrapCode) -> Value {
        self.table_slot_addr(b, t, index, oob, VMTableDefinition::BASE)
    }

    /// Address of slot `index` of the array at field `array` of table `t`'s
    /// definition (its elements, or a frozen table's code addresses),
    /// trapping with `oob` when the index is past the end.
    fn table_slot_addr(
        &mut self,
        b: &mut FunctionBuilder,
        t: TableIndex,
        index: Value,
        oob: TrapCode,
        array: i32,
    ) -> Value {
        let index = narrow_index(b, index);
        let def = self.table_definition(b, t);
        let base_flags = if let Some(size) = self.fixed_table_size(t) {
            // An index masked (or otherwise bounded) below the size needs
            // no check, as in a dispatch through a 2^k-entry table.
            if !self.module.analyses || ranges::max_u32(&b.func.dfg, index) >= u64::from(size) {
                let out = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThanOrEqual, index, size as i64);
                b.ins().trapnz(out, oob.to_clif());
            }
            readonly()
        } else {
            let len = b.ins().load(I32, trusted(), def, VMTableDefinition::LENGTH);
            let out = b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, index, len);
            b.ins().trapnz(out, oob.to_clif());
            trusted()
        };
        let base = b.ins().load(POINTER, base_flags, def, array);
        let index = b.ins().uextend(POINTER, index);
        let offset = b.ins().ishl_imm_u(index, VMTableDefinition::ELEMENT_SIZE_LOG2);
        b.ins().iadd(base, offset)
    }

    /// `table.get`.
    pub fn table_get(&mut self, b: &mut FunctionBuilder, t: TableIndex, index: Value) -> Value {
        let addr = self.table_element_addr(b, t, index, TrapCode::TableOutOfBounds);
        b.ins().load(POINTER, table_element(), addr, 0)
    }

    /// `table.set`.
    pub fn table_set(&mut self, b: &mut FunctionBuilder, t: TableIndex, index: Value, value: Value) {
        let addr = self.table_element_addr(b, t, index, TrapCode::TableOutOfBounds);
        b.ins().store(table_element(), value, addr, 0);
    }

    /// `table.size`, as an i32 (an i64 for a 64-bit table).
    pub fn table_size(&mut self, b: &mut FunctionBuilder, t: TableIndex) -> Value {
        let def = self.table_definition(b, t);
        let size = b.ins().load(I32, trusted(), def, VMTableDefinition::LENGTH);
        match self.info().tables[t].is_64() {
            true => b.ins().uextend(I64, size),
            false => size,
        }
    }

    /// `table.grow`: the old size, or -1.
    pub fn table_grow(&mut self, b: &mut FunctionBuilder, t: TableIndex, init: Value, delta: Value) -> Value {
        let wide = b.func.dfg.value_type(delta) == I64;
        let delta = narrow_index(b, delta);
        let t = index_arg(b, t);
        let old = self.call_builtin(b, Builtin::table_grow, &[t, delta, init]).expect("table_grow returns");
        // Sizes are below 2^31 (`MAX_TABLE_ELEMENTS`): -1 is the only
        // negative result.
        match wide {
            true => b.ins().sextend(I64, old),
            false => old,
        }
    }

    /// `table.fill` of `len` elements from `dst` with `value`.
    pub fn table_fill(&mut self, b: &mut FunctionBuilder, t: TableIndex, [dst, value, len]: [Value; 3]) {
        let [dst, len] = [dst, len].map(|v| narrow_index(b, v));
        let t = index_arg(b, t);
        self.call_builtin(b, Builtin::table_fill, &[t, dst, value, len]);
    }

    /// `table.copy` of `len` elements from `src` in `src_table` to `dst` in
    /// `dst_table`.
    pub fn table_copy(
        &mut self,
        b: &mut FunctionBuilder,
        dst_table: TableIndex,
        src_table: TableIndex,
        [dst, src, len]: [Value; 3],
    ) {
        let [dst, src, len] = [dst, src, len].map(|v| narrow_index(b, v));
        let d = index_arg(b, dst_table);
        let s = index_arg(b, src_table);
        self.call_builtin(b, Builtin::table_copy, &[d, s, dst, src, len]);
    }

    /// `table.init` of `len` elements of segment `elem` from `src` to `dst`.
    pub fn table_init(&mut self, b: &mut FunctionBuilder, t: TableIndex, elem: ElemIndex, [dst, src, len]: [Value; 3]) {
        let dst = narrow_index(b, dst);
        let t = index_arg(b, t);
        let e = index_arg(b, elem);
        self.call_builtin(b, Builtin::table_init, &[t, e, dst, src, len]);
    }

    /// `elem.drop`.
    pub fn elem_drop(&mut self, b: &mut FunctionBuilder, elem: ElemIndex) {
        let e = index_arg(b, elem);
        self.call_builtin(b, Builtin::elem_drop, &[e]);
    }

    /// The function `call_indirect` with type `ty` calls: element `index` of
    /// table `t`, which must be in bounds, non-null and of that signature.
    pub(super) fn indirect_callee(
        &mut self,
        b: &mut FunctionBuilder,
        ty: TypeIndex,
        t: TableIndex,
        index: Value,
    ) -> Callee {
        let frozen = self.frozen_table(t);
        let expected_type = self.info().func_sig(ty);
        if frozen.as_ref().is_some_and(|f| f.calls_by_code() && f.shared_type.as_ref() == Some(expected_type)) {
            // Every element is null or one of this instance's functions, of
            // this type: the code address is all the call needs, from the
            // table's array of them (`VMTableDefinition::codes`; a null
            // slot's traps), loaded below the bounds check.
            let addr = self.table_slot_addr(b, t, index, TrapCode::UndefinedElement, VMTableDefinition::CODES);
            let code = b.ins().load(POINTER, table_element().with_readonly(), addr, 0);
            return Callee::Indirect { code, vmctx: self.vmctx() };
        }
        let addr = self.table_element_addr(b, t, index, TrapCode::UndefinedElement);
        // Not `can_move` even when frozen: the load must stay below the
        // bounds check.
        let element_flags = if frozen.is_some() { table_element().with_readonly() } else { table_element() };
        let func_ref = b.ins().load(POINTER, element_flags, addr, 0);
        let null = TrapCode::IndirectCallToNull.to_clif();
        let check_signature = frozen.as_ref().is_none_or(|f| f.shared_type.as_ref() != Some(expected_type));
        let check_null = frozen.as_ref().is_none_or(|f| !f.full);
        // With guard pages, faults are traps anyway: the first load from a
        // null funcref (the signature's, or the code's when the signature
        // needs no check) faults (page 0 is never mapped) and reports the
        // null's trap code, so the null check costs nothing. In the
        // explicit mode (valgrind, which would report the access) it is a
        // test. Either way no load of the funcref may move above the check
        // (`readonly` without `can_move`).
        let mut first_load_flags = trusted().with_readonly();
        if check_null {
            match self.module.bounds_checks {
                BoundsChecks::GuardPages => first_load_flags = first_load_flags.with_trap_code(Some(null)),
                BoundsChecks::Explicit => {
                    b.ins().trapz(func_ref, null);
                }
            }
        }
        let mut code_flags = trusted().with_readonly();
        if check_signature {
            let sig = b.ins().load(POINTER, first_load_flags, func_ref, VMFuncRef::SIG);
            if self.info().types[ty].is_final {
                // No other type is a subtype of a final one.
                let expected = self.signature_id(b, ty);
                let mismatch = b.ins().icmp(IntCC::NotEqual, sig, expected);
                b.ins().trapnz(mismatch, TrapCode::BadSignature.to_clif());
            } else {
                // A declared subtype matches too (GC).
                let ok = self.sig_matches(b, func_ref, sig, ty);
                b.ins().trapz(ok, TrapCode::BadSignature.to_clif());
            }
        } else {
            code_flags = first_load_flags;
        }
        let code = b.ins().load(POINTER, code_flags, func_ref, VMFuncRef::WASM_CALL);
        let vmctx = match frozen {
            // The element's VMContext is this instance's (see `FrozenTable`).
            Some(f) if f.own_functions => self.vmctx(),
            _ => b.ins().load(POINTER, trusted().with_readonly(), func_ref, VMFuncRef::VMCTX),
        };
        Callee::Indirect { code, vmctx }
    }
}

/// A table operand as an i32: a 64-bit table's index, size or length
/// narrowed, saturating at `u32::MAX` (past every table's size).
fn narrow_index(b: &mut FunctionBuilder, v: Value) -> Value {
    if b.func.dfg.value_type(v) != I64 {
        return v;
    }
    let max = b.ins().iconst(I64, i64::from(u32::MAX));
    let v = b.ins().umin(v, max);
    b.ins().ireduce(I32, v)
}
