//! Inlining small functions of a module into their callers
//! (`Config::cranelift_inlining`), with Cranelift's inliner.
//!
//! The pipeline differs from the plain one only in its middle: every body
//! is translated (in parallel), then the direct calls between defined
//! functions are inlined one function at a time, callees before callers
//! (the call graph's strongly connected components in Tarjan's order,
//! which finishes a component after every component it calls), and then
//! every function is compiled (in parallel) and linked as usual.
//!
//! The policy, by design small and predictable:
//! - a callee is inlined when its translated body has at most
//!   [`CALLEE_MAX_INSTS`] instructions, it is finished (its own callees
//!   are already inlined into it), it is not in the caller's component
//!   (no mutual recursion is unrolled), and it makes no tail call unless
//!   the call is one (inlined into a plain call, a tail call would become
//!   a plain call);
//! - a caller grows by at most [`growth_budget`] instructions, and a huge
//!   one not at all.
//!
//! Self-recursion is never unrolled: a one-level unroll of small
//! self-recursive functions, sized for the fib kernel, changed nothing
//! measurable on the real programs (`benches/README.md`, "Issue 32"), and
//! was removed.
//!
//! Calls inside `try_table` (Cranelift's `try_call`) are inlined like any
//! other: Cranelift turns the inlined body's calls into `try_call`s to the
//! same handler. A throw in the body is such a call of the runtime's
//! `throw`, which looks for a handler at its own call site before it walks
//! up the stack (`vm::exception::throw_at`), so the handler in this frame
//! catches it.
//!
//! Imports are never candidates: they are called through their funcref,
//! not by a direct `call`. A defined callee takes the caller's VMContext
//! (see `func_env::call`), so the inlined body's VMContext is the
//! caller's, as it must be.
//!
//! Source locations. Cranelift's inliner does not carry source locations
//! over, but it does carry debug tags, and prepends the call's tags to
//! each inlined instruction's. So while inlining, each callee instruction
//! is tagged with its wasm offset and each call with its own; an inlined
//! instruction ends up tagged with its inline chain, outermost call site
//! first. Before code generation the tags are removed again: an
//! instruction with a chain gets a synthetic source location
//! ([`CHAIN`] | index into the function's chain table), and
//! [`expand_srclocs`] turns its code range's one entry into one entry per
//! frame at the same code offset, outermost first. Trap lookup takes the
//! last entry at or before a pc, which is the innermost location, so trap
//! positions are right; the backtrace (`runtime::vm::entry`) makes one
//! frame per entry, naming the function whose body holds each offset.
//!
//! Fuel stays exact: the inlined body keeps its entry check and its
//! stores and loads of the store's counter around the former call, which
//! is what the call did. The callee's stack check disappears with its
//! frame; the caller's frame is larger and checked by its own.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Mutex;

use cranelift_codegen::entity::EntityRef;
use cranelift_codegen::inline::{Inline, InlineCommand};
use cranelift_codegen::ir::{self, DebugTag, ExternalName, Function, InstructionData, Opcode, SourceLoc};
use cranelift_codegen::isa::TargetIsa;
use cranelift_codegen::Context;
use cranelift_frontend::FunctionBuilderContext;
use wasmparser::FuncValidatorAllocations;

use super::func_env::{ModuleEnv, FUNC_NAMESPACE};
use super::LatePasses;
use super::{compile_function, parallel_map, translate_body, CompiledFunction, FunctionText};
use crate::environ::error::{Error, Result};
use crate::environ::index::{DefinedFuncIndex, FuncIndex};
use crate::environ::module_info::ModuleInfo;
use crate::environ::parse::FunctionBodyData;

/// Largest callee inlined, in translated (unoptimised) CLIF instructions:
/// accessors, small arithmetic helpers, short loops.
pub const CALLEE_MAX_INSTS: usize = 40;

/// How many instructions inlining may add to a caller of `own` instructions:
/// as much again, but never less than a few callees' worth, so that small
/// callers still inline their helpers and huge ones (an interpreter loop)
/// do not double in compile time.
///
/// A caller above [`HUGE_CALLER_INSTS`] takes nothing: register allocation
/// grows faster than a function's size, and at that size it showed. The
/// regex program's 21,827-instruction matcher grew 2 % by inlining and took
/// 37 % longer to compile (148 to 203 ms), for no change in run time;
/// leaving it alone made the module compile 0.92x as long
/// (`benches/README.md`, "Issue 34"). The next largest functions of the
/// real programs (markdown's 9,825, Lua's interpreter loop at 8,687)
/// compile no slower for their inlining.
fn growth_budget(own: usize) -> usize {
    if own > HUGE_CALLER_INSTS {
        return 0;
    }
    own.clamp(6 * CALLEE_MAX_INSTS, 1000)
}

/// The size, in translated instructions, above which a caller inlines
/// nothing ([`growth_budget`]).
pub const HUGE_CALLER_INSTS: usize = 16_000;

/// The flag of a synthetic source location: the rest is an index into the
/// function's table of inline chains. Wasm offsets stay below it (modules
/// of 1 GiB or more are not inlined). Not bit 31: Cranelift keeps source
/// locations as 31-bit values (`MaybeRelSourceLoc` uses the top bit for
/// itself) and drops it.
const CHAIN: u32 = 1 << 30;

/// The inline chains (wasm offsets, outermost call site first) of one
/// function's synthetic source locations.
pub type Chains = Vec<Box<[u32]>>;

/// Validates, translates, inlines and compiles every function body.
pub(super) fn compile_functions(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: Vec<FunctionBodyData<'_>>,
    threads: usize,
) -> Result<Vec<CompiledFunction>> {
    Ok(compile_all(isa, env, bodies, threads, false)?.into_iter().map(|(compiled, _)| compiled).collect())
}

/// [`super::function_texts`] with inlining: the same path as
/// [`compile_functions`], on one thread, keeping each function's text.
pub(super) fn function_texts(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: Vec<FunctionBodyData<'_>>,
) -> Result<Vec<FunctionText>> {
    let compiled = compile_all(isa, env, bodies, 1, true)?;
    Ok(compiled
        .into_iter()
        .enumerate()
        .map(|(i, (compiled, clif))| FunctionText {
            index: env.info.func_index(DefinedFuncIndex::new(i)),
            clif: clif.unwrap_or_default(),
            asm: compiled.vcode.unwrap_or_default(),
        })
        .collect())
}

/// The pipeline, in three steps, so that the module's translated functions
/// are never all held at once (for Lua, that was 16 MB of IR under the
/// compile of its largest function; `benches/README.md`, "Issue 36"):
/// 1. A scan of the wasm ([`plan`]) sorts the bodies. Those inlining cannot
///    involve are translated and compiled at once, as without inlining.
///    Possible callees (small bodies) are translated and held. Larger
///    callers of them are left as wasm for step 3.
/// 2. The held functions are inlined into each other, callees first
///    ([`inline_module`]), which finishes every callee.
/// 3. The held functions are compiled, and the deferred callers are
///    translated, inlined into from the finished callees, and compiled,
///    each dropped as soon as its code is out.
///
/// With `disasm`, each function's text is kept (IR after optimisation
/// beside the machine code).
fn compile_all(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: Vec<FunctionBodyData<'_>>,
    threads: usize,
    disasm: bool,
) -> Result<Vec<(CompiledFunction, Option<String>)>> {
    let starts = body_starts(&bodies);
    let (plans, scanned_callees) = plan(env.info, &bodies);
    let bodies: Vec<Mutex<Option<FunctionBodyData<'_>>>> = bodies.into_iter().map(|b| Mutex::new(Some(b))).collect();
    let translated = translate_all(isa, env, &bodies, &plans, threads, disasm)?;
    let mut done = Vec::with_capacity(translated.len());
    let (mut funcs, mut summaries) = (Vec::with_capacity(translated.len()), Vec::with_capacity(translated.len()));
    for (t, callees) in translated.into_iter().zip(scanned_callees) {
        let (compiled, func, summary) = match t {
            Translated::Compiled(c, text) => (Some((c, text)), Function::new(), Summary::NONE),
            Translated::Held(f, s) => (None, *f, s),
            // Never a callee, so only its calls matter, for the call graph.
            Translated::Deferred => (None, Function::new(), Summary { callees, ..Summary::NONE }),
        };
        done.push(compiled);
        funcs.push(func);
        summaries.push(summary);
    }
    let deferred: Vec<bool> = plans.iter().map(|p| *p == Plan::Defer).collect();
    let inlined = inline_module(env.info, &mut funcs, summaries, &starts, &deferred)?;

    // The deferred callers first, while the held bodies can be shared with
    // all of them; largest first, so that no thread is left with a big one
    // at the end while the others wait.
    let mut callers: Vec<usize> = (0..done.len()).filter(|i| deferred[*i]).collect();
    callers.sort_by_key(|i| std::cmp::Reverse(body_len(&bodies[*i])));
    let scratch = || (FunctionBuilderContext::new(), FuncValidatorAllocations::default(), Context::new());
    let compiled = parallel_map(callers.len(), threads, scratch, |(fctx, allocs, ctx), k| {
        let i = callers[k];
        let data = bodies[i].lock().unwrap().take().expect("each body is taken once");
        ctx.clear();
        ctx.set_disasm(disasm);
        translate_body(env, i, data, allocs, fctx, ctx)?;
        let chains = inlined.inline_into(env.info, &funcs, i, ctx)?;
        finish(isa, env, ctx, &chains, disasm)
    })?;
    for (i, c) in callers.into_iter().zip(compiled) {
        done[i] = Some(c);
    }

    let held: Vec<usize> = (0..done.len()).filter(|i| done[*i].is_none()).collect();
    let funcs: Vec<Mutex<Option<Function>>> = funcs.into_iter().map(|f| Mutex::new(Some(f))).collect();
    let compiled = parallel_map(held.len(), threads, Context::new, |ctx, k| {
        let i = held[k];
        ctx.clear();
        ctx.set_disasm(disasm);
        ctx.func = funcs[i].lock().unwrap().take().expect("each function is compiled once");
        // Only now: the deferred callers inlined copies of it, tags and all.
        let chains = untag(&mut ctx.func);
        finish(isa, env, ctx, &chains, disasm)
    })?;
    for (i, c) in held.into_iter().zip(compiled) {
        done[i] = Some(c);
    }
    Ok(done.into_iter().map(|c| c.expect("every function is compiled")).collect())
}

/// Compiles `ctx.func`, whose synthetic source locations index `chains`;
/// with `disasm`, also its IR as text.
fn finish(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    ctx: &mut Context,
    chains: &[Box<[u32]>],
    disasm: bool,
) -> Result<(CompiledFunction, Option<String>)> {
    let mut compiled = compile_function(isa, ctx, LatePasses::of(env))?;
    expand_srclocs(&mut compiled.code.srclocs, chains);
    Ok((compiled, disasm.then(|| ctx.func.display().to_string())))
}

fn body_len(body: &Mutex<Option<FunctionBodyData<'_>>>) -> usize {
    body.lock().unwrap().as_ref().map_or(0, |b| {
        let range = b.body.range();
        (range.end - range.start) as usize
    })
}

/// What [`compile_all`] does with a body first.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Plan {
    /// Translate and compile it: inlining cannot involve it.
    Compile,
    /// Translate it and hold it for inlining.
    Hold,
    /// Leave it until every callee is finished: a caller too large to be
    /// a callee.
    Defer,
}

/// The largest body, in operators, that may translate to a callee worth
/// inlining (an operator is at least about half an instruction). A callee
/// must be within this as well as [`CALLEE_MAX_INSTS`].
const CALLEE_MAX_OPS: usize = 2 * CALLEE_MAX_INSTS;

/// What to do with each body ([`Plan`]), from a scan of its wasm, and the
/// defined functions each calls. Inlining involves the small bodies
/// called by another function, and their callers. A body that cannot be
/// read is held (its translation reports the error).
fn plan(info: &ModuleInfo, bodies: &[FunctionBodyData<'_>]) -> (Vec<Plan>, Vec<Vec<usize>>) {
    let scan = |body: &wasmparser::FunctionBody<'_>| -> Option<(usize, Vec<usize>)> {
        let (mut ops, mut callees) = (0, Vec::new());
        let mut reader = body.get_operators_reader().ok()?;
        while !reader.eof() {
            ops += 1;
            if let wasmparser::Operator::Call { function_index } | wasmparser::Operator::ReturnCall { function_index } =
                reader.read().ok()?
            {
                // Not validated yet: the index may be out of range.
                let d = info.defined_func_index(FuncIndex::from_u32(function_index)).map(|d| d.index());
                callees.extend(d.filter(|d| *d < bodies.len()));
            }
        }
        Some((ops, callees))
    };
    let scans: Vec<Option<(usize, Vec<usize>)>> = bodies.iter().map(|b| scan(&b.body)).collect();
    let small = |d: usize| scans[d].as_ref().is_some_and(|(ops, _)| *ops <= CALLEE_MAX_OPS);
    let mut small_callee = vec![false; bodies.len()];
    let mut plans = vec![Plan::Compile; bodies.len()];
    for (f, scan) in scans.iter().enumerate() {
        match scan {
            Some((_, callees)) => {
                for &d in callees.iter().filter(|d| **d != f && small(**d)) {
                    small_callee[d] = true;
                    plans[f] = if small(f) { Plan::Hold } else { Plan::Defer };
                }
            }
            None => plans[f] = Plan::Hold,
        }
    }
    for (f, is_callee) in small_callee.into_iter().enumerate() {
        if is_callee {
            plans[f] = Plan::Hold;
        }
    }
    let callees = scans.into_iter().map(|s| s.map(|(_, callees)| callees).unwrap_or_default()).collect();
    (plans, callees)
}

fn body_starts(bodies: &[FunctionBodyData<'_>]) -> Vec<u32> {
    bodies.iter().map(|b| b.body.range().start as u32).collect()
}

/// What inlining needs to know of a translated function, found by the
/// thread that translated it (in parallel, while the function is in its
/// cache).
struct Summary {
    /// The defined functions it calls directly.
    callees: Vec<usize>,
    /// Its size in instructions.
    size: usize,
    /// Whether it makes a tail call.
    tail_calls: bool,
}

impl Summary {
    /// The summary of a function not held: too large to inline, and
    /// calling no function inlining could use unless said otherwise.
    const NONE: Summary = Summary { callees: Vec::new(), size: usize::MAX, tail_calls: false };
}

/// A function after [`translate_all`].
enum Translated {
    /// Compiled already (with its text, if asked for): inlining does not
    /// involve it.
    Compiled(CompiledFunction, Option<String>),
    /// Held for inlining (boxed: a `Function` is large).
    Held(Box<Function>, Summary),
    /// Not translated yet ([`Plan::Defer`]).
    Deferred,
}

/// Validates and translates every body that `plans` does not defer, on
/// `threads` threads, and compiles those it says to.
fn translate_all(
    isa: &dyn TargetIsa,
    env: &ModuleEnv<'_>,
    bodies: &[Mutex<Option<FunctionBodyData<'_>>>],
    plans: &[Plan],
    threads: usize,
    disasm: bool,
) -> Result<Vec<Translated>> {
    let scratch = || (FunctionBuilderContext::new(), FuncValidatorAllocations::default(), Context::new());
    parallel_map(bodies.len(), threads, scratch, |(fctx, allocs, ctx), i| {
        if plans[i] == Plan::Defer {
            return Ok(Translated::Deferred);
        }
        let data = bodies[i].lock().unwrap().take().expect("each body is taken once");
        ctx.clear();
        ctx.set_disasm(disasm);
        translate_body(env, i, data, allocs, fctx, ctx)?;
        if plans[i] == Plan::Compile {
            let (compiled, text) = finish(isa, env, ctx, &[], disasm)?;
            return Ok(Translated::Compiled(compiled, text));
        }
        let func = std::mem::replace(&mut ctx.func, Function::new());
        let summary = Summary {
            callees: direct_callees(env.info, &func).map(|(_, d)| d).collect(),
            size: inst_count(&func),
            tail_calls: has_tail_call(&func),
        };
        Ok(Translated::Held(Box::new(func), summary))
    })
}

/// What inlining into the held functions leaves for inlining into the
/// deferred callers. The held functions keep their tags until they are
/// compiled, so that copies inlined later still carry their chains.
struct Inlined {
    sizes: Vec<usize>,
    /// The finished functions small enough to inline (tagged).
    inlinable: Vec<bool>,
    tail_calls: Vec<bool>,
}

impl Inlined {
    /// Inlines the finished callees of deferred caller `f` (translated in
    /// `ctx.func`) into it; its inline chains.
    fn inline_into(&self, info: &ModuleInfo, funcs: &[Function], f: usize, ctx: &mut Context) -> Result<Chains> {
        let own = inst_count(&ctx.func);
        inline_calls(info, ctx, funcs, &self.sizes, &self.inlinable, &self.tail_calls, f, own)?;
        Ok(untag(&mut ctx.func))
    }
}

/// Inlines calls between the held functions `funcs` (by defined index;
/// `starts[i]` is the wasm offset of body `i`; the `deferred` ones are
/// placeholders, callers only); [`untag`] leaves them ready to compile.
fn inline_module(
    info: &ModuleInfo,
    funcs: &mut [Function],
    summaries: Vec<Summary>,
    starts: &[u32],
    deferred: &[bool],
) -> Result<Inlined> {
    let tail_calls: Vec<bool> = summaries.iter().map(|s| s.tail_calls).collect();
    let mut sizes: Vec<usize> = summaries.iter().map(|s| s.size).collect();
    let mut inlinable = vec![false; funcs.len()];
    if starts.iter().any(|s| *s >= CHAIN) {
        return Ok(Inlined { sizes, inlinable, tail_calls });
    }
    let graph: Vec<Vec<usize>> = summaries.into_iter().map(|s| s.callees).collect();
    let mut called = vec![false; funcs.len()];
    for (f, callees) in graph.iter().enumerate() {
        callees.iter().filter(|d| **d != f).for_each(|d| called[*d] = true);
    }
    let mut ctx = Context::new();
    for component in components(&graph) {
        for &f in component.iter().filter(|f| !deferred[**f]) {
            if !graph[f].iter().any(|d| inlinable[*d]) {
                continue;
            }
            ctx.func = std::mem::replace(&mut funcs[f], Function::new());
            inline_calls(info, &mut ctx, funcs, &sizes, &inlinable, &tail_calls, f, sizes[f])?;
            funcs[f] = std::mem::replace(&mut ctx.func, Function::new());
            sizes[f] = inst_count(&funcs[f]);
        }
        for &f in &component {
            if component.len() == 1 && called[f] && sizes[f] <= CALLEE_MAX_INSTS {
                tag_own(&mut funcs[f], starts[f]);
                inlinable[f] = true;
            }
        }
    }
    Ok(Inlined { sizes, inlinable, tail_calls })
}

/// Inlines into `ctx.func` (function `me`, of `own` instructions as
/// translated) the calls of the finished callees it may take.
#[allow(clippy::too_many_arguments, reason = "the inlining state, shared by the two callers' loops")]
fn inline_calls(
    info: &ModuleInfo,
    ctx: &mut Context,
    funcs: &[Function],
    sizes: &[usize],
    inlinable: &[bool],
    tail_calls: &[bool],
    me: usize,
    own: usize,
) -> Result<()> {
    let budget = growth_budget(own);
    if budget == 0 {
        return Ok(());
    }
    tag_calls(info, &mut ctx.func, |d| inlinable[d]);
    let mut policy = Policy { info, funcs, sizes, inlinable, tail_calls, me, budget };
    inline(ctx, &mut policy)
}

/// Runs Cranelift's inliner on `ctx.func`. It fails only on an
/// implementation limit (more distinct memory flags than it can number),
/// possibly half-way through a call site, so the module is refused with a
/// clear error rather than compiled from a broken function.
fn inline(ctx: &mut Context, policy: &mut Policy<'_>) -> Result<()> {
    match ctx.inline(policy) {
        Ok(_) => Ok(()),
        Err(e) => {
            Err(Error::unsupported(format_args!("inlining failed: {e:?} (Config::cranelift_inlining(false))"), None))
        }
    }
}

/// Which calls to inline, for one caller.
struct Policy<'a> {
    info: &'a ModuleInfo,
    funcs: &'a [Function],
    /// Their sizes in instructions.
    sizes: &'a [usize],
    /// The finished functions small enough to inline (tagged).
    inlinable: &'a [bool],
    /// The functions that make tail calls.
    tail_calls: &'a [bool],
    /// The caller.
    me: usize,
    /// Instructions the caller may still grow by.
    budget: usize,
}

impl Inline for Policy<'_> {
    fn inline(
        &mut self,
        caller: &Function,
        _call: ir::Inst,
        opcode: Opcode,
        callee: ir::FuncRef,
        _args: &[ir::Value],
    ) -> InlineCommand<'_> {
        let Some(d) = defined_callee(self.info, caller, callee) else { return InlineCommand::KeepCall };
        // A tail call inlined at a plain call would become a plain call,
        // one more frame where the program counts on none.
        if opcode != Opcode::ReturnCall && self.tail_calls[d] {
            return InlineCommand::KeepCall;
        }
        if d == self.me || !self.inlinable[d] {
            return InlineCommand::KeepCall;
        }
        let (body, size) = (&self.funcs[d], self.sizes[d]);
        if size > self.budget {
            return InlineCommand::KeepCall;
        }
        self.budget -= size;
        InlineCommand::Inline { callee: Cow::Borrowed(body), visit_callee: false }
    }
}

/// The defined function that `callee`, a function declared in `func`, is.
fn defined_callee(info: &ModuleInfo, func: &Function, callee: ir::FuncRef) -> Option<usize> {
    let ExternalName::User(name) = func.dfg.ext_funcs[callee].name else { return None };
    let name = &func.params.user_named_funcs()[name];
    if name.namespace != FUNC_NAMESPACE {
        return None;
    }
    info.defined_func_index(FuncIndex::from_u32(name.index)).map(|d| d.index())
}

/// The direct calls in `func` (with or without an exception handler),
/// with the defined function each calls.
fn direct_callees<'a>(info: &'a ModuleInfo, func: &'a Function) -> impl Iterator<Item = (ir::Inst, usize)> + 'a {
    func.layout.blocks().flat_map(move |b| func.layout.block_insts(b)).filter_map(move |inst| {
        match func.dfg.insts[inst] {
            InstructionData::Call { func_ref, .. } => defined_callee(info, func, func_ref).map(|d| (inst, d)),
            InstructionData::TryCall { func_ref, .. } => defined_callee(info, func, func_ref).map(|d| (inst, d)),
            _ => None,
        }
    })
}

fn inst_count(func: &Function) -> usize {
    func.layout.blocks().map(|b| func.layout.block_insts(b).count()).sum()
}

fn has_tail_call(func: &Function) -> bool {
    func.layout
        .blocks()
        .filter_map(|b| func.layout.last_inst(b))
        .any(|inst| matches!(func.dfg.insts[inst].opcode(), Opcode::ReturnCall | Opcode::ReturnCallIndirect))
}

/// Tags every call of a function `wanted` with its source location, so
/// that the inliner starts the chains of the instructions it inlines there
/// with it.
fn tag_calls(info: &ModuleInfo, func: &mut Function, wanted: impl Fn(usize) -> bool) {
    let calls: Vec<ir::Inst> = direct_callees(info, func).filter(|(_, d)| wanted(*d)).map(|(inst, _)| inst).collect();
    for inst in calls {
        let loc = func.srcloc(inst);
        if !loc.is_default() {
            func.debug_tags.set(inst, [DebugTag::User(loc.bits())]);
        }
    }
}

/// Tags every instruction not inlined into `func` (body at wasm offset
/// `start`) with its source location, so that its copies carry it. Code
/// before the first operator (locals, the fuel check) has none; it is
/// placed at the body's start.
fn tag_own(func: &mut Function, start: u32) {
    let own: Vec<ir::Inst> =
        func.layout.blocks().flat_map(|b| func.layout.block_insts(b)).filter(|i| !func.debug_tags.has(*i)).collect();
    for inst in own {
        let loc = func.srcloc(inst);
        let at = if loc.is_default() { start } else { loc.bits() };
        func.debug_tags.set(inst, [DebugTag::User(at)]);
    }
}

/// Removes the tags (code generation has no use for them), turning each
/// inlined instruction's chain into a synthetic source location; returns
/// the chains.
fn untag(func: &mut Function) -> Chains {
    if func.debug_tags.is_empty() {
        return Chains::new();
    }
    let mut chains = Chains::new();
    let mut index: HashMap<Vec<u32>, u32> = HashMap::new();
    let insts: Vec<ir::Inst> = func.layout.blocks().flat_map(|b| func.layout.block_insts(b)).collect();
    for inst in insts {
        // One location is the instruction's own, still in place.
        let tags = func.debug_tags.get(inst);
        if tags.len() < 2 {
            continue;
        }
        let chain: Vec<u32> = tags
            .iter()
            .filter_map(|t| match t {
                DebugTag::User(at) => Some(*at),
                DebugTag::StackSlot(_) => None,
            })
            .collect();
        let next = chains.len() as u32;
        let i = *index.entry(chain).or_insert_with_key(|chain| {
            chains.push(chain.clone().into_boxed_slice());
            next
        });
        func.set_srcloc(inst, SourceLoc::new(CHAIN | i));
    }
    func.debug_tags.clear();
    chains
}

/// Replaces each synthetic location in `srclocs` (code offset, location)
/// by its chain: one entry per frame at the same code offset, outermost
/// first.
pub fn expand_srclocs(srclocs: &mut Vec<(u32, u32)>, chains: &[Box<[u32]>]) {
    if chains.is_empty() {
        return;
    }
    let mut out = Vec::with_capacity(srclocs.len());
    for &(code, loc) in srclocs.iter() {
        match loc & CHAIN {
            0 => out.push((code, loc)),
            _ => out.extend(chains[(loc & !CHAIN) as usize].iter().map(|at| (code, *at))),
        }
    }
    *srclocs = out;
}

/// The strongly connected components of a call graph (`graph[f]`: the
/// functions `f` calls), each finished after the components it calls
/// (Tarjan's algorithm, iterative so that a deep call chain cannot
/// overflow the stack).
fn components(graph: &[Vec<usize>]) -> Vec<Vec<usize>> {
    const UNVISITED: usize = usize::MAX;
    let n = graph.len();
    let (mut order, mut low, mut on_stack) = (vec![UNVISITED; n], vec![0; n], vec![false; n]);
    let (mut stack, mut out, mut counter) = (Vec::new(), Vec::new(), 0);
    for root in 0..n {
        if order[root] != UNVISITED {
            continue;
        }
        // (node, next edge to look at)
        let mut work = vec![(root, 0)];
        while let Some(&mut (v, ref mut edge)) = work.last_mut() {
            if *edge == 0 && order[v] == UNVISITED {
                order[v] = counter;
                low[v] = counter;
                counter += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = graph[v].get(*edge) {
                *edge += 1;
                if order[w] == UNVISITED {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(order[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == order[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_come_callees_first() {
        // 0 -> 1 -> 2 -> 1, 0 -> 3, 3 -> 3
        let graph = vec![vec![1, 3], vec![2], vec![1], vec![3]];
        let mut got = components(&graph);
        for c in &mut got {
            c.sort();
        }
        assert_eq!(got, vec![vec![1, 2], vec![3], vec![0]]);
    }

    #[test]
    fn calls_of_functions_out_of_range_are_refused_not_scanned() {
        // The scan for inlining reads bodies before they are validated.
        let wasm = wat::parse_str("(module (func call 7) (func call 1))").unwrap();
        let engine = crate::Engine::default();
        let Err(err) = crate::Module::new(&engine, &wasm) else { panic!("an invalid module compiled") };
        assert!(matches!(err, Error::Invalid { .. }), "{err}");
    }

    #[test]
    fn chains_expand_outermost_first() {
        let chains = vec![vec![10, 20, 30].into_boxed_slice()];
        let mut srclocs = vec![(0, 5), (4, CHAIN), (9, 7)];
        expand_srclocs(&mut srclocs, &chains);
        assert_eq!(srclocs, vec![(0, 5), (4, 10), (4, 20), (4, 30), (9, 7)]);
    }
}
