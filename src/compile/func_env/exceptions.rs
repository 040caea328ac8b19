//! Exceptions: tags, exception objects and throwing, and calls that have
//! a handler (see `translate::exceptions` and `vm::exception`).

use cranelift_codegen::ir::{
    condcodes::IntCC, BlockArg, ExceptionTableData, ExceptionTableItem, FuncRef, InstBuilder, SigRef, Value,
};
use cranelift_frontend::FunctionBuilder;

use super::call::index_arg;
use super::{ir_type, trusted, FuncEnv, POINTER};
use crate::compile::trap_codes::ToClif;
use crate::environ::builtins::Builtin;
use crate::environ::index::TagIndex;
use crate::environ::trap::TrapCode;
use crate::environ::types::ValType;
use crate::environ::vmctx::exn;

/// What a call calls.
pub(super) enum Target {
    Direct(FuncRef),
    Indirect(SigRef, Value),
}

impl FuncEnv<'_> {
    /// Makes calls go to landing pad `pad` (a block with one pointer
    /// parameter, the exception) when they throw, or to the caller when
    /// `None`.
    pub fn set_handler(&mut self, pad: Option<cranelift_codegen::ir::Block>) {
        self.handler = pad;
    }

    /// Emits a (non-tail) call of `target` with `args`: a plain call, or a
    /// `try_call` to the handler when there is one. The cost is the same
    /// until something throws. Returns the results.
    pub(super) fn emit_call(&mut self, b: &mut FunctionBuilder, target: Target, args: &[Value]) -> Vec<Value> {
        let Some(pad) = self.handler else {
            let call = match target {
                Target::Direct(r) => b.ins().call(r, args),
                Target::Indirect(sig, code) => b.ins().call_indirect(sig, code, args),
            };
            return b.inst_results(call).to_vec();
        };
        let sig = match target {
            Target::Direct(r) => b.func.dfg.ext_funcs[r].signature,
            Target::Indirect(sig, _) => sig,
        };
        let returns: Vec<_> = b.func.dfg.signatures[sig].returns.iter().map(|r| r.value_type).collect();
        let cont = b.create_block();
        for t in &returns {
            b.append_block_param(cont, *t);
        }
        let rets: Vec<BlockArg> = (0..returns.len() as u32).map(BlockArg::TryCallRet).collect();
        let normal = b.func.dfg.block_call(cont, &rets);
        let exceptional = b.func.dfg.block_call(pad, &[BlockArg::TryCallExn(0)]);
        let table = ExceptionTableData::new(sig, normal, [ExceptionTableItem::Default(exceptional)]);
        let table = b.func.dfg.exception_tables.push(table);
        match target {
            Target::Direct(r) => b.ins().try_call(r, args, table),
            Target::Indirect(_, code) => b.ins().try_call_indirect(code, args, table),
        };
        b.seal_block(cont);
        b.switch_to_block(cont);
        b.block_params(cont).to_vec()
    }

    /// The identity (address) of tag `t`.
    pub fn tag_ptr(&mut self, b: &mut FunctionBuilder, t: TagIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().tag(t))
    }

    /// The tag of exception `e`.
    pub fn exn_tag(&mut self, b: &mut FunctionBuilder, e: Value) -> Value {
        b.ins().load(POINTER, trusted().with_readonly(), e, exn::TAG)
    }

    /// A new exception of tag `t` carrying `values`.
    pub fn exn_new(&mut self, b: &mut FunctionBuilder, t: TagIndex, values: &[Value]) -> Value {
        let tag = index_arg(b, t);
        let e = self.call_builtin(b, Builtin::exn_new, &[tag]).expect("exn_new returns the exception");
        if !values.is_empty() {
            let slots = b.ins().load(POINTER, trusted().with_readonly(), e, exn::VALUES);
            for (i, v) in values.iter().enumerate() {
                let at = i as i32 * exn::SLOT + if b.func.dfg.value_type(*v).is_vector() { 0 } else { exn::SCALAR };
                b.ins().store(trusted(), *v, slots, at);
            }
        }
        e
    }

    /// The payload of exception `e`, of types `tys`.
    pub fn exn_values(&mut self, b: &mut FunctionBuilder, e: Value, tys: &[ValType]) -> Vec<Value> {
        if tys.is_empty() {
            return Vec::new();
        }
        let slots = b.ins().load(POINTER, trusted().with_readonly(), e, exn::VALUES);
        tys.iter()
            .enumerate()
            .map(|(i, t)| {
                let ty = ir_type(*t);
                let at = i as i32 * exn::SLOT + if ty.is_vector() { 0 } else { exn::SCALAR };
                b.ins().load(ty, trusted().with_readonly(), slots, at)
            })
            .collect()
    }

    /// Whether exception `e` is of tag `t`, as an `i8` condition.
    pub fn exn_is(&mut self, b: &mut FunctionBuilder, e: Value, t: TagIndex) -> Value {
        let actual = self.exn_tag(b, e);
        let expected = self.tag_ptr(b, t);
        b.ins().icmp(IntCC::Equal, actual, expected)
    }

    /// Marks exception `e` as referable from elsewhere than its throw (an
    /// `exnref`, a legacy catch): it then lives as long as its store.
    pub fn exn_expose(&mut self, b: &mut FunctionBuilder, e: Value) {
        let one = b.ins().iconst(cranelift_codegen::ir::types::I8, 1);
        b.ins().store(trusted(), one, e, exn::EXPOSED);
    }

    /// A catch took what it needs of exception `e` and drops it: the
    /// runtime frees it unless it was exposed.
    pub fn exn_release(&mut self, b: &mut FunctionBuilder, e: Value) {
        self.call_builtin(b, Builtin::exn_release, &[e]);
    }

    /// Throws `e` out of this function (no handler of it applies): the
    /// runtime finds the handler, or the call ends with the exception.
    pub fn throw_to_caller(&mut self, b: &mut FunctionBuilder, e: Value) {
        let fp = b.ins().get_frame_pointer(POINTER);
        self.call_builtin(b, Builtin::throw, &[e, fp]);
        // The builtin never returns.
        b.ins().trap(TrapCode::UnreachableCodeReached.to_clif());
    }
}
