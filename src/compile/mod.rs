//! Validated function bodies to one executable image per module.
//!
//! Each function is validated and translated to Cranelift IR, compiled for
//! the host, and its machine code, relocations, trap sites and source
//! locations collected. Functions are independent until linking, so they
//! are compiled on several threads when the module is big enough to pay
//! for them. Linking lays the functions and the entry trampolines of their
//! signatures out in one image and patches the direct calls between them.
//! With lazy compilation, [`lazy`] compiles each function on its first
//! call instead.

mod address_steps;
pub mod func_env;
mod inline;
pub mod lazy;
mod loop_align;
mod loop_exits;
mod mul_consts;
#[cfg(test)]
mod tests;
pub mod trampoline;
mod translate;
mod widen_loads;
mod widen_params;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::entity::{EntityRef, PrimaryMap};
use cranelift_codegen::ir::{self, ExternalName, LibCall};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{Context, FinalizedRelocTarget};
use cranelift_frontend::FunctionBuilderContext;
use wasmparser::FuncValidatorAllocations;

use crate::runtime::vm::code_memory::CodeMemory;
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::module_info::ModuleInfo;
use crate::environ::parse::FunctionBodyData;
use crate::environ::trap::TrapCode;
use crate::environ::types::FuncType;
use func_env::{FuncEnv, ModuleEnv, FUNC_NAMESPACE, SIGNATURE_NAMESPACE};

/// Where a relocation points.
#[derive(Copy, Clone, Debug)]
enum RelocTarget {
    Func(FuncIndex),
    Process(ProcessAddress),
}

/// An address that differs from process to process, which compiled code
/// holds as a 64-bit constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ProcessAddress {
    /// A floating-point helper (see [`LIBCALLS`]).
    LibCall(LibCall),
    /// The id of a signature of the module (`FuncType::sig_id`).
    Signature(TypeIndex),
}

/// A place in a module's code image holding a [`ProcessAddress`]: filled
/// in when the module is linked, and again when it is loaded from the
/// compiled-code cache.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ImageReloc {
    /// Offset of the 8 bytes in the image.
    pub offset: u32,
    pub target: ProcessAddress,
}

/// Machine code of one function, before linking.
pub struct CompiledFunction {
    body: Vec<u8>,
    alignment: u32,
    relocs: Vec<(u32, Reloc, RelocTarget, i64)>,
    traps: Vec<(u32, TrapCode)>,
    /// `(code offset, wasm byte offset)` at which each source range starts.
    srclocs: Vec<(u32, u32)>,
    /// The machine code as text, when the `Context` asked for it
    /// (`set_disasm`, the golden-code tests).
    vcode: Option<String>,
    /// Offsets of its innermost loops' headers (see [`loop_align`]).
    loop_heads: Vec<u32>,
}

impl CompiledFunction {
    /// Machine code of a function that needs no linking (a trampoline).
    pub fn body(&self) -> &[u8] {
        debug_assert!(self.relocs.is_empty(), "standalone code cannot have relocations");
        &self.body
    }
}

/// Location of a function in a module's code image.
#[derive(Copy, Clone, Debug)]
pub struct FunctionLoc {
    pub start: u32,
    pub len: u32,
}

/// A module's linked, executable code and what is known about it.
pub struct CompiledModule {
    pub code: CodeMemory,
    pub funcs: PrimaryMap<DefinedFuncIndex, FunctionLoc>,
    /// Offset of the entry trampoline of each defined function's signature.
    pub entry_trampolines: PrimaryMap<DefinedFuncIndex, u32>,
    /// Trap sites, sorted by code offset.
    pub traps: Vec<(u32, TrapCode)>,
    /// Source locations, sorted by code offset.
    pub srclocs: Vec<(u32, u32)>,
    /// The addresses of this process in the image.
    pub relocs: Vec<ImageReloc>,
    /// For a lazily compiled module, what compiles its functions (`funcs`
    /// are then their stubs, and `traps` and `srclocs` are empty: the
    /// functions' own are kept in here).
    pub lazy: Option<Box<lazy::LazyCode>>,
}

impl CompiledModule {
    /// The trap recorded for the instruction at `offset` in the code, if
    /// it is a trap site.
    pub fn trap_at(&self, offset: u32) -> Option<TrapCode> {
        if let Some(lazy) = &self.lazy {
            return lazy.trap_at(offset);
        }
        self.traps.binary_search_by_key(&offset, |(o, _)| *o).ok().map(|i| self.traps[i].1)
    }

    /// The defined function whose code holds `offset`, and the wasm
    /// offsets of the source location there: empty if there is none, one
    /// for code of that function, several (outermost call site first) for
    /// code inlined into it (see `inline`).
    pub fn frame_at(&self, offset: u32) -> Option<(DefinedFuncIndex, Vec<u32>)> {
        if let Some(lazy) = &self.lazy {
            return lazy.frame_at(offset);
        }
        let (d, _) = self.funcs.iter().find(|(_, f)| f.start <= offset && offset < f.start + f.len)?;
        Some((d, source_chain(&self.srclocs, offset)))
    }
}

/// The wasm offsets of the source range holding code `offset` in
/// `srclocs` (sorted by code offset): the entries that start where the
/// last one at or before `offset` starts, which are one inline chain.
fn source_chain(srclocs: &[(u32, u32)], offset: u32) -> Vec<u32> {
    let end = srclocs.partition_point(|(o, _)| *o <= offset);
    let Some(&(at, _)) = end.checked_sub(1).map(|i| &srclocs[i]) else { return Vec::new() };
    let start = srclocs[..end].iter().rposition(|(o, _)| *o != at).map_or(0, |p| p + 1);
    srclocs[start..end].iter().map(|&(_, l)| l).collect()
}

thread_local! {
    /// The register allocator's scratch context of this thread's open
    /// [`RegallocScope`], between two functions.
    static REGALLOC: std::cell::RefCell<Option<regalloc2::Ctx>> = const { std::cell::RefCell::new(None) };
    /// Whether a [`RegallocScope`] is open on this thread.
    static REGALLOC_SCOPE: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// While one is alive, the functions this thread compiles share one
/// register allocator context, as `Context::compile` would reuse its own
/// (a fresh one per function costs lua.wasm's compile 1.2 % more
/// instructions). It is freed with the scope, not kept with the thread:
/// an idle thread keeps no compiler state. `parallel_map`'s workers open
/// one; elsewhere each function gets a fresh context.
pub(crate) struct RegallocScope {
    opened: bool,
}

impl RegallocScope {
    pub(crate) fn open() -> RegallocScope {
        RegallocScope { opened: !REGALLOC_SCOPE.replace(true) }
    }

    /// Runs `f` with the open scope's context, or a fresh one.
    fn with<T>(f: impl FnOnce(&mut regalloc2::Ctx) -> T) -> T {
        let mut regalloc = REGALLOC.take().unwrap_or_default();
        let out = f(&mut regalloc);
        if REGALLOC_SCOPE.get() {
            REGALLOC.set(Some(regalloc));
        }
        out
    }
}

impl Drop for RegallocScope {
    fn drop(&mut self) {
        if self.opened {
            REGALLOC_SCOPE.set(false);
            drop(REGALLOC.take());
        }
    }
}

/// Our passes over a function between Cranelift's optimiser and its code
/// generator (each has a `Config` switch to measure it).
#[derive(Copy, Clone, Debug, Default)]
pub struct LatePasses {
    /// [`widen_loads`] and [`widen_params`] (`Config::widen_loads`).
    pub widen_loads: bool,
    /// [`loop_exits`] (`Config::loop_passes`).
    pub loop_passes: bool,
    /// [`address_steps`] (`Config::address_steps`).
    pub address_steps: bool,
    /// [`mul_consts`] (`Config::mul_consts`).
    pub mul_consts: bool,
}

impl LatePasses {
    /// None: trampolines, which have neither loads to widen nor loops.
    pub const NONE: LatePasses =
        LatePasses { widen_loads: false, loop_passes: false, address_steps: false, mul_consts: false };

    /// The passes `env`'s configuration asks for.
    pub fn of(env: &ModuleEnv<'_>) -> LatePasses {
        LatePasses {
            widen_loads: env.widen_loads,
            loop_passes: env.loop_passes,
            address_steps: env.address_steps,
            mul_consts: env.mul_consts,
        }
    }
}

/// Compiles one Cranelift function and collects what linking needs.
/// `passes` run between Cranelift's optimiser and its code generator,
/// which `Context::compile` runs as one step; so this calls them one by
/// one, with a register allocator context of its own (the `Context`'s is
/// private to Cranelift). The machine code text, when `ctx` asks for it,
/// is in the result, not in `ctx`.
pub fn compile_function(isa: &dyn TargetIsa, ctx: &mut Context, passes: LatePasses) -> Result<CompiledFunction> {
    let failed =
        |e: cranelift_codegen::CodegenError| Error::unsupported(format_args!("code generation failed: {e:?}"), None);
    let mut ctrl = ControlPlane::default();
    let names = ctx.func.params.user_named_funcs().clone();
    ctx.optimize(isa, &mut ctrl).map_err(failed)?;
    // The exit pass first: it needs the loop counters' i32 steps, which
    // widening the parameters turns into extensions.
    if passes.loop_passes {
        loop_exits::recompute_loop_exit_values(&mut ctx.func, &ctx.cfg);
    }
    if passes.widen_loads {
        widen_loads::widen_extended_loads(&mut ctx.func);
        widen_params::widen_loop_params(&mut ctx.func, &ctx.cfg, &ctx.domtree);
    }
    // After widening: it steps the 64-bit loop parameters made there.
    if passes.address_steps {
        address_steps::fold_address_steps(&mut ctx.func, &ctx.domtree);
    }
    if passes.mul_consts {
        mul_consts::reduce_multiplications(&mut ctx.func);
    }
    if passes.widen_loads || passes.loop_passes || passes.address_steps || passes.mul_consts {
        ctx.verify_if(isa).map_err(failed)?;
    }
    let stencil = RegallocScope::with(|regalloc| {
        isa.compile_function(&ctx.func, &ctx.domtree, regalloc, ctx.want_disasm, &mut ctrl)
    })
    .map_err(failed)?;
    let compiled = stencil.apply_params(&ctx.func.params);
    let buffer = &compiled.buffer;
    let mut relocs = Vec::new();
    for r in buffer.relocs() {
        let target = match &r.target {
            FinalizedRelocTarget::ExternalName(ExternalName::User(name)) => match names[*name].namespace {
                FUNC_NAMESPACE => RelocTarget::Func(FuncIndex::from_u32(names[*name].index)),
                SIGNATURE_NAMESPACE => {
                    RelocTarget::Process(ProcessAddress::Signature(TypeIndex::from_u32(names[*name].index)))
                }
                other => return Err(Error::unsupported(format_args!("external name namespace {other}"), None)),
            },
            FinalizedRelocTarget::ExternalName(ExternalName::LibCall(l)) => {
                RelocTarget::Process(ProcessAddress::LibCall(*l))
            }
            other => return Err(Error::unsupported(format_args!("relocation target {other:?}"), None)),
        };
        relocs.push((r.offset, r.kind, target, r.addend));
    }
    let traps = buffer
        .traps()
        .iter()
        .map(|t| (t.offset, TrapCode::from_clif(t.code).unwrap_or(TrapCode::Unreachable)))
        .collect();
    // Empty ranges cover no code; without them, two entries share a code
    // offset only where they are one inline chain (see `inline`).
    let srclocs = buffer
        .get_srclocs_sorted()
        .iter()
        .filter(|s| s.start < s.end && !s.loc.is_default())
        .map(|s| (s.start, s.loc.bits()))
        .collect();
    Ok(CompiledFunction {
        body: buffer.data().to_vec(),
        alignment: buffer.alignment,
        relocs,
        traps,
        srclocs,
        loop_heads: loop_align::innermost_loop_heads(&compiled.bb_edges),
        vcode: compiled.vcode,
    })
}

/// Function bodies below this total size are compiled on the calling
/// thread: starting threads would cost more than they save.
const PARALLEL_THRESHOLD_BYTES: usize = 64 * 1024;

/// Validates, translates and compiles every function body of a module.
pub fn compile_module(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: Vec<FunctionBodyData<'_>>,
    parallel: bool,
) -> Result<CompiledModule> {
    let total: usize = bodies.iter().map(|b| (b.body.range().end - b.body.range().start) as usize).sum();
    let threads = if parallel && total >= PARALLEL_THRESHOLD_BYTES {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(bodies.len())
    } else {
        1
    };
    if env.inlining {
        let funcs = inline::compile_functions(isa, env, bodies, threads)?;
        return link(isa, env, funcs);
    }

    let bodies: Vec<Mutex<Option<FunctionBodyData<'_>>>> = bodies.into_iter().map(|b| Mutex::new(Some(b))).collect();
    let scratch = || (FunctionBuilderContext::new(), Context::new(), FuncValidatorAllocations::default());
    let funcs = parallel_map(bodies.len(), threads, scratch, |(fctx, ctx, allocs), i| {
        let data = bodies[i].lock().unwrap().take().expect("each body is taken once");
        translate_and_compile(isa, env, i, data, allocs, fctx, ctx, false)
    })?;
    link(isa, env, funcs)
}

/// The immediate of `v` when an `iconst` defines it (its bits, for an i32
/// in the low half as Cranelift keeps them).
pub(crate) fn iconst_bits(dfg: &ir::DataFlowGraph, v: ir::Value) -> Option<i64> {
    match dfg.insts[dfg.value_def(v).inst()?] {
        ir::InstructionData::UnaryImm { opcode: ir::Opcode::Iconst, imm } => Some(imm.bits()),
        _ => None,
    }
}

/// `f(scratch, i)` for every `i < n`, on `threads` threads (each with its
/// own scratch state from `init`). Stops at the first error; the error of
/// the lowest index is returned.
pub(crate) fn parallel_map<T: Send, S>(
    n: usize,
    threads: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, usize) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    let results: Vec<Mutex<Option<Result<T>>>> = (0..n).map(|_| Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        let _regalloc = RegallocScope::open();
        let mut scratch = init();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                break;
            }
            let result = f(&mut scratch, i);
            let failed = result.is_err();
            *results[i].lock().unwrap() = Some(result);
            if failed {
                next.store(n, Ordering::Relaxed);
            }
        }
    };
    if threads > 1 {
        std::thread::scope(|s| {
            for _ in 0..threads.min(n) {
                s.spawn(work);
            }
        });
    } else {
        work();
    }
    let mut out = Vec::with_capacity(n);
    for r in results {
        match r.into_inner().unwrap() {
            Some(r) => out.push(r?),
            None => return Err(Error::unsupported("compilation stopped early", None)),
        }
    }
    Ok(out)
}

/// Validates, translates and compiles defined function `i` in `ctx`,
/// keeping the disassembly there when `disasm` asks for it.
#[allow(clippy::too_many_arguments, reason = "the per-thread scratch state of one compilation")]
fn translate_and_compile(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    i: usize,
    data: FunctionBodyData<'_>,
    allocs: &mut FuncValidatorAllocations,
    fctx: &mut FunctionBuilderContext,
    ctx: &mut Context,
    disasm: bool,
) -> Result<CompiledFunction> {
    let mut validator = data.validator.into_validator(std::mem::take(allocs));
    let index = env.info.func_index(DefinedFuncIndex::new(i));
    ctx.clear();
    ctx.set_disasm(disasm);
    let result =
        translate::translate_function(FuncEnv::new(env), index, &data.body, &mut validator, &mut ctx.func, fctx)
            .and_then(|()| compile_function(isa, ctx, LatePasses::of(env)));
    *allocs = validator.into_allocations();
    result
}

/// One defined function's code as text: the hook of the golden-code tests
/// (`tests/disas`), which compare it with the expected text checked in.
pub struct FunctionText {
    pub index: FuncIndex,
    /// The Cranelift IR after Cranelift's optimisations.
    pub clif: String,
    /// The machine code, as Cranelift's disassembly of its final
    /// instructions (registers allocated, before encoding).
    pub asm: String,
}

/// Compiles every defined function as [`compile_module`] does, on this
/// thread, and returns each one's code as text instead of linking it.
pub fn function_texts(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: Vec<FunctionBodyData<'_>>,
) -> Result<Vec<FunctionText>> {
    if env.inlining {
        return inline::function_texts(isa, env, bodies);
    }
    let (mut fctx, mut ctx, mut allocs) = (FunctionBuilderContext::new(), Context::new(), Default::default());
    let mut texts = Vec::new();
    for (i, data) in bodies.into_iter().enumerate() {
        let asm =
            translate_and_compile(isa, env, i, data, &mut allocs, &mut fctx, &mut ctx, true)?.vcode.unwrap_or_default();
        let index = env.info.func_index(DefinedFuncIndex::new(i));
        texts.push(FunctionText { index, clif: ctx.func.display().to_string(), asm });
    }
    Ok(texts)
}

/// Lays out functions and entry trampolines in one image and resolves
/// relocations.
fn link(isa: &dyn TargetIsa, env: &ModuleEnv<'_>, funcs: Vec<CompiledFunction>) -> Result<CompiledModule> {
    let mut image = Vec::new();
    let mut relocs = Vec::new();
    let mut locs = PrimaryMap::<DefinedFuncIndex, FunctionLoc>::new();
    let mut traps = Vec::new();
    let mut srclocs = Vec::new();
    let align = |image: &mut Vec<u8>, a: u32| image.resize(image.len().next_multiple_of(a.max(16) as usize), 0);

    for f in &funcs {
        align(&mut image, f.alignment);
        image.resize(image.len() + loop_align::start_padding(image.len(), &f.loop_heads), 0);
        let start = image.len() as u32;
        image.extend_from_slice(&f.body);
        locs.push(FunctionLoc { start, len: f.body.len() as u32 });
        traps.extend(f.traps.iter().map(|(o, c)| (start + o, *c)));
        srclocs.extend(f.srclocs.iter().map(|(o, l)| (start + o, *l)));
    }

    let entry_trampolines = entry_trampolines(isa, env, &mut image, &mut relocs, &|d| locs[d].start)?;
    for (f, loc) in funcs.iter().zip(locs.values()) {
        let body = &mut image[loc.start as usize..(loc.start + loc.len) as usize];
        resolve_relocs(body, loc.start, &f.relocs, env.info, &|d| locs[d].start, &mut relocs)?;
    }
    patch_image(&mut image, &relocs, env.info)?;
    let code = CodeMemory::new(&image)?;
    Ok(CompiledModule { code, funcs: locs, entry_trampolines, traps, srclocs, relocs, lazy: None })
}

/// Appends one entry trampoline per distinct signature of a defined
/// function to `image` (whose defined function `d` starts at `callee(d)`)
/// and returns each defined function's.
fn entry_trampolines(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    image: &mut Vec<u8>,
    relocs: &mut Vec<ImageReloc>,
    callee: &dyn Fn(DefinedFuncIndex) -> u32,
) -> Result<PrimaryMap<DefinedFuncIndex, u32>> {
    let mut fctx = FunctionBuilderContext::new();
    let mut ctx = Context::new();
    let mut by_type: HashMap<FuncType, u32> = HashMap::new();
    let mut entry_trampolines = PrimaryMap::new();
    for i in 0..env.info.num_defined_funcs() {
        let ty = env.info.func_type(env.info.func_index(DefinedFuncIndex::new(i)));
        let offset = match by_type.get(&ty) {
            Some(o) => *o,
            None => {
                ctx.clear();
                ctx.func = trampoline::entry_trampoline(isa, &ty, &mut fctx);
                let t = compile_function(isa, &mut ctx, LatePasses::NONE)?;
                image.resize(image.len().next_multiple_of(t.alignment.max(16) as usize), 0);
                let o = image.len() as u32;
                image.extend_from_slice(&t.body);
                resolve_relocs(&mut image[o as usize..], o, &t.relocs, env.info, callee, relocs)?;
                by_type.insert(ty, o);
                o
            }
        };
        entry_trampolines.push(offset);
    }
    Ok(entry_trampolines)
}

/// Patches the calls between the module's functions in `body`, the code
/// of a function placed at `func_start` (callee `d` at `callee(d)`), and
/// adds its other relocations to `out`.
fn resolve_relocs(
    body: &mut [u8],
    func_start: u32,
    relocs: &[(u32, Reloc, RelocTarget, i64)],
    info: &ModuleInfo,
    callee: &dyn Fn(DefinedFuncIndex) -> u32,
    out: &mut Vec<ImageReloc>,
) -> Result<()> {
    for &(offset, kind, target, addend) in relocs {
        let at = (func_start + offset) as usize;
        match (kind, target) {
            (Reloc::X86CallPCRel4 | Reloc::X86PCRel4 | Reloc::X86CallPLTRel4, RelocTarget::Func(f)) => {
                // Direct calls only ever target defined functions: imports
                // are called through the VMContext.
                let d = info
                    .defined_func_index(f)
                    .ok_or_else(|| Error::unsupported(format_args!("direct call to import {f:?}"), None))?;
                let delta = callee(d) as i64 + addend - at as i64;
                let delta = i32::try_from(delta).map_err(|_| Error::unsupported("code image too large", None))?;
                body[offset as usize..offset as usize + 4].copy_from_slice(&delta.to_le_bytes());
            }
            (Reloc::Abs8, RelocTarget::Process(target)) if addend == 0 => {
                out.push(ImageReloc { offset: at as u32, target });
            }
            (kind, target) => return Err(Error::unsupported(format_args!("relocation {kind:?} to {target:?}"), None)),
        }
    }
    Ok(())
}

/// Writes this process's addresses into `image` where `relocs` say. Fails
/// on a relocation outside the image or naming something the module does
/// not have.
pub fn patch_image(image: &mut [u8], relocs: &[ImageReloc], info: &ModuleInfo) -> Result<()> {
    for r in relocs {
        let addr = match r.target {
            ProcessAddress::LibCall(l) => libcall_address(l)?,
            ProcessAddress::Signature(t) => match info.types.get(t) {
                Some(ty) => ty.sig_id(),
                None => return Err(Error::unsupported(format_args!("relocation to signature {t:?}"), None)),
            },
        };
        let at = r.offset as usize;
        let slot = at.checked_add(8).and_then(|end| image.get_mut(at..end));
        let slot =
            slot.ok_or_else(|| Error::unsupported(format_args!("relocation at {at:#x} outside the code"), None))?;
        slot.copy_from_slice(&(addr as u64).to_le_bytes());
    }
    Ok(())
}

/// The floating-point helpers compiled code may call, in a fixed order: a
/// helper's position is its number in serialized modules.
pub const LIBCALLS: [LibCall; 10] = [
    LibCall::CeilF32,
    LibCall::CeilF64,
    LibCall::FloorF32,
    LibCall::FloorF64,
    LibCall::TruncF32,
    LibCall::TruncF64,
    LibCall::NearestF32,
    LibCall::NearestF64,
    LibCall::FmaF32,
    LibCall::FmaF64,
];

/// Floating-point helpers Cranelift calls on hosts without the matching
/// instructions (SSE4.1 rounding, FMA).
fn libcall_address(l: LibCall) -> Result<usize> {
    extern "C" fn ceilf32(x: f32) -> f32 {
        x.ceil()
    }
    extern "C" fn ceilf64(x: f64) -> f64 {
        x.ceil()
    }
    extern "C" fn floorf32(x: f32) -> f32 {
        x.floor()
    }
    extern "C" fn floorf64(x: f64) -> f64 {
        x.floor()
    }
    extern "C" fn truncf32(x: f32) -> f32 {
        x.trunc()
    }
    extern "C" fn truncf64(x: f64) -> f64 {
        x.trunc()
    }
    extern "C" fn nearestf32(x: f32) -> f32 {
        x.round_ties_even()
    }
    extern "C" fn nearestf64(x: f64) -> f64 {
        x.round_ties_even()
    }
    extern "C" fn fmaf32(a: f32, b: f32, c: f32) -> f32 {
        a.mul_add(b, c)
    }
    extern "C" fn fmaf64(a: f64, b: f64, c: f64) -> f64 {
        a.mul_add(b, c)
    }
    Ok(match l {
        LibCall::CeilF32 => ceilf32 as *const () as usize,
        LibCall::CeilF64 => ceilf64 as *const () as usize,
        LibCall::FloorF32 => floorf32 as *const () as usize,
        LibCall::FloorF64 => floorf64 as *const () as usize,
        LibCall::TruncF32 => truncf32 as *const () as usize,
        LibCall::TruncF64 => truncf64 as *const () as usize,
        LibCall::NearestF32 => nearestf32 as *const () as usize,
        LibCall::NearestF64 => nearestf64 as *const () as usize,
        LibCall::FmaF32 => fmaf32 as *const () as usize,
        LibCall::FmaF64 => fmaf64 as *const () as usize,
        other => return Err(Error::unsupported(format_args!("libcall {other}"), None)),
    })
}
