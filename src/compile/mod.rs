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
mod edge_args;
pub mod func_env;
mod inline;
pub mod lazy;
mod loop_align;
mod loop_bounds64;
mod loop_exits;
mod mul_consts;
#[cfg(test)]
mod tests;
mod trampoline;
mod translate;
mod trap_codes;
mod widen_loads;
mod widen_params;

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use cranelift_codegen::binemit::Reloc;
use cranelift_codegen::control::ControlPlane;
use cranelift_codegen::entity::{EntityRef, PrimaryMap};
use cranelift_codegen::ir::{self, ExternalName};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::{Context, RelocTarget as ClifRelocTarget};
use cranelift_frontend::FunctionBuilderContext;
use wasmparser::FuncValidatorAllocations;

use crate::environ::compiled::{
    resolve_relocs, CodeTables, CompiledImage, FuncReloc, FunctionCode, FunctionLoc, Handler, ImageReloc, LibCall,
    ProcessAddress, RelocKind, RelocTarget, StackMap,
};
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::parse::FunctionBodyData;
use crate::environ::types::{FuncType, ValType};
use crate::runtime::vm::os;
use func_env::{FuncEnv, ModuleEnv, FUNC_NAMESPACE};

/// Machine code of one function before linking, with what only the
/// compiler's own users need.
pub struct CompiledFunction {
    pub code: FunctionCode,
    /// The machine code as text, when the `Context` asked for it
    /// (`set_disasm`, the golden-code tests).
    vcode: Option<String>,
    /// Offsets of its innermost loops' headers (see [`loop_align`]).
    loop_heads: Vec<u32>,
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
    /// [`loop_exits`] and [`loop_bounds64`] (`Config::loop_passes`).
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
        loop_bounds64::check_loop_addresses_once(&mut ctx.func, &ctx.cfg, &ctx.domtree);
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
            ClifRelocTarget::ExternalName(ExternalName::User(name)) => match names[*name].namespace {
                FUNC_NAMESPACE => RelocTarget::Func(FuncIndex::from_u32(names[*name].index)),
                other => return Err(Error::unsupported(format_args!("external name namespace {other}"), None)),
            },
            ClifRelocTarget::ExternalName(ExternalName::LibCall(l)) => {
                RelocTarget::Process(ProcessAddress::LibCall(libcall(*l)?))
            }
            other => return Err(Error::unsupported(format_args!("relocation target {other:?}"), None)),
        };
        let kind = match r.kind {
            Reloc::X86CallPCRel4 | Reloc::X86PCRel4 | Reloc::X86CallPLTRel4 => RelocKind::PcRel32,
            Reloc::Abs8 => RelocKind::Abs8,
            Reloc::Arm64Call => RelocKind::Arm64Call,
            other => return Err(Error::unsupported(format_args!("relocation {other:?} to {target:?}"), None)),
        };
        relocs.push(FuncReloc { offset: r.offset, kind, target, addend: r.addend });
    }
    let traps = buffer
        .traps()
        .iter()
        .map(|t| {
            (t.offset, trap_codes::from_clif(t.code).unwrap_or(crate::environ::trap::TrapCode::UnreachableCodeReached))
        })
        .collect();
    // Empty ranges cover no code; without them, two entries share a code
    // offset only where they are one inline chain (see `inline`).
    let srclocs = buffer
        .get_srclocs_sorted()
        .iter()
        // `apply_params` made every location absolute.
        .map(|s| (s.start, s.end, s.loc.as_abs()))
        .filter(|&(start, end, loc)| start < end && !loc.is_default())
        .map(|(start, _, loc)| (start, loc.bits()))
        .collect();
    let handlers = exception_handlers(buffer)?;
    let stack_maps = stack_maps(buffer)?;
    Ok(CompiledFunction {
        code: FunctionCode {
            body: buffer.data().to_vec(),
            alignment: buffer.min_alignment,
            relocs,
            traps,
            srclocs,
            handlers,
            stack_maps,
        },
        loop_heads: loop_align::innermost_loop_heads(&compiled.bb_edges),
        vcode: compiled.vcode,
    })
}

/// The call sites of `buffer` with an exception handler. Our handlers
/// catch everything (each compares tags itself, see `vm::exception`), so
/// a site has one default handler, and needs its frame size. A call of a
/// callee inlined at a `try_call` has the callee's handler first and the
/// call site's after it (Cranelift appends the outer table); the first
/// is the innermost, and the only one that can run.
fn exception_handlers(buffer: &cranelift_codegen::MachBufferFinalized) -> Result<Vec<Handler>> {
    let mut handlers = Vec::new();
    for site in buffer.call_sites() {
        let first = site.exception_handlers.iter().find_map(|h| match h {
            cranelift_codegen::MachExceptionHandler::Default(target) => Some(target.as_offset()),
            _ => None,
        });
        if let Some(handler) = first {
            let frame_offset = site
                .frame_offset
                .ok_or_else(|| Error::unsupported("an exception handler without a frame size", None))?;
            handlers.push(Handler { ret: site.ret_addr, handler, frame_offset });
        }
    }
    handlers.sort_by_key(|h| h.ret);
    Ok(handlers)
}

/// The GC stack maps of `buffer`'s call sites (see
/// `translate::stack_maps`), one per call with a root live across it.
fn stack_maps(buffer: &cranelift_codegen::MachBufferFinalized) -> Result<Vec<StackMap>> {
    let mut maps = Vec::new();
    for (ret, span, map) in buffer.user_stack_maps() {
        let mut slots = Vec::new();
        for (ty, offset) in map.entries() {
            // Roots are reference words, and references are 64-bit.
            if ty != ir::types::I64 {
                return Err(Error::unsupported(format_args!("a stack map entry of type {ty}"), None));
            }
            slots.push(offset);
        }
        maps.push(StackMap { ret: *ret, span: *span, slots: slots.into() });
    }
    maps.sort_by_key(|m| m.ret);
    Ok(maps)
}

/// The machine code of a function that needs no linking (a trampoline).
fn standalone(isa: &dyn TargetIsa, func: ir::Function) -> Result<Vec<u8>> {
    let mut ctx = Context::for_function(func);
    let code = compile_function(isa, &mut ctx, LatePasses::NONE)?.code;
    debug_assert!(code.relocs.is_empty(), "standalone code cannot have relocations");
    Ok(code.body)
}

/// The machine code of the wasm→host trampoline of signature `ty` (see
/// [`trampoline::exit_trampoline`]).
pub fn exit_trampoline(isa: &dyn TargetIsa, ty: &FuncType) -> Result<Vec<u8>> {
    standalone(isa, trampoline::exit_trampoline(isa, ty, &mut FunctionBuilderContext::new()))
}

/// The machine code of the host→C trampoline for a C function of `params`
/// and `results` (see [`trampoline::native_trampoline`]).
pub fn native_trampoline(isa: &dyn TargetIsa, params: &[ValType], results: &[ValType]) -> Result<Vec<u8>> {
    standalone(isa, trampoline::native_trampoline(isa, params, results, &mut FunctionBuilderContext::new()))
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
) -> Result<CompiledImage> {
    let total: usize = bodies.iter().map(|b| (b.body.range().end - b.body.range().start) as usize).sum();
    let threads = if parallel && total >= PARALLEL_THRESHOLD_BYTES {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(bodies.len())
    } else {
        1
    };
    let funcs = if env.inlining {
        inline::compile_functions(isa, env, bodies, threads)?
    } else {
        let bodies: Vec<Mutex<Option<FunctionBodyData<'_>>>> =
            bodies.into_iter().map(|b| Mutex::new(Some(b))).collect();
        let scratch = || (FunctionBuilderContext::new(), Context::new(), FuncValidatorAllocations::default());
        parallel_map(bodies.len(), threads, scratch, |(fctx, ctx, allocs), i| {
            let data = bodies[i].lock().unwrap().take().expect("each body is taken once");
            translate_and_compile(isa, env, i, data, allocs, fctx, ctx, false)
        })?
    };
    let image = link(isa, env, funcs);
    if threads > 1 {
        os::return_free_heap();
    }
    image
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
    ctx.clear();
    ctx.set_disasm(disasm);
    translate_body(env, i, data, allocs, fctx, ctx)?;
    compile_function(isa, ctx, LatePasses::of(env))
}

/// Validates and translates defined function `i` into `ctx.func`, reusing
/// the validator's allocations.
pub(super) fn translate_body(
    env: &ModuleEnv<'_>,
    i: usize,
    data: FunctionBodyData<'_>,
    allocs: &mut FuncValidatorAllocations,
    fctx: &mut FunctionBuilderContext,
    ctx: &mut Context,
) -> Result<()> {
    let mut validator = data.validator.into_validator(std::mem::take(allocs));
    let index = env.info.func_index(DefinedFuncIndex::new(i));
    let result =
        translate::translate_function(FuncEnv::new(env), index, &data.body, &mut validator, &mut ctx.func, fctx);
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

/// Lays out functions and entry trampolines in one image and resolves the
/// calls between them; the process addresses are left for the runtime to
/// write when it loads the image.
fn link(isa: &dyn TargetIsa, env: &ModuleEnv<'_>, funcs: Vec<CompiledFunction>) -> Result<CompiledImage> {
    let mut image = Vec::new();
    let mut relocs = Vec::new();
    let mut locs = PrimaryMap::<DefinedFuncIndex, FunctionLoc>::new();
    let mut traps = Vec::new();
    let mut srclocs = Vec::new();
    let mut handlers = Vec::new();
    let mut stack_maps = Vec::new();
    for f in &funcs {
        align(&mut image, f.code.alignment);
        if env.loop_align {
            image.resize(image.len() + loop_align::start_padding(image.len(), &f.loop_heads), 0);
        }
        let start = image.len() as u32;
        image.extend_from_slice(&f.code.body);
        locs.push(FunctionLoc { start, len: f.code.body.len() as u32 });
        traps.extend(f.code.traps.iter().map(|(o, c)| (start + o, *c)));
        srclocs.extend(f.code.srclocs.iter().map(|(o, l)| (start + o, *l)));
        handlers.extend(f.code.handlers.iter().map(|h| h.moved(start)));
        stack_maps.extend(f.code.stack_maps.iter().map(|m| m.moved(start)));
    }

    let entry_trampolines = entry_trampolines(isa, env, &mut image, &mut relocs, &|d| locs[d].start)?;
    let defined = |f| env.info.defined_func_index(f);
    for (f, loc) in funcs.iter().zip(locs.values()) {
        let body = &mut image[loc.start as usize..(loc.start + loc.len) as usize];
        resolve_relocs(body, loc.start, &f.code.relocs, &defined, &|d| locs[d].start, &mut relocs)?;
    }
    let tables = CodeTables { funcs: locs, entry_trampolines, traps, srclocs, handlers, stack_maps, relocs };
    Ok(CompiledImage { image, tables })
}

/// Pads `image` to a multiple of `alignment` (at least 16 bytes).
pub fn align(image: &mut Vec<u8>, alignment: u32) {
    image.resize(image.len().next_multiple_of(alignment.max(16) as usize), 0);
}

/// Appends one entry trampoline per distinct signature of a defined
/// function to `image` (whose defined function `d` starts at `callee(d)`)
/// and returns each defined function's.
pub fn entry_trampolines(
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
        let offset = match by_type.get(ty) {
            Some(o) => *o,
            None => {
                ctx.clear();
                ctx.func = trampoline::entry_trampoline(isa, ty, &mut fctx);
                let t = compile_function(isa, &mut ctx, LatePasses::NONE)?.code;
                align(image, t.alignment);
                let o = image.len() as u32;
                image.extend_from_slice(&t.body);
                let defined = |f| env.info.defined_func_index(f);
                resolve_relocs(&mut image[o as usize..], o, &t.relocs, &defined, callee, relocs)?;
                by_type.insert(ty.clone(), o);
                o
            }
        };
        entry_trampolines.push(offset);
    }
    Ok(entry_trampolines)
}

/// Our name for a floating-point helper Cranelift calls.
fn libcall(l: ir::LibCall) -> Result<LibCall> {
    Ok(match l {
        ir::LibCall::CeilF32 => LibCall::CeilF32,
        ir::LibCall::CeilF64 => LibCall::CeilF64,
        ir::LibCall::FloorF32 => LibCall::FloorF32,
        ir::LibCall::FloorF64 => LibCall::FloorF64,
        ir::LibCall::TruncF32 => LibCall::TruncF32,
        ir::LibCall::TruncF64 => LibCall::TruncF64,
        ir::LibCall::NearestF32 => LibCall::NearestF32,
        ir::LibCall::NearestF64 => LibCall::NearestF64,
        ir::LibCall::FmaF32 => LibCall::FmaF32,
        ir::LibCall::FmaF64 => LibCall::FmaF64,
        other => return Err(Error::unsupported(format_args!("libcall {other}"), None)),
    })
}
