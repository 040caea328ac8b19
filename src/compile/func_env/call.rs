//! Calls: direct calls within the module, calls of imports through their
//! `VMFuncRef`, `call_indirect`, funcref values, and calls of runtime
//! builtins.
//!
//! A wasm function takes `(callee_vmctx, caller_vmctx, params...)`. A
//! function of this module is called directly, PC-relative, with our own
//! VMContext as the callee's; anything else is called through a
//! `VMFuncRef`, which carries the code pointer and the callee's VMContext.

use crate::compile::trap_codes::ToClif;
use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{
    self, types, AbiParam, ExtFuncData, ExternalName, FuncRef, InstBuilder, MemFlagsData, SigRef, Signature,
    UserExternalName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use super::exceptions::Target;
use super::{readonly, wasm_signature, FuncEnv, FUNC_NAMESPACE, POINTER};
use crate::environ::builtins::{AbiType, Builtin};
use crate::environ::index::{FuncIndex, TableIndex, TypeIndex};
use crate::environ::types::FuncType;
use crate::environ::vmctx::{header, VMFuncRef};

/// How to call a function.
pub(super) enum Callee {
    /// A function of this module: a direct, PC-relative call.
    Direct(FuncRef),
    /// Through a `VMFuncRef`: its code and VMContext.
    Indirect { code: Value, vmctx: Value },
}

/// An index immediate (of a memory, table or segment) as the i32 argument
/// of a builtin.
pub(super) fn index_arg(b: &mut FunctionBuilder, index: impl EntityRef) -> Value {
    b.ins().iconst(types::I32, index.index() as i64)
}

impl FuncEnv<'_> {
    fn wasm_sig_ref(&mut self, func: &mut ir::Function, ty: &FuncType) -> SigRef {
        if let Some(sig) = self.wasm_sigs.get(ty) {
            return *sig;
        }
        let sig = func.import_signature(wasm_signature(ty));
        self.wasm_sigs.insert(ty.clone(), sig);
        sig
    }

    /// How to call function `f`.
    fn callee(&mut self, b: &mut FunctionBuilder, f: FuncIndex) -> Callee {
        if self.info().defined_func_index(f).is_some() {
            if let Some(r) = self.func_refs.get(&f) {
                return Callee::Direct(*r);
            }
            let ty = self.info().func_type(f).clone();
            let signature = self.wasm_sig_ref(b.func, &ty);
            let name = b.func.declare_imported_user_function(UserExternalName::new(FUNC_NAMESPACE, f.index() as u32));
            let r = b.func.import_function(ExtFuncData {
                name: ExternalName::User(name),
                signature,
                colocated: true,
                patchable: false,
            });
            self.func_refs.insert(f, r);
            Callee::Direct(r)
        } else {
            let func_ref = self.load_vmctx_ptr(b, self.offsets().imported_func(f));
            self.load_funcref_target(b, func_ref, readonly())
        }
    }

    /// Code pointer and VMContext of a (non-null) `VMFuncRef`, loaded with
    /// `flags`: hoistable only where the funcref is known non-null
    /// everywhere (an import's), not after a null check.
    fn load_funcref_target(&mut self, b: &mut FunctionBuilder, func_ref: Value, flags: MemFlagsData) -> Callee {
        let code = b.ins().load(POINTER, flags, func_ref, VMFuncRef::WASM_CALL);
        let vmctx = b.ins().load(POINTER, flags, func_ref, VMFuncRef::VMCTX);
        Callee::Indirect { code, vmctx }
    }

    /// Calls function `f` with the wasm arguments `args`, as a tail call if
    /// `tail`. Returns the function's results, or `None` for a tail call.
    pub fn call(&mut self, b: &mut FunctionBuilder, f: FuncIndex, args: Vec<Value>, tail: bool) -> Option<Vec<Value>> {
        let ty = self.info().func_type(f).clone();
        let caller = self.vmctx();
        let mut all = Vec::with_capacity(args.len() + 2);
        match self.callee(b, f) {
            Callee::Direct(r) => {
                all.extend([caller, caller]);
                all.extend(args);
                self.fuel_save(b);
                if tail {
                    b.ins().return_call(r, &all);
                    None
                } else {
                    let results = self.emit_call(b, Target::Direct(r), &all);
                    self.fuel_after_call(b);
                    Some(results)
                }
            }
            Callee::Indirect { code, vmctx } => self.call_code(b, &ty, code, vmctx, args, tail),
        }
    }

    /// `call_indirect` of element `index` of table `t`, expected to have
    /// type `ty`; as [`FuncEnv::call`].
    pub fn call_indirect(
        &mut self,
        b: &mut FunctionBuilder,
        ty: TypeIndex,
        t: TableIndex,
        index: Value,
        args: Vec<Value>,
        tail: bool,
    ) -> Option<Vec<Value>> {
        let Callee::Indirect { code, vmctx } = self.indirect_callee(b, ty, t, index) else {
            unreachable!("table elements are called through their VMFuncRef")
        };
        let ty = self.info().func_sig(ty).clone();
        self.call_code(b, &ty, code, vmctx, args, tail)
    }

    /// `call_ref` of `func_ref`, a function reference of type `ty`; as
    /// [`FuncEnv::call`]. The type is proven, so the only check is for
    /// null: with guard pages the first load from the funcref faults on
    /// page 0 with that trap code, otherwise an explicit test.
    pub fn call_ref(
        &mut self,
        b: &mut FunctionBuilder,
        ty: TypeIndex,
        func_ref: Value,
        args: Vec<Value>,
        tail: bool,
    ) -> Option<Vec<Value>> {
        let null = crate::environ::trap::TrapCode::NullFunctionReference.to_clif();
        let mut flags = super::trusted().with_readonly();
        match self.module.bounds_checks {
            crate::environ::config::BoundsChecks::GuardPages => flags = flags.with_trap_code(Some(null)),
            crate::environ::config::BoundsChecks::Explicit => {
                b.ins().trapz(func_ref, null);
            }
        }
        let code = b.ins().load(POINTER, flags, func_ref, VMFuncRef::WASM_CALL);
        let vmctx = b.ins().load(POINTER, super::trusted().with_readonly(), func_ref, VMFuncRef::VMCTX);
        let ty = self.info().func_sig(ty).clone();
        self.call_code(b, &ty, code, vmctx, args, tail)
    }

    /// An indirect call of `code` with callee VMContext `callee_vmctx`.
    fn call_code(
        &mut self,
        b: &mut FunctionBuilder,
        ty: &FuncType,
        code: Value,
        callee_vmctx: Value,
        args: Vec<Value>,
        tail: bool,
    ) -> Option<Vec<Value>> {
        let sig = self.wasm_sig_ref(b.func, ty);
        let mut all = Vec::with_capacity(args.len() + 2);
        all.extend([callee_vmctx, self.vmctx()]);
        all.extend(args);
        self.fuel_save(b);
        if tail {
            b.ins().return_call_indirect(sig, code, &all);
            None
        } else {
            let results = self.emit_call(b, Target::Indirect(sig, code), &all);
            self.fuel_after_call(b);
            Some(results)
        }
    }

    /// The id of signature `ty` as `call_indirect` compares it (see
    /// `type_registry::sig_id`). A small signature's id is the same in
    /// every process and engine: a 32-bit immediate, which x86-64 compares
    /// with the funcref's in one instruction. A larger one's is its
    /// engine's canonical id, which instantiation writes into the
    /// VMContext (`VMOffsets::type_id`): one load, and code that is the
    /// same for every engine and process, so the cache needs no relocation
    /// for it. (It was once a symbol the linker filled in; Cranelift's
    /// inliner copies a callee's symbols without translating their names,
    /// so an inlined `call_indirect` named some other function instead.)
    pub(super) fn signature_id(&mut self, b: &mut FunctionBuilder, ty: TypeIndex) -> Value {
        if let Some(id) = self.info().small_sig_id(ty) {
            return b.ins().iconst(POINTER, id as i64);
        }
        self.load_vmctx_ptr(b, self.offsets().type_id(ty))
    }

    /// `ref.func`: pointer to the `VMFuncRef` of function `f`.
    pub fn func_ref(&mut self, b: &mut FunctionBuilder, f: FuncIndex) -> Value {
        match self.info().defined_func_index(f) {
            Some(d) => b.ins().iadd_imm_u(self.vmctx(), self.offsets().defined_func(d) as i64),
            None => self.load_vmctx_ptr(b, self.offsets().imported_func(f)),
        }
    }

    /// Calls a runtime builtin with `args` (the VMContext is prepended).
    /// A builtin that reports failure traps here with its trap code and
    /// returns `None`; otherwise its result, if it has one.
    pub(super) fn call_builtin(&mut self, b: &mut FunctionBuilder, builtin: Builtin, args: &[Value]) -> Option<Value> {
        let sig = match self.builtin_sigs.get(&(builtin as u32)) {
            Some(s) => *s,
            None => {
                let abi = |t: AbiType| match t {
                    AbiType::VMContext => AbiParam::new(POINTER),
                    AbiType::I32 => AbiParam::new(types::I32),
                    AbiType::I64 => AbiParam::new(types::I64),
                    AbiType::Ptr => AbiParam::new(POINTER),
                };
                // Inlining can put a throw at a `try_call` site, where it
                // becomes a `try_call` of `throw` itself. Cranelift keeps
                // values in callee-saved registers across the exceptional
                // edge of a C-convention call, which the unwinder (a jump
                // to the handler) does not restore; across a `tail` call's
                // it keeps none. `arch::throw_entry` moves the arguments
                // where the C function behind it wants them.
                let conv = match builtin {
                    Builtin::throw => CallConv::Tail,
                    _ => self.module.host_call_conv,
                };
                let mut sig = Signature::new(conv);
                sig.params.extend(builtin.params().iter().map(|t| abi(*t)));
                sig.returns.extend(builtin.result().map(abi));
                let s = b.func.import_signature(sig);
                self.builtin_sigs.insert(builtin as u32, s);
                s
            }
        };
        let table = self.load_vmctx_ptr(b, header::BUILTINS as u32);
        let f = b.ins().load(POINTER, readonly(), table, builtin.offset());
        let mut all = Vec::with_capacity(args.len() + 1);
        all.push(self.vmctx());
        all.extend_from_slice(args);
        let call = b.ins().call_indirect(sig, f, &all);
        let result = b.inst_results(call).first().copied();
        match (builtin.trap_code(), result) {
            (Some(code), Some(failed)) => {
                b.ins().trapnz(failed, code.to_clif());
                None
            }
            _ => result,
        }
    }
}
