//! Lazy compilation ([`Config::lazy_compilation`](crate::Config::lazy_compilation)),
//! the runtime's side: a function is compiled on its first call.
//!
//! At load, every function body is validated (an invalid module is refused
//! then, as in eager mode), one code region is reserved for the module
//! ([`LazyRegion`]: a memfd mapped executable and, elsewhere, writable) and
//! laid out as
//!
//! ```text
//! [address of the lazy trampoline][stub 0][stub 1]...[entry trampolines][functions, as compiled ->]
//! ```
//!
//! Every defined function has a 16-byte stub at a fixed place, and the
//! stub is what the rest of the module knows as the function: funcrefs
//! (and so tables, exports and other instances' imports of it) and the
//! direct calls of functions compiled before it point there. A stub loads
//! its own address and jumps to the lazy trampoline (`lazy_stub`), which
//! saves the argument registers and calls [`LazyCode::compile`]: the
//! compiler the module was made with ([`LazyCompiler`], `compile::lazy`)
//! translates and compiles the function (re-validated on the way, as eager
//! compilation does), copied to the end of the region through the
//! writable view, its trap sites and source locations recorded where
//! trap lookup and backtraces find them, and only then published: its
//! offset stored, and 8 bytes of the stub replaced in one aligned store
//! (x86-64: its first instructions, by a `jmp` to the code; aarch64: the
//! data word it branches through, since live instructions must never be
//! rewritten there). The trampoline then jumps to the code
//! with the original arguments. Direct calls in a function compiled later
//! go straight to the code of callees already compiled, so once the
//! workload's functions are compiled a call costs at most one extra direct
//! `jmp` (through a stub), none for most direct calls.
//!
//! Tiers (`tier`, on x86-64 by default): the first compile is a cheap
//! baseline one and the stub jumps to a counting thunk placed after the
//! code; a function called often is compiled again, optimised, on a
//! background thread, placed the same way and published by patching the
//! stub once more. Direct calls then bind only to optimised code, so
//! calls to baseline code count and reach the optimised code later. Both
//! versions stay placed, so trap lookup, backtraces and exceptions find
//! either.
//!
//! Threads: each function has its own lock, so one thread compiles it
//! while others calling it wait; different functions compile in parallel.
//! Placement and the metadata share one `RwLock`, read by trap lookup and
//! backtraces (never from a thread that holds it: the writers run no wasm
//! and do not fault).
//!
//! A function that cannot be compiled (Cranelift refuses it, the region is
//! full) traps where it is called, with the reason; nothing is published
//! and the next call tries again. Compiling runs on the calling thread,
//! possibly deep in a wasm recursion: with less than eager compilation's
//! thread stack left it moves to a helper thread (`lazy_stub`), so a
//! deep first call never overflows the host stack.
//!
//! Other features: the compiled-code cache serialises a lazy module by
//! compiling it in full (`cache::serialize`), because a file of half a
//! module would need the lazy machinery on load for no gain; the interrupt
//! signal and backtraces treat the whole region as wasm code, so lazily
//! placed code is stopped and symbolised like any; the perf map or jitdump
//! gets one record per function as it is compiled (perf itself ignores
//! perf maps for memfd-backed code, so only jitdump names lazy code in
//! `perf report`).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use cranelift_entity::{EntityRef, PrimaryMap};

use super::arch;
use super::code_memory::CodeMemory;
use super::lazy_code::LazyRegion;
use super::lazy_stub::{self, PATCH_AT, STUB_SIZE};
use super::link::patch_image;
use super::module_code::ModuleCode;
use super::profiling;
use super::tier::{self, Tier, THUNK_SIZE};
use crate::environ::compiled::{
    handler_at, resolve_relocs, source_chain, stack_map_at, trap_at, CodeTables, FunctionCode, FunctionLoc, Handler,
    ImageReloc, StackMap,
};
use crate::environ::config::Profiler;
use crate::environ::error::{Error, Result};
use crate::environ::index::*;
use crate::environ::module_info::ModuleInfo;
use crate::environ::trap::TrapCode;

/// Offset of the first stub: the 8 bytes before hold the trampoline's
/// address, which the stubs jump through (the runtime's code is too far
/// from the region for a `rel32`).
const STUBS_AT: usize = 16;

/// Reserved code bytes per byte of function bodies, beyond a fixed
/// allowance: Cranelift's x86-64 code is a few times the size of the wasm;
/// only the pages written cost memory.
const CODE_PER_BODY_BYTE: usize = 64;
const CODE_ALLOWANCE: usize = 32 << 20;
/// At most this much is reserved: direct calls in the region are `rel32`
/// on x86-64, and reach ±128 MiB on aarch64.
const MAX_REGION: usize = if arch::DIRECT_CALL_REACH < 1 << 30 { arch::DIRECT_CALL_REACH } else { 1 << 30 };

/// What compiles one function of a lazily compiled module (the compiler
/// of the engine that loaded it, `compile::lazy::LazyFunctions`).
pub trait LazyCompiler: Send + Sync {
    /// The code of defined function `d` of the module `info` describes,
    /// validated on the way.
    fn compile(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode>;
    /// The same with the cheap settings, for tiering (`tier`).
    fn compile_baseline(&self, d: DefinedFuncIndex, info: &ModuleInfo) -> Result<FunctionCode> {
        self.compile(d, info)
    }
}

/// What a lazy module needs to compile its functions later.
pub struct LazyCode {
    region: LazyRegion,
    compiler: Box<dyn LazyCompiler>,
    profiler: Profiler,
    /// Offset of each defined function's code in the region; 0 until it is
    /// compiled (0 holds the trampoline's address, never code).
    code: Vec<AtomicU32>,
    /// Held while a function is compiled, so it is compiled once.
    compiling: Vec<Mutex<()>>,
    placed: RwLock<Placed>,
    /// Bytes laid out at load: stubs and entry trampolines.
    laid_out: usize,
    /// With tiering, functions are first compiled baseline (`tier`).
    tier: Option<Tier>,
}

/// The functions compiled so far, by increasing offset.
struct Placed {
    end: usize,
    funcs: Vec<PlacedFunc>,
}

struct PlacedFunc {
    loc: FunctionLoc,
    index: DefinedFuncIndex,
    /// Trap sites and source locations, at offsets in the region.
    traps: Box<[(u32, TrapCode)]>,
    srclocs: Box<[(u32, u32)]>,
    handlers: Box<[Handler]>,
    stack_maps: Box<[StackMap]>,
}

/// A lazy module's code region being laid out: stubs first, then what
/// [`LazyLayout::finish`] is given.
pub struct LazyLayout {
    code: CodeMemory,
    region: LazyRegion,
    /// The image of the region's start: the trampoline's address, the
    /// stubs, then the entry trampolines the caller appends.
    pub image: Vec<u8>,
    funcs: PrimaryMap<DefinedFuncIndex, FunctionLoc>,
}

impl LazyLayout {
    /// Reserves the region of a module of `n` defined functions with
    /// `body_bytes` bytes of bodies, and lays out their stubs. `None` when
    /// this host cannot map code lazily (the caller compiles eagerly).
    pub fn new(n: usize, body_bytes: usize) -> Option<LazyLayout> {
        let size = (CODE_ALLOWANCE + body_bytes.saturating_mul(CODE_PER_BODY_BYTE)).min(MAX_REGION);
        let (code, region) = LazyRegion::new(size).ok()?;
        let mut image = vec![0u8; STUBS_AT + n * STUB_SIZE];
        image[..8].copy_from_slice(&lazy_stub::trampoline_address().to_le_bytes());
        let mut funcs = PrimaryMap::new();
        let base = region.base() as usize;
        for i in 0..n {
            let at = STUBS_AT + i * STUB_SIZE;
            image[at..at + STUB_SIZE].copy_from_slice(&lazy_stub::stub(at, 0, base));
            funcs.push(FunctionLoc { start: at as u32, len: STUB_SIZE as u32 });
        }
        Some(LazyLayout { code, region, image, funcs })
    }

    /// Where defined function `d` is called: its stub.
    pub fn stub(&self, d: DefinedFuncIndex) -> u32 {
        self.funcs[d].start
    }

    /// Writes the laid-out image (with this process's addresses at
    /// `relocs`) to the region; the module's functions are its stubs, and
    /// `compiler` compiles them on their first call.
    pub fn finish(
        mut self,
        entry_trampolines: PrimaryMap<DefinedFuncIndex, u32>,
        relocs: &[ImageReloc],
        compiler: Box<dyn LazyCompiler>,
        profiler: Profiler,
    ) -> Result<(CodeMemory, CodeTables, LazyCode)> {
        patch_image(&mut self.image, relocs)?;
        if self.image.len() > self.region.len() {
            return Err(Error::Resource("lazy code region too small for the stubs".into()));
        }
        // SAFETY: the region is fresh; nothing runs in it before the module
        // is returned.
        unsafe { self.region.write(0, &self.image) };
        let n = self.funcs.len();
        let lazy = LazyCode {
            region: self.region,
            compiler,
            profiler,
            code: (0..n).map(|_| AtomicU32::new(0)).collect(),
            compiling: (0..n).map(|_| Mutex::new(())).collect(),
            placed: RwLock::new(Placed { end: self.image.len(), funcs: Vec::new() }),
            laid_out: self.image.len(),
            tier: None,
        };
        let tables = CodeTables { funcs: self.funcs, entry_trampolines, ..CodeTables::default() };
        Ok((self.code, tables, lazy))
    }
}
impl LazyCode {
    /// Bytes of the region written so far: stubs, trampolines and the
    /// functions compiled until now.
    pub fn used(&self) -> usize {
        self.placed.read().unwrap_or_else(|e| e.into_inner()).end
    }

    /// The defined function whose stub is at `offset`, if one is.
    pub fn stub_function(&self, offset: usize) -> Option<DefinedFuncIndex> {
        let i = offset.checked_sub(STUBS_AT)?;
        (i.is_multiple_of(STUB_SIZE) && i / STUB_SIZE < self.code.len()).then(|| DefinedFuncIndex::new(i / STUB_SIZE))
    }

    /// The address of `d`'s code, once compiled.
    pub fn compiled(&self, d: DefinedFuncIndex) -> Option<usize> {
        match self.code[d.index()].load(Ordering::Acquire) {
            0 => None,
            offset => Some(self.region.base() as usize + offset as usize),
        }
    }

    /// Compiles functions baseline first, tiering up after `threshold`
    /// calls (`tier`); before the module is used.
    pub fn tiered(mut self, threshold: u32) -> LazyCode {
        self.tier = Some(Tier::new(self.code.len(), threshold));
        self
    }

    /// Where a stub sends a call to `d`: its code once compiled. A call
    /// from a baseline function's thunk whose counter is spent queues the
    /// function for its optimised compile (`tier`).
    pub fn entered(&self, d: DefinedFuncIndex, module: &Arc<ModuleCode>) -> Option<usize> {
        let addr = self.compiled(d)?;
        if let Some(tier) = &self.tier {
            if tier.optimised(d).is_none() && tier.request(d, false) {
                tier::enqueue(module.clone(), d);
            }
        }
        Some(addr)
    }

    /// Compiles `d` (of the module `module`) unless another thread did,
    /// and returns the address of its code: baseline code with tiering.
    pub fn compile(&self, d: DefinedFuncIndex, module: &Arc<ModuleCode>) -> Result<usize> {
        let info = &module.info;
        let _once = self.compiling[d.index()].lock().unwrap_or_else(|e| e.into_inner());
        if let Some(addr) = self.compiled(d) {
            return Ok(addr);
        }
        let stub = STUBS_AT + d.index() * STUB_SIZE;
        let Some(tier) = &self.tier else {
            let f = self.compiler.compile(d, info)?;
            let (start, _) = self.place(d, info, &f, None)?;
            return Ok(self.publish(d, info, &f, start, start));
        };
        let f = self.compiler.compile_baseline(d, info)?;
        let counter = tier.counter(d);
        let thunk = |code: usize, at: usize| tier::thunk(at, counter, code, stub);
        let (start, thunk_at) = self.place(d, info, &f, Some(&thunk))?;
        let addr = self.publish(d, info, &f, start, thunk_at);
        if tier.at_once() && tier.request(d, true) {
            tier::enqueue(module.clone(), d);
        }
        Ok(addr)
    }

    /// Compiles baseline function `d` optimised and publishes it: the
    /// background thread's job (`tier::enqueue`).
    pub fn tier_up(&self, d: DefinedFuncIndex, module: &ModuleCode) -> Result<()> {
        let (info, tier) = (&module.info, self.tier.as_ref().expect("tiering on"));
        let f = self.compiler.compile(d, info)?;
        let (start, _) = self.place(d, info, &f, None)?;
        tier.set_optimised(d, start as u32);
        self.publish(d, info, &f, start, start);
        Ok(())
    }

    /// Writes `f`, the code of `d`, past the functions placed so far, with
    /// its calls bound, and records where it is; then the bytes `thunk`
    /// makes (given the code's offset and its own), if any. Returns the
    /// offsets of the code and of the thunk (that of the code without).
    fn place(
        &self,
        d: DefinedFuncIndex,
        info: &ModuleInfo,
        f: &FunctionCode,
        thunk: Option<&dyn Fn(usize, usize) -> [u8; THUNK_SIZE]>,
    ) -> Result<(usize, usize)> {
        let mut placed = self.placed.write().unwrap_or_else(|e| e.into_inner());
        let start = placed.end.next_multiple_of(f.alignment.max(16) as usize);
        let thunk_at = (start + f.body.len()).next_multiple_of(16);
        let end = if thunk.is_some() { thunk_at + THUNK_SIZE } else { start + f.body.len() };
        if end > self.region.len() {
            return Err(Error::Resource(format!("lazy code region of {} bytes is full", self.region.len())));
        }
        let start32 = start as u32;
        let mut body = f.body.clone();
        // Callees compiled already are called directly, the others
        // through their stubs; with tiering, only optimised code is
        // called directly, so that calls to baseline code count.
        let callee = |c: DefinedFuncIndex| {
            let code = match &self.tier {
                Some(tier) => tier.optimised(c).unwrap_or(0),
                None => self.code[c.index()].load(Ordering::Acquire),
            };
            match code {
                0 => (STUBS_AT + c.index() * STUB_SIZE) as u32,
                offset => offset,
            }
        };
        let mut relocs = Vec::new();
        let defined = |f| info.defined_func_index(f);
        resolve_relocs(&mut body, start32, &f.relocs, &defined, &callee, &mut relocs)?;
        for r in &mut relocs {
            r.offset -= start32;
        }
        patch_image(&mut body, &relocs)?;
        // SAFETY: `start..end` lies past every function placed so far and
        // no stub or call leads there yet; the write lock keeps other
        // compilations out of it.
        unsafe { self.region.write(start, &body) };
        if let Some(thunk) = thunk {
            // SAFETY: as for the body.
            unsafe { self.region.write(thunk_at, &thunk(start, thunk_at)) };
        }
        placed.end = end;
        placed.funcs.push(PlacedFunc {
            loc: FunctionLoc { start: start32, len: body.len() as u32 },
            index: d,
            traps: f.traps.iter().map(|(o, c)| (start32 + o, *c)).collect(),
            srclocs: f.srclocs.iter().map(|(o, l)| (start32 + o, *l)).collect(),
            handlers: f.handlers.iter().map(|h| h.moved(start32)).collect(),
            stack_maps: f.stack_maps.iter().map(|m| m.moved(start32)).collect(),
        });
        Ok((start, thunk_at))
    }

    /// Makes `d`'s stub jump to `target` (its code at `start`, or its
    /// thunk) and returns the code's address.
    fn publish(&self, d: DefinedFuncIndex, info: &ModuleInfo, f: &FunctionCode, start: usize, target: usize) -> usize {
        self.code[d.index()].store(start as u32, Ordering::Release);
        let stub = STUBS_AT + d.index() * STUB_SIZE;
        // SAFETY: the stub and its patched form are both correct from
        // every instruction boundary (see `lazy_stub::stub`), whatever the
        // jump's target (a stub patched before is correct from the
        // boundaries of its patched form too: a `jmp` at 0, nops, and the
        // unchanged jump to the trampoline).
        unsafe {
            let new = lazy_stub::stub(stub, target, self.region.base() as usize);
            let word = new[PATCH_AT..PATCH_AT + 8].try_into().expect("8 bytes");
            self.region.patch_u64(stub + PATCH_AT, word)
        };
        let addr = self.region.base() as usize + start;
        self.tell_profiler(d, info, addr, f.body.len());
        addr
    }

    fn tell_profiler(&self, d: DefinedFuncIndex, info: &ModuleInfo, addr: usize, len: usize) {
        let profiler = self.profiler;
        if profiler == Profiler::None {
            return;
        }
        let name = profiling::function_name(info, info.func_index(d));
        // SAFETY: the function's code was written above and is never
        // written again.
        let code = unsafe { std::slice::from_raw_parts(addr as *const u8, len) };
        profiling::register(profiler, code, &[(addr, len, name)]);
    }

    /// The function whose code holds `offset` and the wasm offsets of the
    /// source location there (see [`CodeTables::frame_at`]).
    pub fn frame_at(&self, offset: u32) -> Option<(DefinedFuncIndex, Vec<u32>)> {
        let placed = self.placed.read().unwrap_or_else(|e| e.into_inner());
        let f = placed_at(&placed.funcs, offset)?;
        Some((f.index, source_chain(&f.srclocs, offset)))
    }

    /// The trap recorded for the instruction at `offset`, if it is a trap
    /// site.
    pub fn trap_at(&self, offset: u32) -> Option<TrapCode> {
        let placed = self.placed.read().unwrap_or_else(|e| e.into_inner());
        trap_at(&placed_at(&placed.funcs, offset)?.traps, offset)
    }

    /// The exception handler of the call returning to `ret`, if it has
    /// one: its offset and frame size (see [`CodeTables::handlers`]).
    pub fn handler_at(&self, ret: u32) -> Option<(u32, u32)> {
        let placed = self.placed.read().unwrap_or_else(|e| e.into_inner());
        // A return address may be one past its function's code.
        handler_at(&placed_at(&placed.funcs, ret - 1)?.handlers, ret)
    }

    /// The GC stack map of the call returning to `ret`, if it has one
    /// (see [`CodeTables::stack_maps`]).
    pub fn stack_map_at(&self, ret: u32) -> Option<StackMap> {
        let placed = self.placed.read().unwrap_or_else(|e| e.into_inner());
        stack_map_at(&placed_at(&placed.funcs, ret - 1)?.stack_maps, ret).cloned()
    }

    /// Bytes of the stubs and entry trampolines laid out at load.
    pub fn laid_out_len(&self) -> usize {
        self.laid_out
    }

    /// How many functions have been compiled.
    pub fn compiled_count(&self) -> usize {
        self.code.iter().filter(|c| c.load(Ordering::Acquire) != 0).count()
    }

    /// How many functions run optimised code after tiering up; `None`
    /// without tiering.
    pub fn tiered_count(&self) -> Option<usize> {
        self.tier.as_ref().map(Tier::optimised_count)
    }
}

/// The placed function containing `offset`.
fn placed_at(funcs: &[PlacedFunc], offset: u32) -> Option<&PlacedFunc> {
    let i = funcs.partition_point(|f| f.loc.start <= offset).checked_sub(1)?;
    let f = &funcs[i];
    (offset < f.loc.start + f.loc.len).then_some(f)
}
