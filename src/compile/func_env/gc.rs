//! What GC's operators need of the environment (issue 40, stage 1): type
//! checks of function references against a module type, with subtyping.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::{trusted, FuncEnv, POINTER};
use crate::environ::index::TypeIndex;
use crate::environ::vmctx::VMFuncRef;

impl FuncEnv<'_> {
    /// Whether the non-null function reference `func_ref`, whose signature
    /// id `sig` was loaded, may be used as one of the module's function
    /// type `ty` (an `i8`): its own id, or for a non-final `ty` also a
    /// declared subtype's. The exact compare is the fast path, and for a
    /// final type the whole check (no other type is its subtype). Else the
    /// callee's supertype display says, in three loads: `ty`'s id must be
    /// at `ty`'s depth in it.
    pub fn sig_matches(&mut self, b: &mut FunctionBuilder, func_ref: Value, sig: Value, ty: TypeIndex) -> Value {
        let expected = self.signature_id(b, ty);
        let same = b.ins().icmp(IntCC::Equal, sig, expected);
        if self.info().types[ty].is_final {
            return same;
        }
        let depth = self.info().type_depths[ty];
        // A non-plain type's signature id is its canonical id, tagged.
        display_check(
            b,
            same,
            depth,
            |b| b.ins().load(POINTER, trusted().with_readonly(), func_ref, VMFuncRef::DISPLAY),
            |b| b.ins().ireduce(types::I32, expected),
        )
    }

    /// [`sig_matches`](Self::sig_matches) for the non-null function
    /// reference `func_ref`.
    pub fn func_ref_matches(&mut self, b: &mut FunctionBuilder, func_ref: Value, ty: TypeIndex) -> Value {
        let sig = b.ins().load(POINTER, trusted().with_readonly(), func_ref, VMFuncRef::SIG);
        self.sig_matches(b, func_ref, sig, ty)
    }
}

/// The slow path of a subtype check against a non-final type at
/// subtyping depth `depth`, shared by function references and GC
/// objects: when the exact compare `same` failed, whether the value's
/// supertype display (`display`, loaded on that cold path) has at
/// least `depth + 1` entries and the type's id (`expected_id`, an i32)
/// at `depth`. Returns the answer as an `i8`.
pub(super) fn display_check(
    b: &mut FunctionBuilder,
    same: Value,
    depth: u32,
    display: impl FnOnce(&mut FunctionBuilder) -> Value,
    expected_id: impl FnOnce(&mut FunctionBuilder) -> Value,
) -> Value {
    let display_check = b.create_block();
    let entry_check = b.create_block();
    let done = b.create_block();
    let result = b.append_block_param(done, types::I8);
    b.set_cold_block(display_check);
    b.ins().brif(same, done, &[same.into()], display_check, &[]);
    b.switch_to_block(display_check);
    b.seal_block(display_check);
    let flags = trusted().with_readonly();
    let display = display(b);
    let len = b.ins().load(types::I32, flags, display, 0);
    let deep_enough = b.ins().icmp_imm_u(IntCC::UnsignedGreaterThan, len, i64::from(depth));
    let no = b.ins().iconst(types::I8, 0);
    b.ins().brif(deep_enough, entry_check, &[], done, &[no.into()]);
    b.switch_to_block(entry_check);
    b.seal_block(entry_check);
    let offset = i32::try_from(4 * (1 + depth)).expect("subtyping depth is at most 63");
    let id = b.ins().load(types::I32, flags, display, offset);
    let expected_id = expected_id(b);
    let ok = b.ins().icmp(IntCC::Equal, id, expected_id);
    b.ins().jump(done, &[ok.into()]);
    b.switch_to_block(done);
    b.seal_block(done);
    result
}
