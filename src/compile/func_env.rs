//! The function environment: how translated code reaches the runtime.
//!
//! The operator translator knows WebAssembly; this file knows the VMContext
//! layout. Every question of the form "how do I get at memory n, global g,
//! table t, function f, or a runtime builtin?" is answered here, so the
//! translation of operators stays free of layout details.

use std::collections::HashMap;

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::ir::{
    self, types, AbiParam, ArgumentPurpose, ExtFuncData, ExternalName, FuncRef, GlobalValue, GlobalValueData,
    InstBuilder, MemFlagsData, SigRef, Signature, UserExternalName, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use crate::builtins::{AbiType, Builtin};
use crate::config::BoundsChecks;
use crate::index::*;
use crate::module::info::ModuleInfo;
use crate::types::{FuncType, ValType};
use crate::vmctx::{header, VMOffsets, VMStoreContext};

/// Pointer-sized integer type of the host.
pub const POINTER: ir::Type = types::I64;

/// What every function of a module shares.
pub struct ModuleEnv<'a> {
    pub info: &'a ModuleInfo,
    pub offsets: &'a VMOffsets,
    pub bounds_checks: BoundsChecks,
    /// The host's C calling convention, used to call builtins.
    pub host_call_conv: CallConv,
    pub frontend_config: cranelift_codegen::isa::TargetFrontendConfig,
}

/// The Cranelift type of a wasm value type. Vectors use `I8X16` as their
/// canonical type and are bitcast to lane types by the SIMD operators.
pub fn ir_type(ty: ValType) -> ir::Type {
    match ty {
        ValType::I32 => types::I32,
        ValType::I64 => types::I64,
        ValType::F32 => types::F32,
        ValType::F64 => types::F64,
        ValType::V128 => types::I8X16,
        ValType::FuncRef | ValType::ExternRef => POINTER,
    }
}

/// The native signature of a wasm function: `(callee_vmctx, caller_vmctx,
/// params...) -> results`, with the tail-call convention so that
/// `return_call` works between any two wasm functions.
pub fn wasm_signature(ty: &FuncType) -> Signature {
    let mut sig = Signature::new(CallConv::Tail);
    sig.params.push(AbiParam::special(POINTER, ArgumentPurpose::VMContext));
    sig.params.push(AbiParam::new(POINTER));
    sig.params.extend(ty.params().iter().map(|t| AbiParam::new(ir_type(*t))));
    sig.returns.extend(ty.results().iter().map(|t| AbiParam::new(ir_type(*t))));
    sig
}

/// Flags for loads of VMContext fields that never change after
/// instantiation: the optimiser may hoist and merge them.
pub fn readonly() -> MemFlagsData {
    MemFlagsData::trusted().with_readonly().with_can_move()
}

/// Flags for VMContext fields that can change (lengths, globals).
pub fn trusted() -> MemFlagsData {
    MemFlagsData::trusted()
}

/// How to call a function.
pub enum Callee {
    /// A function of this module: a direct, PC-relative call.
    Direct(FuncRef),
    /// An import: its code and VMContext, loaded from the caller's VMContext.
    Indirect { code: Value, vmctx: Value },
}

/// The per-function view of a [`ModuleEnv`], caching what it declares in
/// the function being built.
pub struct FuncEnv<'a> {
    pub module: &'a ModuleEnv<'a>,
    vmctx_gv: Option<GlobalValue>,
    /// The function's `callee_vmctx` parameter.
    vmctx: Option<Value>,
    builtin_sigs: HashMap<u32, SigRef>,
    wasm_sigs: HashMap<FuncType, SigRef>,
    func_refs: HashMap<FuncIndex, FuncRef>,
}

impl<'a> FuncEnv<'a> {
    pub fn new(module: &'a ModuleEnv<'a>) -> FuncEnv<'a> {
        FuncEnv {
            module,
            vmctx_gv: None,
            vmctx: None,
            builtin_sigs: HashMap::new(),
            wasm_sigs: HashMap::new(),
            func_refs: HashMap::new(),
        }
    }

    pub fn info(&self) -> &'a ModuleInfo {
        self.module.info
    }

    pub fn offsets(&self) -> &'a VMOffsets {
        self.module.offsets
    }

    fn vmctx_gv(&mut self, func: &mut ir::Function) -> GlobalValue {
        *self.vmctx_gv.get_or_insert_with(|| func.create_global_value(GlobalValueData::VMContext))
    }

    /// Records the function's VMContext parameter.
    pub fn set_vmctx(&mut self, vmctx: Value) {
        self.vmctx = Some(vmctx);
    }

    /// The global value that makes every function prologue check the stack
    /// against `VMStoreContext::stack_limit`.
    pub fn stack_limit(&mut self, func: &mut ir::Function) -> GlobalValue {
        let vmctx = self.vmctx_gv(func);
        let flags = func.dfg.mem_flags.insert(readonly()).expect("few memflags");
        let store = func.create_global_value(GlobalValueData::Load {
            base: vmctx,
            offset: header::STORE.into(),
            global_type: POINTER,
            flags,
        });
        let flags = func.dfg.mem_flags.insert(trusted()).expect("few memflags");
        func.create_global_value(GlobalValueData::Load {
            base: store,
            offset: VMStoreContext::STACK_LIMIT.into(),
            global_type: POINTER,
            flags,
        })
    }

    /// The VMContext of the function being translated.
    pub fn vmctx(&mut self, _b: &mut FunctionBuilder) -> Value {
        self.vmctx.expect("set_vmctx is called first")
    }

    /// Loads a pointer-sized VMContext field that is fixed after instantiation.
    pub fn load_vmctx_ptr(&mut self, b: &mut FunctionBuilder, offset: u32) -> Value {
        let vmctx = self.vmctx(b);
        b.ins().load(POINTER, readonly(), vmctx, offset as i32)
    }

    /// The base address of memory `m`. Memories never move, so this is a
    /// read-only VMContext load the optimiser can hoist out of loops.
    pub fn memory_base(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().memory_base(m))
    }

    /// The current length in bytes of memory `m`.
    pub fn memory_length(&mut self, b: &mut FunctionBuilder, m: MemoryIndex) -> Value {
        let def = self.load_vmctx_ptr(b, self.offsets().memory_definition(m));
        b.ins().load(POINTER, trusted(), def, crate::vmctx::VMMemoryDefinition::LENGTH)
    }

    /// Address of the storage of global `g`, and whether it is constant.
    pub fn global_address(&mut self, b: &mut FunctionBuilder, g: GlobalIndex) -> Value {
        match self.info().defined_global_index(g) {
            Some(d) => {
                let vmctx = self.vmctx(b);
                b.ins().iadd_imm_u(vmctx, self.offsets().defined_global(d) as i64)
            }
            None => self.load_vmctx_ptr(b, self.offsets().imported_global(g)),
        }
    }

    /// Pointer to the `VMTableDefinition` of table `t`.
    pub fn table_definition(&mut self, b: &mut FunctionBuilder, t: TableIndex) -> Value {
        self.load_vmctx_ptr(b, self.offsets().table(t))
    }

    /// The signature id `call_indirect` compares against.
    pub fn sig_id(&self, ty: TypeIndex) -> i64 {
        self.info().types[ty].sig_id() as i64
    }

    pub fn wasm_sig_ref(&mut self, func: &mut ir::Function, ty: FuncType) -> SigRef {
        *self.wasm_sigs.entry(ty).or_insert_with(|| func.import_signature(wasm_signature(&ty)))
    }

    /// How to call function `f`.
    pub fn callee(&mut self, b: &mut FunctionBuilder, f: FuncIndex) -> Callee {
        if self.info().defined_func_index(f).is_some() {
            if let Some(r) = self.func_refs.get(&f) {
                return Callee::Direct(*r);
            }
            let ty = self.info().func_type(f);
            let signature = self.wasm_sig_ref(b.func, ty);
            let name = b.func.declare_imported_user_function(UserExternalName::new(0, f.index() as u32));
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
            self.load_funcref_target(b, func_ref)
        }
    }

    /// Code pointer and VMContext of a (non-null) `VMFuncRef`.
    pub fn load_funcref_target(&mut self, b: &mut FunctionBuilder, func_ref: Value) -> Callee {
        use crate::vmctx::VMFuncRef;
        let code = b.ins().load(POINTER, readonly(), func_ref, VMFuncRef::WASM_CALL);
        let vmctx = b.ins().load(POINTER, readonly(), func_ref, VMFuncRef::VMCTX);
        Callee::Indirect { code, vmctx }
    }

    /// Pointer to the `VMFuncRef` of function `f` (for `ref.func`).
    pub fn func_ref(&mut self, b: &mut FunctionBuilder, f: FuncIndex) -> Value {
        match self.info().defined_func_index(f) {
            Some(d) => {
                let vmctx = self.vmctx(b);
                b.ins().iadd_imm_u(vmctx, self.offsets().defined_func(d) as i64)
            }
            None => self.load_vmctx_ptr(b, self.offsets().imported_func(f)),
        }
    }

    /// Calls a runtime builtin with `args` (the VMContext is prepended).
    pub fn call_builtin(&mut self, b: &mut FunctionBuilder, builtin: Builtin, args: &[Value]) -> Option<Value> {
        let sig = match self.builtin_sigs.get(&(builtin as u32)) {
            Some(s) => *s,
            None => {
                let abi = |t: AbiType| match t {
                    AbiType::VMContext => AbiParam::new(POINTER),
                    AbiType::I32 => AbiParam::new(types::I32),
                    AbiType::I64 => AbiParam::new(types::I64),
                    AbiType::Ptr => AbiParam::new(POINTER),
                };
                let mut sig = Signature::new(self.module.host_call_conv);
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
        all.push(self.vmctx(b));
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
