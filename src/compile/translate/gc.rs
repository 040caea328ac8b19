//! GC's operators on references (issue 40): `ref.i31`, `i31.get_s/u`,
//! `ref.eq`, `ref.test`, `ref.cast` and `br_on_cast[_fail]`; struct and
//! array objects are `gc_objects.rs`'s.
//!
//! A reference is one pointer-sized word in every hierarchy (see
//! `src/runtime/vm/gc/README.md`): 0 is null, an odd word is an i31
//! (`(v << 1) | 1`), a word ending in binary 010 is a struct or array
//! object of the store's heap and one ending in 110 a box of host data made
//! internal, and any other is a host pointer: a `VMFuncRef`, host extern
//! data or an exception.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use wasmparser::{AbstractHeapType as A, HeapType, RefType};

use super::Translator;
use crate::compile::trap_codes::ToClif;
use crate::environ::index::TypeIndex;
use crate::environ::trap::TrapCode;

/// What a test against a heap type asks of a non-null reference.
enum Test {
    /// The answer, whatever the reference.
    Always(bool),
    /// Whether any of these low bits is set (an i31: bit 0; an i31 or a
    /// heap object, the `eq` values: bits 0 and 1).
    LowBits(i64),
    /// Whether the function reference is of this module type.
    FuncType(TypeIndex),
    /// An i31, or a struct or array object: the `eq` values.
    Eq,
    /// Whether the reference is a struct or array object (not an extern
    /// box), and then of this kind.
    Object(ObjectTest),
}

/// What a test asks of a struct or array object.
#[derive(Copy, Clone)]
enum ObjectTest {
    Struct,
    Array,
    /// Of this module type, or a subtype.
    Type(TypeIndex),
}

impl Translator<'_, '_> {
    /// `ref.i31`: the low 31 bits of the operand, shifted up and tagged.
    pub(super) fn ref_i31(&mut self) {
        let x = self.pop1();
        let shifted = self.b.ins().ishl_imm_u(x, 1);
        let tagged = self.b.ins().bor_imm_u(shifted, 1);
        let r = self.b.ins().uextend(types::I64, tagged);
        self.push1(r);
    }

    /// `i31.get_s`/`i31.get_u`: traps on null, else shifts the tag out.
    pub(super) fn i31_get(&mut self, signed: bool) {
        let r = self.pop1();
        self.b.ins().trapz(r, TrapCode::NullI31Reference.to_clif());
        let word = self.b.ins().ireduce(types::I32, r);
        let v = match signed {
            true => self.b.ins().sshr_imm_u(word, 1),
            false => self.b.ins().ushr_imm_u(word, 1),
        };
        self.push1(v);
    }

    /// `ref.eq`: the same word (an i31 is its value; an object its
    /// address).
    pub(super) fn ref_eq(&mut self) {
        let b = self.pop1();
        let a = self.pop1();
        let same = self.b.ins().icmp(IntCC::Equal, a, b);
        let v = self.b.ins().uextend(types::I32, same);
        self.push1(v);
    }

    /// `ref.test`.
    pub(super) fn ref_test(&mut self, heap: HeapType, nullable: bool) {
        let r = self.pop1();
        let ok = self.ref_is(r, heap, nullable);
        let v = self.b.ins().uextend(types::I32, ok);
        self.push1(v);
    }

    /// `ref.cast`: traps unless the reference is of the type; leaves it.
    pub(super) fn ref_cast(&mut self, heap: HeapType, nullable: bool) {
        let r = *self.top(1).last().expect("validated: operand present");
        let ok = self.ref_is(r, heap, nullable);
        self.b.ins().trapz(ok, TrapCode::CastFailure.to_clif());
    }

    /// `br_on_cast` (`fail` false) or `br_on_cast_fail`: branches with the
    /// reference when it is (is not) of type `to`, else goes on with it.
    pub(super) fn br_on_cast(&mut self, depth: u32, to: RefType, fail: bool) {
        let r = *self.top(1).last().expect("validated: operand present");
        let ok = self.ref_is(r, to.heap_type(), to.is_nullable());
        let cond = match fail {
            false => ok,
            true => self.b.ins().icmp_imm_u(IntCC::Equal, ok, 0),
        };
        self.branch(depth, Some(cond));
    }

    /// Whether reference `r` is of type `(ref null? heap)`, as an `i8`.
    /// Validation proves `r` of `heap`'s hierarchy.
    fn ref_is(&mut self, r: Value, heap: HeapType, nullable: bool) -> Value {
        let test = match heap {
            HeapType::Abstract { ty, .. } => match ty {
                A::Any | A::Func | A::Extern | A::Exn => Test::Always(true),
                A::Eq => Test::Eq,
                A::I31 => Test::LowBits(0b01),
                A::Struct => Test::Object(ObjectTest::Struct),
                A::Array => Test::Object(ObjectTest::Array),
                A::None | A::NoFunc | A::NoExtern | A::NoExn | A::Cont | A::NoCont => Test::Always(false),
            },
            HeapType::Concrete(i) | HeapType::Exact(i) => {
                let t = TypeIndex::from_u32(i.as_module_index().expect("validated: a module index"));
                match self.env.info().types[t].as_func() {
                    Some(_) => Test::FuncType(t),
                    None => Test::Object(ObjectTest::Type(t)),
                }
            }
        };
        let is_null = self.b.ins().icmp_imm_u(IntCC::Equal, r, 0);
        match test {
            Test::Always(answer) => match (answer, nullable) {
                (true, true) => self.b.ins().iconst(types::I8, 1),
                (true, false) => self.b.ins().icmp_imm_u(IntCC::NotEqual, r, 0),
                (false, true) => is_null,
                (false, false) => self.b.ins().iconst(types::I8, 0),
            },
            Test::LowBits(bits) => {
                // Null has no low bit set.
                let low = self.b.ins().band_imm_u(r, bits);
                let set = self.b.ins().icmp_imm_u(IntCC::NotEqual, low, 0);
                match nullable {
                    true => self.b.ins().bor(set, is_null),
                    false => set,
                }
            }
            Test::Eq => {
                let i31 = self.b.ins().band_imm_u(r, 1);
                let i31 = self.b.ins().icmp_imm_u(IntCC::NotEqual, i31, 0);
                let object = self.is_object(r);
                let set = self.b.ins().bor(i31, object);
                match nullable {
                    true => self.b.ins().bor(set, is_null),
                    false => set,
                }
            }
            Test::FuncType(t) => self.test_non_null(r, is_null, nullable, |t_, r| {
                let env = &mut t_.env;
                env.func_ref_matches(&mut t_.b, r, t)
            }),
            Test::Object(what) => {
                let object = self.is_object(r);
                let not_object = self.b.ins().icmp_imm_u(IntCC::Equal, object, 0);
                let ok = self.test_non_null(r, not_object, false, |t_, r| match what {
                    ObjectTest::Type(t) => t_.env.gc_object_matches(&mut t_.b, r, t),
                    ObjectTest::Struct | ObjectTest::Array => {
                        let id = t_.env.gc_load(&mut t_.b, types::I32, r, crate::environ::gc_layout::ID);
                        // The array bit is the id word's sign.
                        let cc = match what {
                            ObjectTest::Array => IntCC::SignedLessThan,
                            _ => IntCC::SignedGreaterThanOrEqual,
                        };
                        t_.b.ins().icmp_imm_u(cc, id, 0)
                    }
                });
                match nullable {
                    true => self.b.ins().bor(ok, is_null),
                    false => ok,
                }
            }
        }
    }

    /// Whether `r` names a struct or array object (tag `...010`), as an i8.
    fn is_object(&mut self, r: Value) -> Value {
        let low = self.b.ins().band_imm_u(r, 0b111);
        self.b.ins().icmp_imm_u(IntCC::Equal, low, crate::environ::gc_layout::TAG)
    }

    /// `check(r)` where `skip` is false, else `skip_answer` (an i8),
    /// without running the check.
    fn test_non_null(
        &mut self,
        r: Value,
        skip: Value,
        skip_answer: bool,
        check: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Value {
        let check_block = self.b.create_block();
        let done = self.b.create_block();
        let result = self.b.append_block_param(done, types::I8);
        let answer = self.b.ins().iconst(types::I8, i64::from(skip_answer));
        self.b.ins().brif(skip, done, &[answer.into()], check_block, &[]);
        self.b.switch_to_block(check_block);
        self.b.seal_block(check_block);
        let ok = check(self, r);
        self.b.ins().jump(done, &[ok.into()]);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        result
    }
}
