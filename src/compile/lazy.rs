//! Lazy compilation, the compiler's side: what a module needs to compile
//! one function at a time, on the function's first call.
//!
//! At load every body is validated (an invalid module is refused then, as
//! in eager mode) and its place in the binary recorded; [`LazyFunctions`]
//! keeps the binary and the validator's resources. The runtime lays out
//! the stubs and places each function's code as it is compiled
//! (`runtime::vm::lazy`).

use std::ops::Range;
use std::sync::Arc;

use cranelift_codegen::entity::EntityRef;

use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use wasmparser::{BinaryReader, FuncToValidate, FunctionBody, ValidatorResources, WasmFeatures};

use super::func_env::ModuleEnv;
use super::translate_and_compile;
use crate::environ::compiled::FunctionCode;
use crate::environ::config::Config;
use crate::environ::error::Result;
use crate::environ::index::*;
use crate::environ::module_info::ModuleInfo;
use crate::environ::parse::FunctionBodyData;
use crate::environ::vmctx::VMOffsets;

/// What a lazy module needs to compile its functions later.
pub struct LazyFunctions {
    isa: Arc<dyn TargetIsa>,
    config: Config,
    offsets: VMOffsets,
    /// The module's binary; `bodies` are ranges of it.
    wasm: Box<[u8]>,
    bodies: Vec<Range<usize>>,
    /// Module index and type of each defined function, for its validator.
    validators: Vec<(u32, u32)>,
    resources: ValidatorResources,
    features: WasmFeatures,
    /// The target and settings of the baseline tier, with tiering.
    baseline: Option<(Arc<dyn TargetIsa>, Config)>,
}

impl LazyFunctions {
    /// Validates every body of a module; `Ok(None)` when it defines no
    /// function.
    pub fn new(
        isa: Arc<dyn TargetIsa>,
        config: &Config,
        info: &ModuleInfo,
        wasm: &[u8],
        bodies: Vec<FunctionBodyData<'_>>,
    ) -> Result<Option<LazyFunctions>> {
        let mut ranges = Vec::with_capacity(bodies.len());
        let mut validators = Vec::with_capacity(bodies.len());
        let mut resources = None;
        let mut allocs = wasmparser::FuncValidatorAllocations::default();
        for b in bodies {
            let r = b.body.range();
            ranges.push(r.start as usize..r.end as usize);
            validators.push((b.validator.index, b.validator.ty));
            resources.get_or_insert_with(|| b.validator.resources.clone());
            let mut v = b.validator.into_validator(allocs);
            v.validate(&b.body)?;
            allocs = v.into_allocations();
        }
        let Some(resources) = resources else { return Ok(None) };
        Ok(Some(LazyFunctions {
            isa,
            config: config.clone(),
            offsets: VMOffsets::new(info),
            wasm: wasm.into(),
            bodies: ranges,
            validators,
            resources,
            features: config.wasm_features(),
            baseline: None,
        }))
    }

    /// Bytes of all function bodies, which size the code region.
    pub fn body_bytes(&self) -> usize {
        self.bodies.iter().map(|r| r.len()).sum()
    }

    /// Translates and compiles defined function `d` of the module `info`
    /// describes (validating it again on the way, as eager compilation
    /// does).
    pub fn compile(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode> {
        self.compile_with(&*self.isa, &self.config, d, info)
    }

    /// Compiles functions at the baseline tier with `isa` and `config`
    /// (`Config::baseline`) when [`compile_baseline`](Self::compile_baseline)
    /// is asked to.
    pub fn with_baseline(mut self, isa: Arc<dyn TargetIsa>, config: Config) -> LazyFunctions {
        self.baseline = Some((isa, config));
        self
    }

    /// As [`compile`](Self::compile), with the baseline tier's settings.
    pub fn compile_baseline(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode> {
        match &self.baseline {
            Some((isa, config)) => self.compile_with(&**isa, config, d, info),
            None => self.compile(d, info),
        }
    }

    fn compile_with(
        &self,
        isa: &dyn TargetIsa,
        config: &Config,
        d: DefinedFuncIndex,
        info: &ModuleInfo,
    ) -> Result<FunctionCode> {
        let env = ModuleEnv::new(config, isa, info, &self.offsets);
        let range = self.bodies[d.index()].clone();
        let reader = BinaryReader::new_features(&self.wasm[range.clone()], range.start as u64, self.features);
        let (index, ty) = self.validators[d.index()];
        let validator = FuncToValidate { resources: self.resources.clone(), index, ty, features: self.features };
        let data = FunctionBodyData { validator, body: FunctionBody::new(reader) };
        let (mut fctx, mut ctx) = (FunctionBuilderContext::new(), Context::new());
        let mut allocs = Default::default();
        let f = translate_and_compile(isa, &env, d.index(), data, &mut allocs, &mut fctx, &mut ctx, false)?;
        Ok(f.code)
    }
}
