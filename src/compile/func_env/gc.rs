//! What GC's operators need of the environment (issue 40, stage 1): type
//! checks of function references against a module type, with subtyping.

use cranelift_codegen::ir::{condcodes::IntCC, types, InstBuilder, Value};
use cranelift_frontend::FunctionBuilder;

use super::{trusted, FuncEnv, POINTER};
use crate::environ::builtins::Builtin;
use crate::environ::index::TypeIndex;
use crate::environ::vmctx::VMFuncRef;

impl FuncEnv<'_> {
    /// Whether a function of signature id `sig` may be used as one of the
    /// module's function type `ty` (an `i8`): its own id, or for a
    /// non-final `ty` also a declared subtype's, asked of the engine's type
    /// registry out of line (the exact compare is the fast path; a final
    /// type has no other subtypes, so it is the whole check).
    pub fn sig_matches(&mut self, b: &mut FunctionBuilder, sig: Value, ty: TypeIndex) -> Value {
        let expected = self.signature_id(b, ty);
        let same = b.ins().icmp(IntCC::Equal, sig, expected);
        if self.info().types[ty].is_final {
            return same;
        }
        let slow = b.create_block();
        let done = b.create_block();
        let result = b.append_block_param(done, types::I8);
        b.set_cold_block(slow);
        b.ins().brif(same, done, &[same.into()], slow, &[]);
        b.switch_to_block(slow);
        b.seal_block(slow);
        let answer = self.call_builtin(b, Builtin::sig_is_subtype, &[sig, expected]).expect("a result");
        let ok = b.ins().icmp_imm_u(IntCC::NotEqual, answer, 0);
        b.ins().jump(done, &[ok.into()]);
        b.switch_to_block(done);
        b.seal_block(done);
        result
    }

    /// [`sig_matches`](Self::sig_matches) for the non-null function
    /// reference `func_ref`.
    pub fn func_ref_matches(&mut self, b: &mut FunctionBuilder, func_ref: Value, ty: TypeIndex) -> Value {
        let sig = b.ins().load(POINTER, trusted().with_readonly(), func_ref, VMFuncRef::SIG);
        self.sig_matches(b, sig, ty)
    }
}
