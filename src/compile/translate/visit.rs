//! The dispatch of every non-SIMD operator: wasmparser's `VisitOperator`
//! implemented for the translator, one method per operator, from our own
//! explicit tables.
//!
//! The first table holds the operators we translate, grouped by the file
//! that holds their translation; one-instruction operators are written out
//! here. The lists after it name, proposal by proposal, the operators we
//! refuse with [`Error::Unsupported`](crate::Error::Unsupported). The
//! validator rejects all of those while their proposals are off in
//! `Config`; the lists make switching one on a decision to write its
//! translation. The trait has no default methods, so an operator a newer
//! wasmparser adds does not compile until it is written into one of them.

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types::{F32, F64, I16, I32, I64, I8},
    AtomicRmwOp, InstBuilder,
};
use wasmparser::{
    BlockType, BrTable, HeapType, Ieee32, Ieee64, MemArg, Ordering, RefType, ResumeTable, TryTable, ValType,
    VisitOperator, VisitSimdOperator,
};

use super::gc_objects::Ext;
use super::memory::Load;
use super::Translator;
use crate::environ::error::Result;
use crate::environ::index::{
    DataIndex, ElemIndex, FuncIndex, GlobalIndex, MemoryIndex, TableIndex, TagIndex, TypeIndex,
};
use crate::environ::trap::TrapCode;

impl<'a> VisitOperator<'a> for Translator<'_, '_> {
    type Output = Result<()>;

    fn simd_visitor(&mut self) -> Option<&mut dyn VisitSimdOperator<'a, Output = Result<()>>> {
        Some(self)
    }

    operators! { t =>
        // control.rs
        visit_nop => ();
        visit_unreachable => t.trap(TrapCode::UnreachableCodeReached);
        visit_block(blockty: BlockType) => t.block(blockty);
        visit_loop(blockty: BlockType) => t.loop_(blockty);
        visit_if(blockty: BlockType) => t.if_(blockty);
        visit_else => t.else_();
        visit_end => t.end();
        visit_br(relative_depth: u32) => t.br(relative_depth);
        visit_br_if(relative_depth: u32) => t.br_if(relative_depth);
        visit_br_table(targets: BrTable<'a>) => t.br_table(targets)?;
        visit_return => t.return_();

        // call.rs
        visit_call(function_index: u32) => t.call(FuncIndex::from_u32(function_index), false);
        visit_return_call(function_index: u32) => t.call(FuncIndex::from_u32(function_index), true);
        visit_call_indirect(type_index: u32, table_index: u32) =>
            t.call_indirect(TypeIndex::from_u32(type_index), TableIndex::from_u32(table_index), false);
        visit_return_call_indirect(type_index: u32, table_index: u32) =>
            t.call_indirect(TypeIndex::from_u32(type_index), TableIndex::from_u32(table_index), true);

        // Parametric operators (the operand stack, mod.rs).
        visit_drop => { t.pop1(); };
        visit_select, visit_typed_select(_ty: ValType) => t.select();

        // variables.rs
        visit_local_get(local_index: u32) => t.local_get(local_index);
        visit_local_set(local_index: u32) => t.local_set(local_index);
        visit_local_tee(local_index: u32) => t.local_tee(local_index);
        visit_global_get(global_index: u32) => t.global_get(GlobalIndex::from_u32(global_index));
        visit_global_set(global_index: u32) => t.global_set(GlobalIndex::from_u32(global_index));

        // reference.rs
        visit_ref_null(_hty: HeapType) => t.ref_null();
        visit_ref_is_null => t.ref_is_null();
        visit_ref_func(function_index: u32) => t.ref_func(FuncIndex::from_u32(function_index));
        visit_ref_as_non_null => t.ref_as_non_null();

        // exceptions.rs
        visit_try_table(try_table: TryTable) => t.try_table(try_table);
        visit_throw(tag_index: u32) => t.throw(TagIndex::from_u32(tag_index));
        visit_throw_ref => t.throw_ref();
        visit_try(blockty: BlockType) => t.try_(blockty);
        visit_catch(tag_index: u32) => t.catch(Some(TagIndex::from_u32(tag_index)));
        visit_catch_all => t.catch(None);
        visit_rethrow(relative_depth: u32) => t.rethrow(relative_depth);
        visit_delegate(relative_depth: u32) => t.delegate(relative_depth);

        // Typed function references (call.rs, control.rs).
        visit_call_ref(type_index: u32) => t.call_ref(TypeIndex::from_u32(type_index), false);
        visit_return_call_ref(type_index: u32) => t.call_ref(TypeIndex::from_u32(type_index), true);
        visit_br_on_null(relative_depth: u32) => t.br_on_null(relative_depth);
        visit_br_on_non_null(relative_depth: u32) => t.br_on_non_null(relative_depth);

        // GC without a heap (gc.rs): `any` and `extern` share one encoding.
        visit_ref_i31 => t.ref_i31();
        visit_i31_get_s => t.i31_get(true);
        visit_i31_get_u => t.i31_get(false);
        visit_ref_eq => t.ref_eq();
        visit_any_convert_extern => t.any_convert_extern();
        visit_extern_convert_any => t.extern_convert_any();

        // GC's heap objects (gc_objects.rs).
        visit_struct_new(ty: u32) => t.struct_new(TypeIndex::from_u32(ty), false);
        visit_struct_new_default(ty: u32) => t.struct_new(TypeIndex::from_u32(ty), true);
        visit_struct_get(ty: u32, field: u32) => t.struct_get(TypeIndex::from_u32(ty), field, Ext::None);
        visit_struct_get_s(ty: u32, field: u32) => t.struct_get(TypeIndex::from_u32(ty), field, Ext::Signed);
        visit_struct_get_u(ty: u32, field: u32) => t.struct_get(TypeIndex::from_u32(ty), field, Ext::Unsigned);
        visit_struct_set(ty: u32, field: u32) => t.struct_set(TypeIndex::from_u32(ty), field);
        visit_array_new(ty: u32) => t.array_new(TypeIndex::from_u32(ty), false);
        visit_array_new_default(ty: u32) => t.array_new(TypeIndex::from_u32(ty), true);
        visit_array_new_fixed(ty: u32, n: u32) => t.array_new_fixed(TypeIndex::from_u32(ty), n);
        visit_array_new_data(ty: u32, data: u32) => t.array_new_segment(TypeIndex::from_u32(ty), data, false);
        visit_array_new_elem(ty: u32, elem: u32) => t.array_new_segment(TypeIndex::from_u32(ty), elem, true);
        visit_array_get(ty: u32) => t.array_get(TypeIndex::from_u32(ty), Ext::None);
        visit_array_get_s(ty: u32) => t.array_get(TypeIndex::from_u32(ty), Ext::Signed);
        visit_array_get_u(ty: u32) => t.array_get(TypeIndex::from_u32(ty), Ext::Unsigned);
        visit_array_set(ty: u32) => t.array_set(TypeIndex::from_u32(ty));
        visit_array_len => t.array_len();
        visit_array_fill(ty: u32) => t.array_fill(TypeIndex::from_u32(ty));
        visit_array_copy(dst: u32, _src: u32) => t.array_copy(TypeIndex::from_u32(dst));
        visit_array_init_data(ty: u32, data: u32) => t.array_init_segment(TypeIndex::from_u32(ty), data, false);
        visit_array_init_elem(ty: u32, elem: u32) => t.array_init_segment(TypeIndex::from_u32(ty), elem, true);
        visit_ref_test_non_null(hty: HeapType) => t.ref_test(hty, false);
        visit_ref_test_nullable(hty: HeapType) => t.ref_test(hty, true);
        visit_ref_cast_non_null(hty: HeapType) => t.ref_cast(hty, false);
        visit_ref_cast_nullable(hty: HeapType) => t.ref_cast(hty, true);
        visit_br_on_cast(relative_depth: u32, _from: RefType, to: RefType) => t.br_on_cast(relative_depth, to, false);
        visit_br_on_cast_fail(relative_depth: u32, _from: RefType, to: RefType) =>
            t.br_on_cast(relative_depth, to, true);

        // table.rs
        visit_table_get(table: u32) => t.table_get(TableIndex::from_u32(table));
        visit_table_set(table: u32) => t.table_set(TableIndex::from_u32(table));
        visit_table_size(table: u32) => t.table_size(TableIndex::from_u32(table));
        visit_table_grow(table: u32) => t.table_grow(TableIndex::from_u32(table));
        visit_table_fill(table: u32) => t.table_fill(TableIndex::from_u32(table));
        visit_table_copy(dst_table: u32, src_table: u32) =>
            t.table_copy(TableIndex::from_u32(dst_table), TableIndex::from_u32(src_table));
        visit_table_init(elem_index: u32, table: u32) =>
            t.table_init(TableIndex::from_u32(table), ElemIndex::from_u32(elem_index));
        visit_elem_drop(elem_index: u32) => t.env.elem_drop(&mut t.b, ElemIndex::from_u32(elem_index));

        // memory.rs
        visit_i32_load(memarg: MemArg) => t.load(&memarg, Load::Plain(I32), 4)?;
        visit_i64_load(memarg: MemArg) => t.load(&memarg, Load::Plain(I64), 8)?;
        visit_f32_load(memarg: MemArg) => t.load(&memarg, Load::Plain(F32), 4)?;
        visit_f64_load(memarg: MemArg) => t.load(&memarg, Load::Plain(F64), 8)?;
        visit_i32_load8_s(memarg: MemArg) => t.load(&memarg, Load::Signed8(I32), 1)?;
        visit_i32_load8_u(memarg: MemArg) => t.load(&memarg, Load::Unsigned8(I32), 1)?;
        visit_i32_load16_s(memarg: MemArg) => t.load(&memarg, Load::Signed16(I32), 2)?;
        visit_i32_load16_u(memarg: MemArg) => t.load(&memarg, Load::Unsigned16(I32), 2)?;
        visit_i64_load8_s(memarg: MemArg) => t.load(&memarg, Load::Signed8(I64), 1)?;
        visit_i64_load8_u(memarg: MemArg) => t.load(&memarg, Load::Unsigned8(I64), 1)?;
        visit_i64_load16_s(memarg: MemArg) => t.load(&memarg, Load::Signed16(I64), 2)?;
        visit_i64_load16_u(memarg: MemArg) => t.load(&memarg, Load::Unsigned16(I64), 2)?;
        visit_i64_load32_s(memarg: MemArg) => t.load(&memarg, Load::Signed32, 4)?;
        visit_i64_load32_u(memarg: MemArg) => t.load(&memarg, Load::Unsigned32, 4)?;
        visit_i32_store(memarg: MemArg), visit_i64_store(memarg: MemArg),
        visit_f32_store(memarg: MemArg), visit_f64_store(memarg: MemArg) => t.store(&memarg)?;
        visit_i32_store8(memarg: MemArg), visit_i64_store8(memarg: MemArg) => t.narrow_store(&memarg, 1)?;
        visit_i32_store16(memarg: MemArg), visit_i64_store16(memarg: MemArg) => t.narrow_store(&memarg, 2)?;
        visit_i64_store32(memarg: MemArg) => t.narrow_store(&memarg, 4)?;
        visit_memory_size(mem: u32) => t.memory_size(MemoryIndex::from_u32(mem));
        visit_memory_grow(mem: u32) => t.memory_grow(MemoryIndex::from_u32(mem));
        visit_memory_fill(mem: u32) => t.memory_fill(MemoryIndex::from_u32(mem));
        visit_memory_copy(dst_mem: u32, src_mem: u32) =>
            t.memory_copy(MemoryIndex::from_u32(dst_mem), MemoryIndex::from_u32(src_mem));
        visit_memory_init(data_index: u32, mem: u32) =>
            t.memory_init(MemoryIndex::from_u32(mem), DataIndex::from_u32(data_index));
        visit_data_drop(data_index: u32) => t.env.data_drop(&mut t.b, DataIndex::from_u32(data_index));

        // atomics.rs (the threads proposal)
        visit_i32_atomic_load(memarg: MemArg) => t.atomic_load(&memarg, I32, 4)?;
        visit_i64_atomic_load(memarg: MemArg) => t.atomic_load(&memarg, I64, 8)?;
        visit_i32_atomic_load8_u(memarg: MemArg) => t.atomic_load(&memarg, I32, 1)?;
        visit_i32_atomic_load16_u(memarg: MemArg) => t.atomic_load(&memarg, I32, 2)?;
        visit_i64_atomic_load8_u(memarg: MemArg) => t.atomic_load(&memarg, I64, 1)?;
        visit_i64_atomic_load16_u(memarg: MemArg) => t.atomic_load(&memarg, I64, 2)?;
        visit_i64_atomic_load32_u(memarg: MemArg) => t.atomic_load(&memarg, I64, 4)?;
        visit_i32_atomic_store(memarg: MemArg), visit_i64_atomic_store32(memarg: MemArg) => t.atomic_store(&memarg, 4)?;
        visit_i64_atomic_store(memarg: MemArg) => t.atomic_store(&memarg, 8)?;
        visit_i32_atomic_store8(memarg: MemArg), visit_i64_atomic_store8(memarg: MemArg) => t.atomic_store(&memarg, 1)?;
        visit_i32_atomic_store16(memarg: MemArg), visit_i64_atomic_store16(memarg: MemArg) =>
            t.atomic_store(&memarg, 2)?;
        visit_i32_atomic_rmw_add(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Add, 4)?;
        visit_i64_atomic_rmw_add(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Add, 8)?;
        visit_i32_atomic_rmw8_add_u(memarg: MemArg), visit_i64_atomic_rmw8_add_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Add, 1)?;
        visit_i32_atomic_rmw16_add_u(memarg: MemArg), visit_i64_atomic_rmw16_add_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Add, 2)?;
        visit_i64_atomic_rmw32_add_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Add, 4)?;
        visit_i32_atomic_rmw_sub(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Sub, 4)?;
        visit_i64_atomic_rmw_sub(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Sub, 8)?;
        visit_i32_atomic_rmw8_sub_u(memarg: MemArg), visit_i64_atomic_rmw8_sub_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Sub, 1)?;
        visit_i32_atomic_rmw16_sub_u(memarg: MemArg), visit_i64_atomic_rmw16_sub_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Sub, 2)?;
        visit_i64_atomic_rmw32_sub_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Sub, 4)?;
        visit_i32_atomic_rmw_and(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::And, 4)?;
        visit_i64_atomic_rmw_and(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::And, 8)?;
        visit_i32_atomic_rmw8_and_u(memarg: MemArg), visit_i64_atomic_rmw8_and_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::And, 1)?;
        visit_i32_atomic_rmw16_and_u(memarg: MemArg), visit_i64_atomic_rmw16_and_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::And, 2)?;
        visit_i64_atomic_rmw32_and_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::And, 4)?;
        visit_i32_atomic_rmw_or(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Or, 4)?;
        visit_i64_atomic_rmw_or(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Or, 8)?;
        visit_i32_atomic_rmw8_or_u(memarg: MemArg), visit_i64_atomic_rmw8_or_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Or, 1)?;
        visit_i32_atomic_rmw16_or_u(memarg: MemArg), visit_i64_atomic_rmw16_or_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Or, 2)?;
        visit_i64_atomic_rmw32_or_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Or, 4)?;
        visit_i32_atomic_rmw_xor(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xor, 4)?;
        visit_i64_atomic_rmw_xor(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xor, 8)?;
        visit_i32_atomic_rmw8_xor_u(memarg: MemArg), visit_i64_atomic_rmw8_xor_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Xor, 1)?;
        visit_i32_atomic_rmw16_xor_u(memarg: MemArg), visit_i64_atomic_rmw16_xor_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Xor, 2)?;
        visit_i64_atomic_rmw32_xor_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xor, 4)?;
        visit_i32_atomic_rmw_xchg(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xchg, 4)?;
        visit_i64_atomic_rmw_xchg(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xchg, 8)?;
        visit_i32_atomic_rmw8_xchg_u(memarg: MemArg), visit_i64_atomic_rmw8_xchg_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Xchg, 1)?;
        visit_i32_atomic_rmw16_xchg_u(memarg: MemArg), visit_i64_atomic_rmw16_xchg_u(memarg: MemArg) =>
            t.atomic_rmw(&memarg, AtomicRmwOp::Xchg, 2)?;
        visit_i64_atomic_rmw32_xchg_u(memarg: MemArg) => t.atomic_rmw(&memarg, AtomicRmwOp::Xchg, 4)?;
        visit_i32_atomic_rmw_cmpxchg(memarg: MemArg), visit_i64_atomic_rmw32_cmpxchg_u(memarg: MemArg) =>
            t.atomic_cmpxchg(&memarg, 4)?;
        visit_i64_atomic_rmw_cmpxchg(memarg: MemArg) => t.atomic_cmpxchg(&memarg, 8)?;
        visit_i32_atomic_rmw8_cmpxchg_u(memarg: MemArg), visit_i64_atomic_rmw8_cmpxchg_u(memarg: MemArg) =>
            t.atomic_cmpxchg(&memarg, 1)?;
        visit_i32_atomic_rmw16_cmpxchg_u(memarg: MemArg), visit_i64_atomic_rmw16_cmpxchg_u(memarg: MemArg) =>
            t.atomic_cmpxchg(&memarg, 2)?;
        visit_memory_atomic_wait32(memarg: MemArg) => t.atomic_wait(&memarg, 4)?;
        visit_memory_atomic_wait64(memarg: MemArg) => t.atomic_wait(&memarg, 8)?;
        visit_memory_atomic_notify(memarg: MemArg) => t.atomic_notify(&memarg)?;
        visit_atomic_fence(_ordering: Ordering) => t.atomic_fence();

        // numeric.rs
        visit_i32_const(value: i32) => t.constant(|b| b.ins().iconst(I32, value as i64));
        visit_i64_const(value: i64) => t.constant(|b| b.ins().iconst(I64, value));
        visit_f32_const(value: Ieee32) => t.constant(|b| b.ins().f32const(f32::from_bits(value.bits())));
        visit_f64_const(value: Ieee64) => t.constant(|b| b.ins().f64const(f64::from_bits(value.bits())));

        visit_i32_eqz, visit_i64_eqz => t.eqz();
        visit_i32_eq, visit_i64_eq => t.icmp(IntCC::Equal);
        visit_i32_ne, visit_i64_ne => t.icmp(IntCC::NotEqual);
        visit_i32_lt_s, visit_i64_lt_s => t.icmp(IntCC::SignedLessThan);
        visit_i32_lt_u, visit_i64_lt_u => t.icmp(IntCC::UnsignedLessThan);
        visit_i32_gt_s, visit_i64_gt_s => t.icmp(IntCC::SignedGreaterThan);
        visit_i32_gt_u, visit_i64_gt_u => t.icmp(IntCC::UnsignedGreaterThan);
        visit_i32_le_s, visit_i64_le_s => t.icmp(IntCC::SignedLessThanOrEqual);
        visit_i32_le_u, visit_i64_le_u => t.icmp(IntCC::UnsignedLessThanOrEqual);
        visit_i32_ge_s, visit_i64_ge_s => t.icmp(IntCC::SignedGreaterThanOrEqual);
        visit_i32_ge_u, visit_i64_ge_u => t.icmp(IntCC::UnsignedGreaterThanOrEqual);

        visit_f32_eq, visit_f64_eq => t.fcmp(FloatCC::Equal);
        visit_f32_ne, visit_f64_ne => t.fcmp(FloatCC::NotEqual);
        visit_f32_lt, visit_f64_lt => t.fcmp(FloatCC::LessThan);
        visit_f32_gt, visit_f64_gt => t.fcmp(FloatCC::GreaterThan);
        visit_f32_le, visit_f64_le => t.fcmp(FloatCC::LessThanOrEqual);
        visit_f32_ge, visit_f64_ge => t.fcmp(FloatCC::GreaterThanOrEqual);

        visit_i32_clz, visit_i64_clz => t.unary(|b, a| b.ins().clz(a));
        visit_i32_ctz, visit_i64_ctz => t.unary(|b, a| b.ins().ctz(a));
        visit_i32_popcnt, visit_i64_popcnt => t.unary(|b, a| b.ins().popcnt(a));
        visit_i32_add, visit_i64_add => t.binary(|b, x, y| b.ins().iadd(x, y));
        visit_i32_sub, visit_i64_sub => t.binary(|b, x, y| b.ins().isub(x, y));
        visit_i32_mul, visit_i64_mul => t.binary(|b, x, y| b.ins().imul(x, y));
        visit_i32_div_s, visit_i64_div_s => t.divide(|b, x, y| b.ins().sdiv(x, y));
        visit_i32_div_u, visit_i64_div_u => t.divide(|b, x, y| b.ins().udiv(x, y));
        visit_i32_rem_s, visit_i64_rem_s => t.divide(|b, x, y| b.ins().srem(x, y));
        visit_i32_rem_u, visit_i64_rem_u => t.divide(|b, x, y| b.ins().urem(x, y));
        visit_i32_and, visit_i64_and => t.binary(|b, x, y| b.ins().band(x, y));
        visit_i32_or, visit_i64_or => t.binary(|b, x, y| b.ins().bor(x, y));
        visit_i32_xor, visit_i64_xor => t.binary(|b, x, y| b.ins().bxor(x, y));
        visit_i32_shl, visit_i64_shl => t.binary(|b, x, y| b.ins().ishl(x, y));
        visit_i32_shr_s, visit_i64_shr_s => t.binary(|b, x, y| b.ins().sshr(x, y));
        visit_i32_shr_u, visit_i64_shr_u => t.binary(|b, x, y| b.ins().ushr(x, y));
        visit_i32_rotl, visit_i64_rotl => t.binary(|b, x, y| b.ins().rotl(x, y));
        visit_i32_rotr, visit_i64_rotr => t.binary(|b, x, y| b.ins().rotr(x, y));

        visit_f32_abs, visit_f64_abs => t.unary(|b, a| b.ins().fabs(a));
        visit_f32_neg, visit_f64_neg => t.unary(|b, a| b.ins().fneg(a));
        visit_f32_ceil, visit_f64_ceil => t.unary(|b, a| b.ins().ceil(a));
        visit_f32_floor, visit_f64_floor => t.unary(|b, a| b.ins().floor(a));
        visit_f32_trunc, visit_f64_trunc => t.unary(|b, a| b.ins().trunc(a));
        visit_f32_nearest, visit_f64_nearest => t.unary(|b, a| b.ins().nearest(a));
        visit_f32_sqrt, visit_f64_sqrt => t.unary(|b, a| b.ins().sqrt(a));
        visit_f32_add, visit_f64_add => t.binary(|b, x, y| b.ins().fadd(x, y));
        visit_f32_sub, visit_f64_sub => t.binary(|b, x, y| b.ins().fsub(x, y));
        visit_f32_mul, visit_f64_mul => t.binary(|b, x, y| b.ins().fmul(x, y));
        visit_f32_div, visit_f64_div => t.binary(|b, x, y| b.ins().fdiv(x, y));
        visit_f32_min, visit_f64_min => t.binary(|b, x, y| b.ins().fmin(x, y));
        visit_f32_max, visit_f64_max => t.binary(|b, x, y| b.ins().fmax(x, y));
        visit_f32_copysign, visit_f64_copysign => t.binary(|b, x, y| b.ins().fcopysign(x, y));

        visit_i32_wrap_i64 => t.unary(|b, a| b.ins().ireduce(I32, a));
        visit_i64_extend_i32_s => t.unary(|b, a| b.ins().sextend(I64, a));
        visit_i64_extend_i32_u => t.unary(|b, a| b.ins().uextend(I64, a));
        visit_i32_extend8_s => t.sign_extend_from(I8, I32);
        visit_i32_extend16_s => t.sign_extend_from(I16, I32);
        visit_i64_extend8_s => t.sign_extend_from(I8, I64);
        visit_i64_extend16_s => t.sign_extend_from(I16, I64);
        visit_i64_extend32_s => t.sign_extend_from(I32, I64);

        visit_i32_trunc_f32_s, visit_i32_trunc_f64_s => t.unary(|b, a| b.ins().fcvt_to_sint(I32, a));
        visit_i32_trunc_f32_u, visit_i32_trunc_f64_u => t.unary(|b, a| b.ins().fcvt_to_uint(I32, a));
        visit_i64_trunc_f32_s, visit_i64_trunc_f64_s => t.unary(|b, a| b.ins().fcvt_to_sint(I64, a));
        visit_i64_trunc_f32_u, visit_i64_trunc_f64_u => t.unary(|b, a| b.ins().fcvt_to_uint(I64, a));
        visit_i32_trunc_sat_f32_s, visit_i32_trunc_sat_f64_s => t.unary(|b, a| b.ins().fcvt_to_sint_sat(I32, a));
        visit_i32_trunc_sat_f32_u, visit_i32_trunc_sat_f64_u => t.unary(|b, a| b.ins().fcvt_to_uint_sat(I32, a));
        visit_i64_trunc_sat_f32_s, visit_i64_trunc_sat_f64_s => t.unary(|b, a| b.ins().fcvt_to_sint_sat(I64, a));
        visit_i64_trunc_sat_f32_u, visit_i64_trunc_sat_f64_u => t.unary(|b, a| b.ins().fcvt_to_uint_sat(I64, a));
        visit_f32_convert_i32_s, visit_f32_convert_i64_s => t.unary(|b, a| b.ins().fcvt_from_sint(F32, a));
        visit_f32_convert_i32_u, visit_f32_convert_i64_u => t.unary(|b, a| b.ins().fcvt_from_uint(F32, a));
        visit_f64_convert_i32_s, visit_f64_convert_i64_s => t.unary(|b, a| b.ins().fcvt_from_sint(F64, a));
        visit_f64_convert_i32_u, visit_f64_convert_i64_u => t.unary(|b, a| b.ins().fcvt_from_uint(F64, a));
        visit_f32_demote_f64 => t.unary(|b, a| b.ins().fdemote(F32, a));
        visit_f64_promote_f32 => t.unary(|b, a| b.ins().fpromote(F64, a));
        visit_i32_reinterpret_f32 => t.bitcast(I32);
        visit_i64_reinterpret_f64 => t.bitcast(I64);
        visit_f32_reinterpret_i32 => t.bitcast(F32);
        visit_f64_reinterpret_i64 => t.bitcast(F64);

        // wide.rs
        visit_i64_add128 => t.add_sub128(false);
        visit_i64_sub128 => t.add_sub128(true);
        visit_i64_mul_wide_s => t.mul_wide(true);
        visit_i64_mul_wide_u => t.mul_wide(false);
    }

    // A `select` with other than one result is never valid (wasmparser
    // rejects it), but it has an operator of its own.
    unsupported! { "reference types": visit_typed_select_multi(Vec<ValType>) }

    // Proposals we do not compile. memory64 has no operators of its own
    // (it widens the index operands); the parser refuses 64-bit memories.
    unsupported! { "custom descriptors":
        visit_struct_new_desc(u32), visit_struct_new_default_desc(u32), visit_ref_get_desc(u32),
        visit_ref_cast_desc_eq_non_null(HeapType), visit_ref_cast_desc_eq_nullable(HeapType),
        visit_br_on_cast_desc_eq(u32, RefType, RefType), visit_br_on_cast_desc_eq_fail(u32, RefType, RefType),
    }
    unsupported! { "stack switching":
        visit_cont_new(u32), visit_cont_bind(u32, u32), visit_suspend(u32), visit_resume(u32, ResumeTable),
        visit_resume_throw(u32, u32, ResumeTable), visit_resume_throw_ref(u32, ResumeTable), visit_switch(u32, u32),
    }
    unsupported! { "memory control":
        visit_memory_discard(u32),
    }
    unsupported! { "shared-everything threads":
        visit_global_atomic_get(Ordering, u32), visit_global_atomic_set(Ordering, u32),
        visit_global_atomic_rmw_add(Ordering, u32), visit_global_atomic_rmw_sub(Ordering, u32),
        visit_global_atomic_rmw_and(Ordering, u32), visit_global_atomic_rmw_or(Ordering, u32),
        visit_global_atomic_rmw_xor(Ordering, u32), visit_global_atomic_rmw_xchg(Ordering, u32),
        visit_global_atomic_rmw_cmpxchg(Ordering, u32), visit_table_atomic_get(Ordering, u32),
        visit_table_atomic_set(Ordering, u32), visit_table_atomic_rmw_xchg(Ordering, u32),
        visit_table_atomic_rmw_cmpxchg(Ordering, u32), visit_struct_atomic_get(Ordering, u32, u32),
        visit_struct_atomic_get_s(Ordering, u32, u32), visit_struct_atomic_get_u(Ordering, u32, u32),
        visit_struct_atomic_set(Ordering, u32, u32), visit_struct_atomic_rmw_add(Ordering, u32, u32),
        visit_struct_atomic_rmw_sub(Ordering, u32, u32), visit_struct_atomic_rmw_and(Ordering, u32, u32),
        visit_struct_atomic_rmw_or(Ordering, u32, u32), visit_struct_atomic_rmw_xor(Ordering, u32, u32),
        visit_struct_atomic_rmw_xchg(Ordering, u32, u32), visit_struct_atomic_rmw_cmpxchg(Ordering, u32, u32),
        visit_array_atomic_get(Ordering, u32), visit_array_atomic_get_s(Ordering, u32),
        visit_array_atomic_get_u(Ordering, u32), visit_array_atomic_set(Ordering, u32),
        visit_array_atomic_rmw_add(Ordering, u32), visit_array_atomic_rmw_sub(Ordering, u32),
        visit_array_atomic_rmw_and(Ordering, u32), visit_array_atomic_rmw_or(Ordering, u32),
        visit_array_atomic_rmw_xor(Ordering, u32), visit_array_atomic_rmw_xchg(Ordering, u32),
        visit_array_atomic_rmw_cmpxchg(Ordering, u32), visit_ref_i31_shared(),
    }
    unsupported! { "acquire-release atomics":
        visit_pause(),
    }
}
