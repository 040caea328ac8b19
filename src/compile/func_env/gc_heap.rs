//! How compiled code reaches the store's GC heap (issue 40, stage 2):
//! object addresses, the inline bump allocation, object headers and type
//! tests of heap references. The layout is `environ::gc_layout`'s.
//!
//! Every address is `gc_base + zext32(word) + (offset - tag)`: only the low
//! 32 bits of a reference word are used, so even a corrupted word reaches
//! no further than the heap's reservation and its guard.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, MemFlagsData, Value};
use cranelift_frontend::FunctionBuilder;

use super::{trusted, FuncEnv, POINTER};
use crate::compile::trap_codes::ToClif;
use crate::environ::builtins::Builtin;
use crate::environ::gc_layout::{ALIGN, ARRAY_BIT, BOX_TAG, DISPLAY, HEADER, ID, LEN, TAG};
use crate::environ::index::TypeIndex;
use crate::environ::trap::TrapCode;
use crate::environ::vmctx::{header, VMStoreContext};

/// Flags of accesses to heap objects: they never trap (the heap is
/// committed where objects are), and they may alias anything.
pub(crate) fn object() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

impl FuncEnv<'_> {
    fn store_ctx(&mut self, b: &mut FunctionBuilder) -> Value {
        self.load_vmctx_ptr(b, header::STORE as u32)
    }

    /// The address of heap offset 0 plus the low 32 bits of `word`: an
    /// object's address plus its tag.
    pub fn gc_ptr(&mut self, b: &mut FunctionBuilder, word: Value) -> Value {
        let ctx = self.store_ctx(b);
        // Not read-only: the first allocation sets it.
        let base = b.ins().load(POINTER, trusted(), ctx, VMStoreContext::GC_BASE);
        let low = b.ins().ireduce(types::I32, word);
        let offset = b.ins().uextend(POINTER, low);
        b.ins().iadd(base, offset)
    }

    /// Loads a `ty` at byte `at` of the object `word` (tagged `tag`).
    pub fn gc_load(&mut self, b: &mut FunctionBuilder, ty: types::Type, word: Value, at: i32) -> Value {
        let p = self.gc_ptr(b, word);
        b.ins().load(ty, object(), p, at - TAG as i32)
    }

    /// `size` (an i64) new zeroed bytes of the heap: a bump of the
    /// store's top within its limit, or the `gc_alloc` builtin when the
    /// chunk is exhausted (which traps when the heap is full). The new
    /// offset, as an i32.
    pub fn gc_alloc(&mut self, b: &mut FunctionBuilder, size: Value) -> Value {
        let ctx = self.store_ctx(b);
        let top = b.ins().load(types::I32, trusted(), ctx, VMStoreContext::GC_TOP);
        let limit = b.ins().load(types::I32, trusted(), ctx, VMStoreContext::GC_LIMIT);
        let top64 = b.ins().uextend(types::I64, top);
        let limit64 = b.ins().uextend(types::I64, limit);
        let end = b.ins().iadd(top64, size);
        // `size` may be huge (an array's): compare at 64 bits, where the
        // sum cannot wrap.
        let fits = b.ins().icmp(IntCC::UnsignedLessThanOrEqual, end, limit64);
        let fast = b.create_block();
        let slow = b.create_block();
        let done = b.create_block();
        let offset = b.append_block_param(done, types::I32);
        b.set_cold_block(slow);
        b.ins().brif(fits, fast, &[], slow, &[]);
        b.switch_to_block(fast);
        b.seal_block(fast);
        let end32 = b.ins().ireduce(types::I32, end);
        b.ins().store(trusted(), end32, ctx, VMStoreContext::GC_TOP);
        b.ins().jump(done, &[top.into()]);
        b.switch_to_block(slow);
        b.seal_block(slow);
        let got = self.call_builtin(b, Builtin::gc_alloc, &[size]).expect("gc_alloc returns");
        b.ins().trapz(got, TrapCode::OutOfMemory.to_clif());
        b.ins().jump(done, &[got.into()]);
        b.switch_to_block(done);
        b.seal_block(done);
        offset
    }

    /// A new object of the module's struct or array type `t`, of `size`
    /// bytes (an i64, a multiple of [`ALIGN`]), with its header written
    /// (`len`, an i32, for an array). Its reference word.
    pub fn gc_new(&mut self, b: &mut FunctionBuilder, t: TypeIndex, size: Value, len: Option<Value>) -> Value {
        let o = self.gc_alloc(b, size);
        let o64 = b.ins().uextend(types::I64, o);
        let word = b.ins().bor_imm_u(o64, TAG);
        let id = self.signature_id(b, t);
        let id = b.ins().ireduce(types::I32, id);
        let display = self.load_vmctx_ptr(b, self.offsets().type_display(t));
        let p = self.gc_ptr(b, word);
        let at = |field: i32| field - TAG as i32;
        let id = match len {
            Some(len) => {
                b.ins().store(object(), len, p, at(LEN));
                b.ins().bor_imm_u(id, i64::from(ARRAY_BIT))
            }
            None => id,
        };
        b.ins().store(object(), id, p, at(ID));
        b.ins().store(object(), display, p, at(DISPLAY));
        word
    }

    /// The size of an array of `len` (an i32) elements of `elem_size`
    /// bytes, as an i64 (which cannot wrap).
    pub fn gc_array_size(&mut self, b: &mut FunctionBuilder, len: Value, elem_size: u32) -> Value {
        let len = b.ins().uextend(types::I64, len);
        let bytes = b.ins().imul_imm_u(len, i64::from(elem_size));
        let bytes = b.ins().iadd_imm_u(bytes, i64::from(HEADER + ALIGN - 1));
        b.ins().band_imm_u(bytes, !(i64::from(ALIGN) - 1))
    }

    /// Whether the non-null reference `word` is a heap object of the
    /// module's struct or array type `t` (or, if `t` is not final, of a
    /// subtype), as an `i8`. The caller checked that `word` is a struct
    /// or array object (tag `...010`).
    pub fn gc_object_matches(&mut self, b: &mut FunctionBuilder, word: Value, t: TypeIndex) -> Value {
        let id = self.gc_load(b, types::I32, word, ID);
        let expected = self.signature_id(b, t);
        let expected = b.ins().ireduce(types::I32, expected);
        let is_array = matches!(self.info().types[t].composite, crate::environ::types::CompositeType::Array(_));
        let expected_word = match is_array {
            true => b.ins().bor_imm_u(expected, i64::from(ARRAY_BIT)),
            false => expected,
        };
        let same = b.ins().icmp(IntCC::Equal, id, expected_word);
        if self.info().types[t].is_final {
            return same;
        }
        let depth = self.info().type_depths[t];
        // A struct's display never matches an array type: ids differ.
        super::gc::display_check(b, same, depth, |b| self.gc_load(b, POINTER, word, DISPLAY), |_| expected)
    }

    /// Calls GC builtin `builtin` (see `call_builtin`).
    pub fn call_gc_builtin(&mut self, b: &mut FunctionBuilder, builtin: Builtin, args: &[Value]) -> Option<Value> {
        self.call_builtin(b, builtin, args)
    }

    /// `any.convert_extern`: a non-null host pointer (low bits 00) is
    /// boxed in the heap (`gc_box`, which traps when the heap is full);
    /// every other word is already an `any` value.
    pub fn gc_internalize(&mut self, b: &mut FunctionBuilder, r: Value) -> Value {
        let low = b.ins().band_imm_u(r, 0b11);
        let tagged = b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
        let null = b.ins().icmp_imm_u(IntCC::Equal, r, 0);
        let keep = b.ins().bor(tagged, null);
        let boxing = b.create_block();
        let done = b.create_block();
        let result = b.append_block_param(done, POINTER);
        b.set_cold_block(boxing);
        b.ins().brif(keep, done, &[r.into()], boxing, &[]);
        b.switch_to_block(boxing);
        b.seal_block(boxing);
        let boxed = self.call_builtin(b, Builtin::gc_box, &[r]).expect("gc_box returns");
        b.ins().trapz(boxed, TrapCode::OutOfMemory.to_clif());
        b.ins().jump(done, &[boxed.into()]);
        b.switch_to_block(done);
        b.seal_block(done);
        result
    }

    /// `extern.convert_any`: a box's host pointer; any other word as it is.
    pub fn gc_externalize(&mut self, b: &mut FunctionBuilder, r: Value) -> Value {
        let low = b.ins().band_imm_u(r, 0b111);
        let boxed = b.ins().icmp_imm_u(IntCC::Equal, low, BOX_TAG);
        let unbox = b.create_block();
        let done = b.create_block();
        let result = b.append_block_param(done, POINTER);
        b.ins().brif(boxed, unbox, &[], done, &[r.into()]);
        b.switch_to_block(unbox);
        b.seal_block(unbox);
        let p = self.gc_ptr(b, r);
        let host = b.ins().load(POINTER, object(), p, DISPLAY - BOX_TAG as i32);
        b.ins().jump(done, &[host.into()]);
        b.switch_to_block(done);
        b.seal_block(done);
        result
    }
}
