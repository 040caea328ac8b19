//! The function environment: how translated code reaches the runtime.
//!
//! The operator translator (`translate/`) knows WebAssembly; this module
//! knows the VMContext layout and the runtime's conventions. Every question
//! of the form "how do I get at memory n, global g, table t, function f, or
//! a runtime builtin?" is answered here: every address computation, every
//! choice of memory flags and every bounds or signature check the runtime's
//! layout calls for. The translator only pops operands, asks, and pushes
//! results, so a change of layout or of a check policy stays in this module.
//!
//! By concern: `memory` (heap addresses, the bounds-check policy, memory
//! size and the bulk operations), `table` (element addresses, table
//! operations and the `call_indirect` checks), `global`, `call`
//! (callees, calls, funcrefs and runtime builtins), and `fuel` (counting
//! it). This file holds the
//! per-function state and what they share: the VMContext, value types and
//! the representation of references.

mod bounds64;
mod call;
mod exceptions;
mod fuel;
mod gc;
mod gc_heap;
mod global;
mod memory;
mod ranges;
mod table;

use std::collections::HashMap;

use cranelift_codegen::ir::{
    self, condcodes::IntCC, types, AbiParam, AliasRegion, AliasRegionData, ArgumentPurpose, FuncRef, GlobalValue,
    GlobalValueData, InstBuilder, MemFlagsData, SigRef, Signature, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

pub(crate) use self::gc_heap::object as gc_object_flags;
pub use self::memory::HeapAccess;
pub(crate) use self::ranges::max_u64;
use crate::environ::config::{BoundsChecks, Config};
use crate::environ::index::FuncIndex;
use crate::environ::module_info::ModuleInfo;
use crate::environ::types::{FuncType, ValType};
use crate::environ::vmctx::{header, VMOffsets};

/// Pointer-sized integer type of the host.
pub const POINTER: ir::Type = types::I64;

/// Namespace of the external names of functions of the module (called
/// directly; the index is a `FuncIndex`).
pub const FUNC_NAMESPACE: u32 = 0;

/// What every function of a module shares.
pub struct ModuleEnv<'a> {
    pub info: &'a ModuleInfo,
    pub offsets: &'a VMOffsets,
    pub bounds_checks: BoundsChecks,
    /// The host's C calling convention, used to call builtins.
    pub host_call_conv: CallConv,
    pub frontend_config: cranelift_codegen::isa::TargetFrontendConfig,
    /// Count fuel (see `fuel`).
    pub consume_fuel: bool,
    /// Use frozen tables and index ranges (`Config::module_analyses`).
    pub analyses: bool,
    /// Inline small callees (see `compile::inline`).
    pub inlining: bool,
    /// Load values needed zero-extended at 64 bits so (`Config::widen_loads`).
    pub widen_loads: bool,
    /// Keep a one-block loop's stepped counter in one register (`Config::loop_passes`).
    pub loop_passes: bool,
    /// Form small steps past accessed addresses in 64 bits
    /// (`Config::address_steps`, when the module's memories allow it).
    pub address_steps: bool,
    /// Multiply by small constants with `lea` and shifts (`Config::mul_consts`).
    pub mul_consts: bool,
    /// Place each function so its inner loops start early in a cache line
    /// (`compile::loop_align`).
    pub loop_align: bool,
    /// Load what a store will write before it (`FuncEnv::probe_store`).
    pub probe_stores: bool,
}

impl<'a> ModuleEnv<'a> {
    /// The environment of a module compiled with the settings `config`
    /// for target `isa`.
    ///
    /// The late passes that rewrite code into x86-64 idioms (widened
    /// loads, 64-bit address steps, `lea` multiplications, loop placement
    /// in 64-byte lines) were tuned on x86-64 and measured only there: on
    /// another target they stay off, whatever the configuration says.
    pub fn new(
        config: &Config,
        isa: &dyn cranelift_codegen::isa::TargetIsa,
        info: &'a ModuleInfo,
        offsets: &'a VMOffsets,
    ) -> ModuleEnv<'a> {
        let x86 = isa.name() == "x64";
        ModuleEnv {
            info,
            offsets,
            bounds_checks: config.bounds_checks,
            host_call_conv: isa.default_call_conv(),
            frontend_config: isa.frontend_config(),
            consume_fuel: config.consume_fuel,
            analyses: config.module_analyses,
            inlining: config.inlining,
            widen_loads: config.widen_loads && x86,
            loop_passes: config.loop_passes,
            address_steps: config.address_steps && x86 && info.memories_below_4gib(),
            mul_consts: config.mul_consts && x86,
            loop_align: x86,
            probe_stores: isa.name() == "aarch64" && config.bounds_checks == BoundsChecks::GuardPages,
        }
    }
}

/// The Cranelift type of a wasm value type. Vectors use `I8X16` as their
/// canonical type and are bitcast to lane types by the SIMD operators.
/// References are pointers: a funcref points at a `VMFuncRef`, an
/// externref at its host data, and null is 0.
pub fn ir_type(ty: ValType) -> ir::Type {
    match ty {
        ValType::I32 => types::I32,
        ValType::I64 => types::I64,
        ValType::F32 => types::F32,
        ValType::F64 => types::F64,
        ValType::V128 => types::I8X16,
        ValType::Ref(_) => POINTER,
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

/// The disjoint kinds of memory compiled code reads and writes. Each
/// access is tagged with its region, so Cranelift's alias analysis knows
/// that a store to linear memory leaves a global, a table's base or an
/// element loaded earlier valid (and may reuse the loaded value). Calls
/// (builtins, other functions, the host) still clobber every region.
#[derive(Copy, Clone)]
enum Region {
    /// Linear memories.
    Heap = 0,
    /// Table elements.
    TableElements = 1,
    /// The runtime's own state: VMContext fields, globals, table and
    /// memory definitions, funcrefs, the store context.
    Runtime = 2,
}

const REGIONS: [(Region, &str); 3] =
    [(Region::Heap, "heap"), (Region::TableElements, "table elements"), (Region::Runtime, "runtime state")];

/// Declares the regions in `func`, first thing, so that each is the
/// `AliasRegion` numbered by its discriminant (which the flag helpers
/// below use without the function at hand).
pub fn declare_alias_regions(func: &mut ir::Function) {
    for (r, description) in REGIONS {
        let declared =
            func.dfg.alias_regions.insert(AliasRegionData { user_id: r as u32, description: description.into() });
        assert_eq!(declared, region(r), "alias regions are declared first, in order");
    }
}

fn region(r: Region) -> AliasRegion {
    AliasRegion::from_u32(r as u32)
}

/// Flags for loads of runtime fields that never change after
/// instantiation: the optimiser may hoist and merge them.
fn readonly() -> MemFlagsData {
    trusted().with_readonly().with_can_move()
}

/// Flags for runtime fields that can change (lengths, globals).
fn trusted() -> MemFlagsData {
    MemFlagsData::trusted().with_alias_region(Some(region(Region::Runtime)))
}

/// Flags for accesses of table elements.
fn table_element() -> MemFlagsData {
    MemFlagsData::trusted().with_alias_region(Some(region(Region::TableElements)))
}

/// Flags for accesses of linear memory (before the trap code and the
/// byte order are added).
fn heap() -> MemFlagsData {
    MemFlagsData::new().with_alias_region(Some(region(Region::Heap)))
}

/// Whether `flags` are those of a linear-memory access that traps when out
/// of bounds (every plain and atomic access: see `heap_access`).
pub fn is_heap_access(flags: &MemFlagsData) -> bool {
    flags.alias_region() == Some(region(Region::Heap)) && flags.trap_code().is_some()
}

/// Whether `flags` are those of a load of a runtime field that never
/// changes after instantiation (a memory's base among them).
pub fn is_readonly_runtime_load(flags: &MemFlagsData) -> bool {
    flags.alias_region() == Some(region(Region::Runtime)) && flags.readonly()
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
    fuel: fuel::Fuel,
    /// Where calls that throw go: the landing pad of the innermost handler
    /// (see `exceptions`), or `None` for the caller.
    handler: Option<ir::Block>,
    /// Bounds checks of the current block that later accesses reuse.
    done_checks: Vec<bounds64::DoneCheck>,
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
            fuel: fuel::Fuel::default(),
            handler: None,
            done_checks: Vec::new(),
        }
    }

    pub fn info(&self) -> &'a ModuleInfo {
        self.module.info
    }

    fn offsets(&self) -> &'a VMOffsets {
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
    /// against the limit, read in one load from the VMContext's copy of
    /// `VMStoreContext::stack_limit` (the runtime keeps every instance's
    /// copy current, see `StoreOpaque::publish_stack_limit`).
    pub fn stack_limit(&mut self, func: &mut ir::Function) -> GlobalValue {
        let vmctx = self.vmctx_gv(func);
        let flags = func.dfg.mem_flags.insert(trusted()).expect("few memflags");
        func.create_global_value(GlobalValueData::Load {
            base: vmctx,
            offset: header::STACK_LIMIT.into(),
            global_type: POINTER,
            flags,
        })
    }

    /// The VMContext of the function being translated.
    fn vmctx(&self) -> Value {
        self.vmctx.expect("set_vmctx is called first")
    }

    /// Loads a pointer-sized VMContext field that is fixed after instantiation.
    fn load_vmctx_ptr(&mut self, b: &mut FunctionBuilder, offset: u32) -> Value {
        b.ins().load(POINTER, readonly(), self.vmctx(), offset as i32)
    }

    /// The null reference, of any reference type.
    pub fn null_ref(&mut self, b: &mut FunctionBuilder) -> Value {
        b.ins().iconst(POINTER, 0)
    }

    /// `ref.is_null`: 1 if `r` is the null reference, else 0, as an i32.
    pub fn ref_is_null(&mut self, b: &mut FunctionBuilder, r: Value) -> Value {
        let c = b.ins().icmp_imm_u(IntCC::Equal, r, 0);
        b.ins().uextend(types::I32, c)
    }
}
