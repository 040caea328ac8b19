//! GC's struct and array operators (issue 40, stage 2), on objects of the
//! store's heap (`func_env::gc_heap`, layout in `environ::gc_layout`).
//! Reference fields of the `any` hierarchy take 32 bits; the others
//! (functions, externs, exceptions) a whole pointer.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};

use super::Translator;
use crate::compile::func_env::{gc_object_flags, ir_type};
use crate::compile::trap_codes::ToClif;
use crate::environ::builtins::Builtin;
use crate::environ::gc_layout::{HEADER, LEN, TAG};
use crate::environ::gc_layout::{
    INIT_ARRAY_OUT_OF_BOUNDS, INIT_SEGMENT_OUT_OF_BOUNDS, NEW_OUT_OF_BOUNDS, NEW_OUT_OF_MEMORY,
};
use crate::environ::index::TypeIndex;
use crate::environ::trap::TrapCode;
use crate::environ::types::{CompositeType, FieldType, StorageType};

/// How `struct.get`/`array.get` extend a packed field.
#[derive(Copy, Clone)]
pub(super) enum Ext {
    None,
    Signed,
    Unsigned,
}

impl Translator<'_, '_> {
    fn field_type(&self, t: TypeIndex, field: u32) -> (FieldType, u32, u32) {
        let info = self.env.info();
        let (places, _) = info.gc_layouts[t].as_struct();
        let CompositeType::Struct(fields) = &info.types[t].composite else { panic!("validated: a struct type") };
        let (at, size) = places[field as usize];
        (fields[field as usize], at, size)
    }

    fn elem_type(&self, t: TypeIndex) -> (FieldType, u32) {
        let info = self.env.info();
        let CompositeType::Array(f) = &info.types[t].composite else { panic!("validated: an array type") };
        (*f, info.gc_layouts[t].elem_size())
    }

    /// Loads a field of `storage` (`size` bytes) at `p + at`, as its value
    /// type.
    fn load_field(&mut self, storage: StorageType, size: u32, p: Value, at: i32, ext: Ext) -> Value {
        let f = gc_object_flags();
        let b = &mut self.b;
        match storage {
            StorageType::I8 => match ext {
                Ext::Signed => b.ins().sload8(types::I32, f, p, at),
                _ => b.ins().uload8(types::I32, f, p, at),
            },
            StorageType::I16 => match ext {
                Ext::Signed => b.ins().sload16(types::I32, f, p, at),
                _ => b.ins().uload16(types::I32, f, p, at),
            },
            StorageType::Val(v) if v.is_ref() && size == 4 => b.ins().uload32(f, p, at),
            StorageType::Val(v) => b.ins().load(ir_type(v), f, p, at),
        }
    }

    /// Stores `v` into a field of `storage` (`size` bytes) at `p + at`.
    fn store_field(&mut self, storage: StorageType, size: u32, v: Value, p: Value, at: i32) {
        let f = gc_object_flags();
        let b = &mut self.b;
        match storage {
            StorageType::I8 => b.ins().istore8(f, v, p, at),
            StorageType::I16 => b.ins().istore16(f, v, p, at),
            StorageType::Val(r) if r.is_ref() && size == 4 => b.ins().istore32(f, v, p, at),
            StorageType::Val(_) => b.ins().store(f, v, p, at),
        };
    }

    fn null_check(&mut self, r: Value, code: TrapCode) {
        self.b.ins().trapz(r, code.to_clif());
    }

    pub(super) fn struct_new(&mut self, t: TypeIndex, default: bool) {
        let (places, size) = self.env.info().gc_layouts[t].as_struct();
        let places = places.to_vec();
        let values = match default {
            true => Vec::new(),
            false => self.popn(places.len()),
        };
        let size = self.b.ins().iconst(types::I64, i64::from(size));
        let word = self.env.gc_new(&mut self.b, t, size, None);
        if !values.is_empty() {
            let p = self.env.gc_ptr(&mut self.b, word);
            for (i, v) in values.into_iter().enumerate() {
                let (field, at, size) = self.field_type(t, i as u32);
                self.store_field(field.storage, size, v, p, at as i32 - TAG as i32);
            }
        }
        self.push1(word);
    }

    pub(super) fn struct_get(&mut self, t: TypeIndex, field: u32, ext: Ext) {
        let r = self.pop1();
        self.null_check(r, TrapCode::NullStructReference);
        let (f, at, size) = self.field_type(t, field);
        let p = self.env.gc_ptr(&mut self.b, r);
        let v = self.load_field(f.storage, size, p, at as i32 - TAG as i32, ext);
        self.push1(v);
    }

    pub(super) fn struct_set(&mut self, t: TypeIndex, field: u32) {
        let (r, v) = self.pop2();
        self.null_check(r, TrapCode::NullStructReference);
        let (f, at, size) = self.field_type(t, field);
        let p = self.env.gc_ptr(&mut self.b, r);
        self.store_field(f.storage, size, v, p, at as i32 - TAG as i32);
    }

    /// A new array of type `t` with `len` (an i32) zeroed elements.
    fn new_array(&mut self, t: TypeIndex, len: Value) -> Value {
        let (_, size) = self.elem_type(t);
        let bytes = self.env.gc_array_size(&mut self.b, len, size);
        self.env.gc_new(&mut self.b, t, bytes, Some(len))
    }

    /// `array.new` (`default` false) or `array.new_default`.
    pub(super) fn array_new(&mut self, t: TypeIndex, default: bool) {
        let len = self.pop1();
        let value = (!default).then(|| self.pop1());
        let word = self.new_array(t, len);
        if let Some(v) = value {
            let zero = self.b.ins().iconst(types::I32, 0);
            self.fill(t, word, zero, v, len);
        }
        self.push1(word);
    }

    pub(super) fn array_new_fixed(&mut self, t: TypeIndex, n: u32) {
        let values = self.popn(n as usize);
        let len = self.b.ins().iconst(types::I32, i64::from(n));
        let word = self.new_array(t, len);
        let (f, size) = self.elem_type(t);
        let p = self.env.gc_ptr(&mut self.b, word);
        for (i, v) in values.into_iter().enumerate() {
            let at = (HEADER + i as u32 * size) as i32 - TAG as i32;
            self.store_field(f.storage, size, v, p, at);
        }
        self.push1(word);
    }

    /// `array.new_data` (`elem` false) or `array.new_elem` of segment
    /// `seg`.
    pub(super) fn array_new_segment(&mut self, t: TypeIndex, seg: u32, elem: bool) {
        let (src, len) = self.pop2();
        let t_arg = self.b.ins().iconst(types::I32, i64::from(t.as_u32()));
        let seg_arg = self.b.ins().iconst(types::I32, i64::from(seg));
        let (builtin, oob) = match elem {
            false => (Builtin::array_new_data, TrapCode::MemoryOutOfBounds),
            true => (Builtin::array_new_elem, TrapCode::TableOutOfBounds),
        };
        let word = self.env.call_gc_builtin(&mut self.b, builtin, &[t_arg, seg_arg, src, len]).expect("returns");
        let bad = self.b.ins().icmp_imm_u(IntCC::Equal, word, NEW_OUT_OF_BOUNDS as i64);
        self.b.ins().trapnz(bad, oob.to_clif());
        let full = self.b.ins().icmp_imm_u(IntCC::Equal, word, NEW_OUT_OF_MEMORY as i64);
        self.b.ins().trapnz(full, TrapCode::OutOfMemory.to_clif());
        self.push1(word);
    }

    /// The address of element `i` (an i32) of array `r` (non-null), less
    /// the tag and header (which the access's offset adds), after the
    /// bounds check.
    fn element(&mut self, t: TypeIndex, r: Value, i: Value) -> Value {
        let len = self.env.gc_load(&mut self.b, types::I32, r, LEN);
        let out = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, i, len);
        self.b.ins().trapnz(out, TrapCode::ArrayOutOfBounds.to_clif());
        let (_, size) = self.elem_type(t);
        let p = self.env.gc_ptr(&mut self.b, r);
        let i = self.b.ins().uextend(types::I64, i);
        let scaled = self.b.ins().imul_imm_u(i, i64::from(size));
        self.b.ins().iadd(p, scaled)
    }

    pub(super) fn array_get(&mut self, t: TypeIndex, ext: Ext) {
        let (r, i) = self.pop2();
        self.null_check(r, TrapCode::NullArrayReference);
        let p = self.element(t, r, i);
        let (f, size) = self.elem_type(t);
        let v = self.load_field(f.storage, size, p, HEADER as i32 - TAG as i32, ext);
        self.push1(v);
    }

    pub(super) fn array_set(&mut self, t: TypeIndex) {
        let [r, i, v] = self.pop3();
        self.null_check(r, TrapCode::NullArrayReference);
        let p = self.element(t, r, i);
        let (f, size) = self.elem_type(t);
        self.store_field(f.storage, size, v, p, HEADER as i32 - TAG as i32);
    }

    pub(super) fn array_len(&mut self) {
        let r = self.pop1();
        self.null_check(r, TrapCode::NullArrayReference);
        let len = self.env.gc_load(&mut self.b, types::I32, r, LEN);
        self.push1(len);
    }

    /// Fills elements `i..i + len` of array `r` (non-null) of type `t`
    /// with `v` (the `array_fill` builtin traps when out of bounds).
    fn fill(&mut self, t: TypeIndex, r: Value, i: Value, v: Value, len: Value) {
        let (_, size) = self.elem_type(t);
        let ty = self.b.func.dfg.value_type(v);
        let (lo, hi) = match ty {
            types::I8X16 => {
                let wide = self.b.ins().bitcast(types::I128, super::simd::cast_flags(), v);
                self.b.ins().isplit(wide)
            }
            _ => {
                let bits = match ty {
                    types::F32 => self.b.ins().bitcast(types::I32, cranelift_codegen::ir::MemFlagsData::new(), v),
                    types::F64 => self.b.ins().bitcast(types::I64, cranelift_codegen::ir::MemFlagsData::new(), v),
                    _ => v,
                };
                let lo = match self.b.func.dfg.value_type(bits) {
                    types::I64 => bits,
                    _ => self.b.ins().uextend(types::I64, bits),
                };
                (lo, self.b.ins().iconst(types::I64, 0))
            }
        };
        let size = self.b.ins().iconst(types::I32, i64::from(size));
        self.env.call_gc_builtin(&mut self.b, Builtin::array_fill, &[r, i, lo, hi, len, size]);
    }

    pub(super) fn array_fill(&mut self, t: TypeIndex) {
        let len = self.pop1();
        let [r, i, v] = self.pop3();
        self.null_check(r, TrapCode::NullArrayReference);
        self.fill(t, r, i, v, len);
    }

    pub(super) fn array_copy(&mut self, dst_t: TypeIndex) {
        let (src_i, len) = self.pop2();
        let [dst, dst_i, src] = self.pop3();
        self.null_check(dst, TrapCode::NullArrayReference);
        self.null_check(src, TrapCode::NullArrayReference);
        let (_, size) = self.elem_type(dst_t);
        let size = self.b.ins().iconst(types::I32, i64::from(size));
        self.env.call_gc_builtin(&mut self.b, Builtin::array_copy, &[dst, dst_i, src, src_i, len, size]);
    }

    /// `array.init_data` (`elem` false) or `array.init_elem` of segment
    /// `seg`.
    pub(super) fn array_init_segment(&mut self, t: TypeIndex, seg: u32, elem: bool) {
        let (src, len) = self.pop2();
        let (r, dst) = self.pop2();
        self.null_check(r, TrapCode::NullArrayReference);
        let t_arg = self.b.ins().iconst(types::I32, i64::from(t.as_u32()));
        let seg_arg = self.b.ins().iconst(types::I32, i64::from(seg));
        let (builtin, oob) = match elem {
            false => (Builtin::array_init_data, TrapCode::MemoryOutOfBounds),
            true => (Builtin::array_init_elem, TrapCode::TableOutOfBounds),
        };
        let status =
            self.env.call_gc_builtin(&mut self.b, builtin, &[t_arg, r, dst, seg_arg, src, len]).expect("returns");
        let bad_array = self.b.ins().icmp_imm_u(IntCC::Equal, status, i64::from(INIT_ARRAY_OUT_OF_BOUNDS));
        self.b.ins().trapnz(bad_array, TrapCode::ArrayOutOfBounds.to_clif());
        let bad_seg = self.b.ins().icmp_imm_u(IntCC::Equal, status, i64::from(INIT_SEGMENT_OUT_OF_BOUNDS));
        self.b.ins().trapnz(bad_seg, oob.to_clif());
    }

    pub(super) fn any_convert_extern(&mut self) {
        let r = self.pop1();
        let v = self.env.gc_internalize(&mut self.b, r);
        self.push1(v);
    }

    pub(super) fn extern_convert_any(&mut self) {
        let r = self.pop1();
        let v = self.env.gc_externalize(&mut self.b, r);
        self.push1(v);
    }
}
