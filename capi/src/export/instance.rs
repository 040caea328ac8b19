//! Instances of `wasm_export.h`: instantiation (`wasm_runtime_instantiate`,
//! `_ex`, `_ex2`), deinstantiation, exceptions and termination, custom data, bounds checks
//! and running modes.
//!
//! A `wasm_module_inst_t` is the handle of a [`ModuleInst`]: a core store
//! of its own (as WAMR's instance is self-contained) holding the instance,
//! the instances of the modules it imports from (multi-module), and the
//! host functions its imports resolved to: registered natives, the builtin
//! libc, WASI, or a stand-in that fails with WAMR's "failed to call
//! unlinked import function (m, f)".
//!
//! Instantiation arguments as WAMR applies them: `max_memory_pages` caps
//! each memory's maximum (never below its minimum nor above its declared
//! maximum), and a `host_managed_heap_size` heap is inserted into memory
//! 0 — unless the module exports `malloc` and `free` — before
//! `__heap_base` when the module exports it and it lies in the initial
//! memory (which `__heap_base` then moves past), else in new pages at the
//! end. Memories are created with the resulting limits, so the cap really
//! limits `memory.grow`. (The `exec` branch brings a store resource
//! limiter; until it lands, the memory's maximum is the limit.)
//! `default_stack_size` is WAMR's interpreter stack; compiled code runs on
//! the native stack, whose limit is the engine's, as with WAMR's AOT.
//!
//! Calls into one instance are serialised (a re-entrant lock), so exec
//! envs on several threads may call it; a native re-entering the instance
//! on its own thread is fine.

use std::cell::{Cell, RefCell};
use std::ffi::{CString, c_char, c_void};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cranewasm::wasi::WasiCtx;
use cranewasm::{
    ExternType, FrameInfo, Func, FuncType, Instance, InterruptHandle, Memory, MemoryType, Module, SharedMemory, Store,
    TrapError, ValType,
};

use crate::core::module::{RtModule, module};
use crate::core::options::InstantiationArgs;
use crate::core::pool;
use crate::core::runtime::warn;
use crate::export::args::{InstArgs, instantiation_args};
use crate::export::exec_env::{ExecEnv, new_exec_env};
use crate::export::heap::AppHeap;
use crate::export::lock::{ReentrantGuard, ReentrantLock};
use crate::export::set_error_buf;
use crate::export::thread_mgr::Cluster;
use crate::export::types::*;
use crate::export::wasi::WasiArgs;
use crate::handle::Kind;
use crate::object::{self, Handle, Object, Own, get};
use crate::*;

/// WAMR's limit of linear memory pages.
const MAX_PAGES: u32 = 65536;
const PAGE: u64 = 65536;
/// Context keys an instance has room for.
pub(crate) const MAX_CONTEXTS: usize = 8;

/// The data of an instance's store ([`crate::core::store::StoreData`]):
/// what host functions reach through their `Caller`.
pub use crate::core::store::StoreData as InstData;

/// An export-API store's way back to its instance.
pub trait InstOf {
    /// The instance whose store this is. The reference is not tied to the
    /// data's borrow: the instance owns the store and outlives it.
    fn inst<'a>(&self) -> &'a ModuleInst;
}

impl InstOf for InstData {
    fn inst<'a>(&self) -> &'a ModuleInst {
        let inst = self.owner::<ModuleInst>(Kind::ModuleInst);
        assert!(!inst.is_null(), "a host function of wasm_export.h ran in a store of no instance");
        // SAFETY: the instance owns the store and outlives it; the pointer
        // is set before any host function can run.
        unsafe { &*inst }
    }
}

/// What a `wasm_module_inst_t` points at.
pub struct ModuleInst {
    store: NonNull<Store<InstData>>,
    instance: OnceLock<Instance>,
    /// The `wasm_module_t` it came from (it may be unloaded meanwhile).
    pub module_handle: usize,
    /// This instance's own handle.
    me: AtomicUsize,
    /// A number no other instance of the process has: an exec env holding
    /// this instance's handle checks it, so that a handle whose cell a
    /// later instance took is not taken for this one.
    pub serial: u64,
    pub module: Module,
    pub call_lock: ReentrantLock,
    /// Calls in progress (deinstantiation waits for none).
    active: AtomicUsize,
    /// The exec env of the innermost call in progress (a handle, and its
    /// object), for the natives it calls.
    exec_env: AtomicUsize,
    exec_env_obj: AtomicPtr<ExecEnv>,
    /// The exception message (without WAMR's "Exception: " prefix).
    exception: Mutex<Option<CString>>,
    pending: AtomicBool,
    /// The frames of the last trap, for `wasm_runtime_dump_call_stack`.
    pub frames: Mutex<Vec<FrameInfo>>,
    /// The frames of the thread whose exit or trap ended the program, for
    /// the call that the end stops here (it stops at an interrupt, whose
    /// frames would say nothing).
    program_frames: Mutex<Option<Vec<FrameInfo>>>,
    /// Stops the store's running call from any thread
    /// (`wasm_runtime_terminate`); made with the store, since only a call
    /// that starts after a store's first handle exists can be stopped
    /// inside wasm code.
    interrupt: InterruptHandle,
    /// `wasm_runtime_terminate` was called and the exception not cleared
    /// since: calls fail at their start.
    terminated: AtomicBool,
    /// Its engine compiles code that counts operators, so that
    /// instruction limits apply (see [`exec_control`](crate::export::exec_control)).
    pub metered: bool,
    pub custom_data: AtomicPtr<c_void>,
    pub contexts: [AtomicPtr<c_void>; MAX_CONTEXTS],
    bounds_checks: AtomicBool,
    pub running_mode: AtomicU32,
    /// The app heap; one for all the instances of a cluster whose memory
    /// 0 is shared (they allocate from the same memory).
    pub heap: Arc<Mutex<Option<AppHeap>>>,
    /// The module's own `malloc` and `free`, used by `module_malloc` when
    /// there is no app heap.
    pub allocator: OnceLock<Option<(Func, Func)>>,
    pub wasi_exit_code: AtomicU32,
    pub is_wasi: bool,
    pub default_stack_size: u32,
    pub singleton: OnceLock<Own<WASMExecEnv>>,
    /// Handles made for this instance's functions and memories, freed
    /// with it.
    pub handles: Mutex<crate::export::lookup::Handles>,
    /// Instances of the modules this one imports from, by name.
    pub subs: Mutex<crate::core::link::SubModules>,
    /// The threads of this program (see [`crate::export::thread_mgr`]).
    pub cluster: Arc<Cluster>,
    /// Whether this is a spawned thread's instance over another's shared
    /// memories (WAMR's sub instance): no data segments, no
    /// post-instantiation functions but the start function.
    pub is_sub: bool,
    /// Its share of the memory pool (`Alloc_With_Pool`), released with it.
    _pool: pool::Charge,
}

// SAFETY: ModuleInst cells hold `ModuleInst`s, named by
// `WASMModuleInstanceCommon` only.
unsafe impl Object for ModuleInst {
    fn kind(&self) -> Kind {
        Kind::ModuleInst
    }
}

// SAFETY: ModuleInst cells hold `ModuleInst`s.
unsafe impl Handle for WASMModuleInstanceCommon {
    type Obj = ModuleInst;
    const KINDS: u32 = Kind::ModuleInst.bit();
    const NAME: &'static str = "wasm_module_inst_t";
}

impl Drop for ModuleInst {
    fn drop(&mut self) {
        // First, so that a program ending meanwhile no longer reaches it.
        self.cluster.leave(self);
        // Handles first (they refer into the store), then the store.
        drop(std::mem::take(&mut *self.handles.lock().unwrap_or_else(|e| e.into_inner())));
        drop(self.singleton.take());
        // SAFETY: the store was boxed for this instance alone and nothing
        // uses it any more (deinstantiation refuses while calls run).
        drop(unsafe { Box::from_raw(self.store.as_ptr()) });
    }
}

/// The instance behind a `wasm_module_inst_t`: `None` for anything but a
/// live one.
///
/// # Safety
/// As for [`object::get`].
pub unsafe fn inst<'a>(p: *const WASMModuleInstanceCommon) -> Option<&'a ModuleInst> {
    // SAFETY: as the caller promises.
    unsafe { get::<WASMModuleInstanceCommon>(p) }
}

/// Holds an instance's call lock; the store may be used meanwhile.
pub struct Locked<'a> {
    pub inst: &'a ModuleInst,
    _guard: ReentrantGuard<'a>,
}

impl Locked<'_> {
    /// The instance's store.
    ///
    /// Re-entrant calls (a native calling back into its instance) reach
    /// the store while an outer call holds it, as the wasm-c-api's
    /// callbacks do; no reference made here lives across a call into wasm.
    #[allow(clippy::mut_from_ref)]
    pub fn store(&self) -> &mut Store<InstData> {
        // SAFETY: the store lives as long as the instance; the call lock,
        // held by this thread, keeps other threads out.
        unsafe { &mut *self.inst.store.as_ptr() }
    }
}

impl ModuleInst {
    /// Takes the call lock (waiting for another thread's call to end).
    pub fn lock(&self) -> Locked<'_> {
        Locked { inst: self, _guard: self.call_lock.lock() }
    }

    /// This instance's handle.
    pub fn handle(&self) -> usize {
        self.me.load(Ordering::Relaxed)
    }

    /// The core instance (`None` while it is being instantiated).
    pub fn instance(&self) -> Option<Instance> {
        self.instance.get().copied()
    }

    /// The handle of the exec env of the call in progress (0 if none).
    pub fn current_exec_env(&self) -> usize {
        self.exec_env.load(Ordering::Relaxed)
    }

    /// Whether a call runs in the instance (on any thread).
    pub fn running(&self) -> bool {
        self.active.load(Ordering::Relaxed) > 0 || self.call_lock.is_held()
    }

    /// The exec env object of the call in progress, if any.
    pub fn current_exec_env_obj(&self) -> Option<&ExecEnv> {
        // SAFETY: set by `enter` from a live exec env, which its owner may
        // not destroy while its call runs (`wasm_runtime_destroy_exec_env`
        // refuses), and cleared when the call ends.
        unsafe { self.exec_env_obj.load(Ordering::Relaxed).as_ref() }
    }

    /// Runs `f` as a call on `exec_env`: counted, with the exec env as the
    /// one natives get. The caller holds the call lock, so plain loads and
    /// stores suffice (no locked instructions on the call path).
    pub fn enter<R>(&self, exec_env: usize, f: impl FnOnce() -> R) -> R {
        let obj = crate::export::exec_env::exec_env(exec_env).map_or(ptr::null_mut(), |e| ptr::from_ref(e).cast_mut());
        self.active.store(self.active.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
        let prev = (self.exec_env.load(Ordering::Relaxed), self.exec_env_obj.load(Ordering::Relaxed));
        self.exec_env.store(exec_env, Ordering::Relaxed);
        self.exec_env_obj.store(obj, Ordering::Relaxed);
        let r = f();
        self.exec_env.store(prev.0, Ordering::Relaxed);
        self.exec_env_obj.store(prev.1, Ordering::Relaxed);
        self.active.store(self.active.load(Ordering::Relaxed) - 1, Ordering::Relaxed);
        r
    }

    fn exception(&self) -> MutexGuard<'_, Option<CString>> {
        self.exception.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sets (or, with `None`, clears) the exception.
    pub fn set_exception(&self, msg: Option<&str>) {
        let mut e = self.exception();
        *e = msg.map(|m| CString::new(m.replace('\0', " ")).unwrap_or_default());
        self.pending.store(e.is_some(), Ordering::Release);
    }

    /// Whether the instance was terminated (and its exception not cleared
    /// since): a call then fails at its start.
    pub fn terminated(&self) -> bool {
        self.terminated.load(Ordering::Relaxed)
    }

    /// Clears the exception for the client, withdrawing a termination.
    pub(crate) fn clear_exception(&self) {
        self.terminated.store(false, Ordering::Relaxed);
        self.interrupt.withdraw();
        self.program_frames.lock().unwrap_or_else(|e| e.into_inner()).take();
        self.set_exception(None);
    }

    /// Whether an exception is set.
    pub fn has_exception(&self) -> bool {
        self.pending.load(Ordering::Acquire)
    }

    /// The exception message, without the "Exception: " prefix.
    pub fn exception_message(&self) -> Option<String> {
        self.exception().as_ref().map(|c| c.to_string_lossy().into_owned())
    }

    /// Sets the exception (unless one is set already) and gives the trap
    /// that unwinds the call in progress.
    pub fn raise(&self, msg: &str) -> TrapError {
        if !self.has_exception() {
            self.set_exception(Some(msg));
        }
        TrapError::new(self.exception_message().unwrap_or_else(|| msg.to_string()))
    }

    /// After a native returns: a trap if it set an exception.
    pub fn trap_if_exception(&self) -> Result<(), TrapError> {
        if self.has_exception() {
            return Err(TrapError::new(self.exception_message().unwrap_or_default()));
        }
        Ok(())
    }

    /// Records the outcome of a call: a trap becomes the exception (unless
    /// a native set one first) and its frames are kept; `proc_exit` sets
    /// the WASI exit code and WAMR's "wasi proc exit". True when no
    /// exception is set afterwards, as `wasm_runtime_call_wasm` answers.
    pub fn finish_call(&self, outcome: Result<(), TrapError>) -> bool {
        if let Err(trap) = outcome {
            if let Some(code) = trap.exit_code() {
                self.wasi_exit_code.store(code as u32, Ordering::Relaxed);
                if !self.has_exception() {
                    self.set_exception(Some("wasi proc exit"));
                }
            } else if !self.has_exception() {
                let msg = match trap.code() {
                    Some(cranewasm::Trap::StackOverflow) => {
                        crate::export::threads::stack_overflow_message(self.module.engine())
                    }
                    _ => trap.message(),
                };
                self.set_exception(Some(msg));
            }
            let program = self.program_frames.lock().unwrap_or_else(|e| e.into_inner()).take();
            *self.frames.lock().unwrap_or_else(|e| e.into_inner()) = program.unwrap_or_else(|| trap.frames().to_vec());
        }
        let ok = !self.has_exception();
        if !ok && !self.is_sub {
            // The main thread's exit or trap ends the threads it spawned.
            self.cluster.main_failed(self);
        }
        ok
    }

    /// Ends this instance's part in a program that ended (see
    /// [`thread_mgr`](crate::export::thread_mgr)): the program's exception
    /// (unless one is set already) and exit status, and a stop of its
    /// running call, wherever it is (a wait included), or else of its next.
    pub fn end_program(&self, msg: &str, exit_code: Option<u32>, frames: &[FrameInfo]) {
        if let Some(code) = exit_code {
            self.wasi_exit_code.store(code, Ordering::Relaxed);
        }
        {
            let mut e = self.exception();
            if e.is_none() {
                *e = Some(CString::new(msg.replace('\0', " ")).unwrap_or_default());
                self.pending.store(true, Ordering::Release);
                *self.program_frames.lock().unwrap_or_else(|e| e.into_inner()) = Some(frames.to_vec());
            }
        }
        self.interrupt.interrupt();
        crate::export::blocking_op::wake(self.handle());
    }
}

/// What an instantiation is asked for.
pub struct Settings {
    pub stack_size: u32,
    pub heap_size: u32,
    pub max_memory_pages: u32,
    pub custom_data: *mut c_void,
    /// WASI settings overriding the module's.
    pub wasi: Option<WasiArgs>,
    /// The instance a spawned thread's instance is made from (its shared
    /// memories, WASI context, heap and cluster are shared).
    pub parent: Option<&'static ModuleInst>,
}

/// How memory 0 is laid out for the app heap.
#[derive(Copy, Clone)]
pub(crate) enum HeapPlan {
    None,
    /// At a fixed offset and size: memory grown by `pages` at creation.
    Fixed {
        offset: u64,
        size: u64,
    },
    /// Before `__heap_base`, if it lies in the initial memory (decided
    /// after instantiation); else at the end.
    BeforeHeapBase {
        size: u64,
    },
}

/// A memory type of `min` to `max` pages, shared when `ty` is.
/// A 32-bit memory type's minimum and maximum pages (WAMR's memories are
/// 32-bit: its app heap plans in `u32` pages); no maximum is 65536.
pub(crate) fn pages(ty: &MemoryType) -> (u32, u32) {
    let narrow = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    (narrow(ty.minimum()), ty.maximum().map_or(MAX_PAGES, narrow).min(MAX_PAGES))
}

pub(crate) fn sized(ty: MemoryType, min: u32, max: u32) -> MemoryType {
    if ty.is_shared() { MemoryType::shared(min, max) } else { MemoryType::new(min, Some(max)) }
}

/// A new memory of type `t` in the store (a shared one for a shared type).
pub(crate) fn new_memory(store: &mut Store<InstData>, t: MemoryType) -> Result<Memory, String> {
    if t.is_shared() {
        let shared = SharedMemory::new(store.engine(), t).map_err(|e| e.to_string())?;
        return shared.to_memory(&mut *store).map_err(|e| e.to_string());
    }
    Memory::new(&mut *store, t).map_err(|e| e.to_string())
}

/// WAMR's cap of a memory's maximum by `max_memory_pages`.
pub(crate) fn capped_max(max_memory_pages: u32, min: u32, max: u32) -> u32 {
    match max_memory_pages {
        0 => max,
        m if m < min => {
            warn(format_args!("Cannot override max memory with value lower than module initial memory"));
            min
        }
        m if m > max => {
            warn(format_args!("Cannot override max memory with value greater than module max memory"));
            max
        }
        m => m,
    }
}

/// Whether the module exports `malloc` and `free` of WAMR's types, which
/// then serve `module_malloc` instead of an app heap.
fn exports_allocator(m: &Module) -> bool {
    let malloc = FuncType::new([ValType::I32], [ValType::I32]);
    let free = FuncType::new([ValType::I32], []);
    let has = |name: &str, ty: &FuncType| m.exports().any(|e| e.name == name && e.ty == ExternType::Func(ty.clone()));
    has("malloc", &malloc) && has("free", &free)
}

/// The type memory 0 is created with, and the heap plan, for `settings`.
pub(crate) fn plan_memory0(
    ty: MemoryType,
    heap_size: u32,
    max_memory_pages: u32,
    heap_base: bool,
) -> Result<(MemoryType, HeapPlan), String> {
    let (min, declared) = pages(&ty);
    let max = capped_max(max_memory_pages, min, declared);
    let too_big = || "failed to insert app heap into linear memory, try using `--heap-size=0` option".to_string();
    let heap = u64::from(heap_size);
    if heap == 0 {
        return Ok((sized(ty, min, max), HeapPlan::None));
    }
    if u64::from(min) * PAGE == u64::from(MAX_PAGES) * PAGE {
        return Err(too_big());
    }
    if min == 0 && max == 0 {
        // WAMR makes a one-"page" memory of the heap's size; pages are
        // fixed here, so the heap gets whole pages at offset 0.
        let pages = heap.div_ceil(PAGE) as u32;
        return Ok((sized(ty, pages, pages), HeapPlan::Fixed { offset: 0, size: heap }));
    }
    if min == 1 && max == 1 {
        // WAMR enlarges the single page; here a page is added and the heap
        // starts where WAMR's does, at 64 KiB.
        let pages = heap.div_ceil(PAGE) as u32;
        return Ok((sized(ty, 1 + pages, 1 + pages), HeapPlan::Fixed { offset: PAGE, size: heap }));
    }
    let inc = heap.div_ceil(PAGE) as u32;
    if heap_base {
        // Room for either placement; what is not used stays growable.
        let max = (max + inc + 1).min(MAX_PAGES);
        return Ok((sized(ty, min, max), HeapPlan::BeforeHeapBase { size: heap }));
    }
    let new_min = min + inc;
    if new_min > MAX_PAGES {
        return Err(too_big());
    }
    let size = u64::from(inc) * PAGE - 1024;
    let plan = HeapPlan::Fixed { offset: u64::from(min) * PAGE, size };
    Ok((sized(ty, new_min, (max + inc).min(MAX_PAGES)), plan))
}

/// Instantiates `module` with `s`; WAMR's error text otherwise.
///
/// # Safety
/// `handle` may be NULL or any pointer; the module must not be unloaded
/// meanwhile.
pub unsafe fn instantiate(handle: wasm_module_t, s: &Settings) -> Result<wasm_module_inst_t, String> {
    // SAFETY: as the caller promises.
    let rt = unsafe { module(handle) }.ok_or("Instantiate module failed, invalid module type")?;
    let core_module = rt.module.clone();
    let wasi_args = s.wasi.clone().unwrap_or_else(|| rt.wasi.lock().unwrap_or_else(|e| e.into_inner()).clone());
    let is_wasi = core_module.imports().any(|i| crate::export::wasi::is_wasi_module(&i.module));
    let wasi = match s.parent {
        // One WASI state (fd table, preopens) for all threads, as in WAMR.
        Some(p) => p.lock().store().data_mut().wasi.first_mut().map(WasiCtx::share),
        None if is_wasi => Some(wasi_args.build()?),
        None => None,
    };
    let heap = match s.parent {
        Some(p) if p.memory0_shared() => p.heap.clone(),
        _ => Arc::default(),
    };
    // What WAMR's instance structures and its exec env's stack take from
    // its pool (see core/pool.rs).
    let charge = pool::charge(pool::INSTANCE_OVERHEAD + core_module.footprint().1 + s.stack_size as usize)
        .ok_or("WASM module instantiate failed: allocate memory failed")?;
    let cluster = s.parent.map_or_else(Cluster::new, |p| p.cluster.clone());
    let mut store = Box::new(Store::new(core_module.engine(), InstData::new(wasi)));
    if let Some(bytes) = crate::core::runtime::gc_heap_size() {
        // WAMR's GC heap bound is the runtime's, for each instance.
        store.set_limiter(cranewasm::StoreLimits::builder().gc_heap_size(bytes).build());
    }
    let interrupt = store.interrupt_handle();
    let metered = store.set_fuel(u64::MAX).is_ok();
    let heap_size = if exports_allocator(&core_module) { 0 } else { s.heap_size };
    let obj = ModuleInst {
        store: NonNull::from(Box::leak(store)),
        instance: OnceLock::new(),
        module_handle: handle as usize,
        me: AtomicUsize::new(0),
        serial: {
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
            NEXT.fetch_add(1, Ordering::Relaxed)
        },
        module: core_module.clone(),
        call_lock: ReentrantLock::default(),
        active: AtomicUsize::new(0),
        exec_env: AtomicUsize::new(0),
        exec_env_obj: AtomicPtr::new(ptr::null_mut()),
        exception: Mutex::new(None),
        pending: AtomicBool::new(false),
        frames: Mutex::default(),
        program_frames: Mutex::default(),
        interrupt,
        terminated: AtomicBool::new(false),
        metered,
        custom_data: AtomicPtr::new(s.custom_data),
        contexts: Default::default(),
        bounds_checks: AtomicBool::new(true),
        running_mode: AtomicU32::new(start_mode(metered)),
        heap,
        allocator: OnceLock::new(),
        wasi_exit_code: AtomicU32::new(0),
        is_wasi,
        default_stack_size: s.stack_size,
        singleton: OnceLock::new(),
        handles: Mutex::default(),
        subs: Mutex::default(),
        cluster,
        is_sub: s.parent.is_some(),
        _pool: charge,
    };
    let h = object::new::<WASMModuleInstanceCommon>(obj);
    // SAFETY: just registered; nothing else knows it yet.
    let inst = unsafe { self::inst(h) }.ok_or("allocate memory failed")?;
    inst.me.store(h as usize, Ordering::Relaxed);
    inst.cluster.join(inst);
    let locked = inst.lock();
    let handle = h as usize;
    locked.store().on_memory_grow_failure(move |f| crate::export::exec_control::on_grow_failure(handle, f));
    // SAFETY: the store is ours alone until the handle is returned.
    unsafe { (*inst.store.as_ptr()).data_mut().set_owner(inst, Kind::ModuleInst) };
    let singleton = Own::new(new_exec_env(h as usize, s.stack_size, true)).ok_or("allocate memory failed")?;
    let env = singleton.as_ptr() as usize;
    let _ = inst.singleton.set(singleton);
    let result = inst.enter(env, || build(&locked, rt, heap_size, s.max_memory_pages, s.parent));
    drop(locked);
    match result {
        Ok(()) => Ok(h),
        Err(e) => {
            // SAFETY: our own new instance, in use by no one.
            unsafe { object::delete::<WASMModuleInstanceCommon>(h) };
            Err(e)
        }
    }
}

/// Instantiates the module into the locked instance's store: imports,
/// memories with the heap, then WAMR's post-instantiation functions.
fn build(
    locked: &Locked<'_>,
    rt: &RtModule,
    heap_size: u32,
    max_memory_pages: u32,
    parent: Option<&ModuleInst>,
) -> Result<(), String> {
    let inst = locked.inst;
    let store = locked.store();
    let module = &rt.module;
    let heap_base = module.exports().any(|e| e.name == "__heap_base" && matches!(e.ty, ExternType::Global(_)));
    let plan = Cell::new(HeapPlan::None);
    let imports = crate::export::link::link(locked, rt, heap_size, max_memory_pages, heap_base, &plan, parent)?;
    let memory0_defined = !module.imports().any(|i| matches!(i.ty, ExternType::Memory(_)));
    let err = RefCell::new(None);
    let result = if let Some(p) = parent {
        let imported = module.imports().filter(|i| matches!(i.ty, ExternType::Memory(_))).count() as u32;
        let shared: Vec<_> = (imported..p.memory_count()).map(|i| p.shared_memory(i)).collect();
        Instance::new_sharing_memories(&mut *store, module, &imports, &shared)
    } else {
        Instance::new_with_memory_types(&mut *store, module, &imports, |i, ty| {
            let (min, max) = pages(&ty);
            if i == 0 && memory0_defined {
                match plan_memory0(ty, heap_size, max_memory_pages, heap_base) {
                    Ok((t, p)) => {
                        plan.set(p);
                        set_fixed_heap(inst, p);
                        return t;
                    }
                    Err(e) => *err.borrow_mut() = Some(e),
                }
            }
            sized(ty, min, capped_max(max_memory_pages, min, max))
        })
    };
    if let Some(e) = err.take() {
        return Err(e);
    }
    let instance = match result {
        Ok(i) => i,
        Err(cranewasm::Error::Trap(t) | cranewasm::Error::Exception(t)) => {
            inst.finish_call(Err(t));
            return Err(format!("Exception: {}", inst.exception_message().unwrap_or_default()));
        }
        Err(e) => return Err(link_error(&e)),
    };
    let _ = inst.instance.set(instance);
    place_heap(locked, instance, plan.get())?;
    let allocator = match (instance.get_func(&*store, "malloc"), instance.get_func(&*store, "free")) {
        (Some(m), Some(f)) if exports_allocator(module) => Some((m, f)),
        _ => None,
    };
    let _ = inst.allocator.set(allocator);
    if parent.is_some() {
        return Ok(());
    }
    crate::export::thread_mgr::find_aux_stack(locked, instance);
    post_instantiate(locked, instance)
}

/// A core instantiation error as WAMR words it.
pub(crate) fn link_error(e: &cranewasm::Error) -> String {
    match e {
        cranewasm::Error::Link(l) => match l.import() {
            Some(i) => crate::core::link::unresolved(i),
            None => format!("Instantiate module failed: {e}"),
        },
        _ => format!("Instantiate module failed: {e}"),
    }
}

/// Sets up the app heap in the new instance's memory 0 as planned.
fn place_heap(locked: &Locked<'_>, instance: Instance, plan: HeapPlan) -> Result<(), String> {
    let store = locked.store();
    let (offset, size) = match plan {
        // A fixed heap was set up as the memory was made.
        HeapPlan::None | HeapPlan::Fixed { .. } => return Ok(()),
        HeapPlan::BeforeHeapBase { size } => {
            let memory = instance.memory(&*store, 0).ok_or("failed to insert app heap into linear memory")?;
            let global = instance.get_global(&*store, "__heap_base");
            let base = global.as_ref().and_then(|g| g.get(&*store).i32()).map(|b| b as u32 as u64);
            let init = memory.data_size(&*store) as u64;
            match (global, base) {
                (Some(g), Some(base)) if base < init => {
                    // WAMR's arithmetic: the heap at __heap_base, the pages
                    // after it shifted up, __heap_base moved past the heap
                    // (and 1 KiB more when that leaves less at the end).
                    let last = if base % PAGE == 0 { PAGE } else { base % PAGE };
                    let to_end = PAGE - last;
                    let mut pages = size.saturating_sub(to_end).div_ceil(PAGE);
                    let mut new_base = base + size;
                    let last = if new_base % PAGE == 0 { PAGE } else { new_base % PAGE };
                    if PAGE - last < 1024 {
                        new_base += 1024;
                        pages += 1;
                    }
                    memory
                        .grow(&mut *store, pages as u64)
                        .map_err(|_| "failed to insert app heap into linear memory")?;
                    // SAFETY: the global's storage, an i32 at byte 0;
                    // WAMR rewrites the (immutable) __heap_base the same way.
                    unsafe { *(g.data_ptr(&*store) as *mut u32) = new_base as u32 };
                    (base, size)
                }
                _ => {
                    let pages = size.div_ceil(PAGE);
                    memory
                        .grow(&mut *store, pages as u64)
                        .map_err(|_| "failed to insert app heap into linear memory")?;
                    (init, pages * PAGE - 1024)
                }
            }
        }
    };
    *locked.inst.heap.lock().unwrap_or_else(|e| e.into_inner()) = Some(AppHeap::new(offset, size));
    Ok(())
}

/// Sets up a heap whose place is known before instantiation, so that a
/// start function may allocate from it.
pub(crate) fn set_fixed_heap(inst: &ModuleInst, plan: HeapPlan) {
    if let HeapPlan::Fixed { offset, size } = plan {
        *inst.heap.lock().unwrap_or_else(|e| e.into_inner()) = Some(AppHeap::new(offset, size));
    }
}

/// Runs WAMR's post-instantiation functions: a WASI module's
/// `_initialize`, `__post_instantiate`, and, for modules without WASI,
/// `__wasm_call_ctors` (the start function already ran).
fn post_instantiate(locked: &Locked<'_>, instance: Instance) -> Result<(), String> {
    let inst = locked.inst;
    let mut names = Vec::new();
    if inst.is_wasi {
        names.push("_initialize");
    }
    names.push("__post_instantiate");
    if !inst.is_wasi {
        names.push("__wasm_call_ctors");
    }
    let unit = FuncType::new([], []);
    for name in names {
        let store = locked.store();
        let Some(f) = instance.get_func(&*store, name) else { continue };
        if f.ty(&*store) != unit {
            continue;
        }
        let outcome = f.call(&mut *store, &[], &mut []).map_err(crate::core::call::to_trap);
        if !inst.finish_call(outcome) {
            return Err(format!("Exception: {}", inst.exception_message().unwrap_or_default()));
        }
    }
    Ok(())
}

/// Instantiates a module with a stack size (kept; see the module
/// documentation) and an app heap of `host_managed_heap_size` bytes. NULL
/// with WAMR's message in `error_buf` when an import cannot be linked, the
/// heap does not fit, or a start or initialisation function traps.
///
/// # Safety
/// `module` NULL or any pointer; `error_buf` NULL or writable for
/// `error_buf_size` bytes. The module must not be unloaded meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiate(
    module: wasm_module_t,
    default_stack_size: u32,
    host_managed_heap_size: u32,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_inst_t {
    let s = Settings {
        stack_size: default_stack_size,
        heap_size: host_managed_heap_size,
        max_memory_pages: 0,
        custom_data: ptr::null_mut(),
        wasi: None,
        parent: None,
    };
    // SAFETY: as the caller promises.
    unsafe { instantiate_or_report(module, &s, error_buf, error_buf_size) }
}

/// [`instantiate`], with the error written to the client's buffer.
///
/// # Safety
/// As for [`wasm_runtime_instantiate`].
pub unsafe fn instantiate_or_report(
    module: wasm_module_t,
    s: &Settings,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_inst_t {
    // SAFETY: as the caller promises.
    match unsafe { instantiate(module, s) } {
        Ok(h) => h,
        Err(e) => {
            // SAFETY: as the caller promises.
            unsafe { set_error_buf(error_buf, error_buf_size, &e) };
            ptr::null_mut()
        }
    }
}

/// Instantiates with `InstantiationArgs`: as [`wasm_runtime_instantiate`],
/// plus `max_memory_pages`. NULL for NULL arguments.
///
/// # Safety
/// As for [`wasm_runtime_instantiate`]; `args` NULL or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiate_ex(
    module: wasm_module_t,
    args: *const InstantiationArgs,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_inst_t {
    // SAFETY: NULL or valid (caller).
    let Some(a) = (unsafe { args.as_ref() }) else {
        // SAFETY: as the caller promises.
        unsafe { set_error_buf(error_buf, error_buf_size, "Instantiate module failed: null instantiation arguments") };
        return ptr::null_mut();
    };
    let s = Settings {
        stack_size: a.default_stack_size,
        heap_size: a.host_managed_heap_size,
        max_memory_pages: a.max_memory_pages,
        custom_data: ptr::null_mut(),
        wasi: None,
        parent: None,
    };
    // SAFETY: as the caller promises.
    unsafe { instantiate_or_report(module, &s, error_buf, error_buf_size) }
}

/// Instantiates with an `InstantiationArgs2` (see [`crate::export::args`]):
/// sizes, custom data, and WASI settings that override the module's.
///
/// # Safety
/// As for [`wasm_runtime_instantiate`]; `args` NULL or any pointer
/// (anything but live arguments from `wasm_runtime_instantiation_args_create`
/// is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_instantiate_ex2(
    module: wasm_module_t,
    args: *const InstantiationArgs2,
    error_buf: *mut c_char,
    error_buf_size: u32,
) -> wasm_module_inst_t {
    // SAFETY: as the caller promises.
    let Some(a) = (unsafe { instantiation_args(args) }) else {
        // SAFETY: as the caller promises.
        unsafe { set_error_buf(error_buf, error_buf_size, "Instantiate module failed: null instantiation arguments") };
        return ptr::null_mut();
    };
    let s = settings_of(a);
    // SAFETY: as the caller promises.
    unsafe { instantiate_or_report(module, &s, error_buf, error_buf_size) }
}

fn settings_of(a: &InstArgs) -> Settings {
    Settings {
        stack_size: a.v1.default_stack_size,
        heap_size: a.v1.host_managed_heap_size,
        max_memory_pages: a.v1.max_memory_pages,
        custom_data: a.custom_data,
        wasi: a.wasi.clone(),
        parent: None,
    }
}

/// Destroys an instance: its memories, its handles (functions, memories,
/// the singleton exec env) and its context data (through the keys'
/// destructors). Refused (with a log line) while a call into it runs.
///
/// # Safety
/// `module_inst` may be NULL or any pointer (anything but a live instance
/// is ignored).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_deinstantiate(module_inst: wasm_module_inst_t) {
    // SAFETY: as the caller promises.
    let Some(inst) = (unsafe { self::inst(module_inst) }) else { return };
    if inst.running() {
        warn(format_args!("wasm_runtime_deinstantiate: the instance is running a call; not destroyed"));
        return;
    }
    if !inst.is_sub {
        // A program that ended has its threads unwinding: the main
        // instance goes after them, unless one is stuck in a host call.
        inst.cluster.wait_ended_threads(std::time::Duration::from_secs(1));
    }
    crate::export::context::run_dtors(inst, module_inst);
    // SAFETY: no call runs in it; the client gives the instance up.
    unsafe { object::delete::<WASMModuleInstanceCommon>(module_inst) };
}

/// The module an instance was made from (which may have been unloaded
/// since); NULL for anything but a live instance.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_module(module_inst: wasm_module_inst_t) -> wasm_module_t {
    // SAFETY: as the caller promises.
    unsafe { self::inst(module_inst) }.map_or(ptr::null_mut(), |i| i.module_handle as wasm_module_t)
}

/// The instance's exception, `"Exception: <message>"`, or NULL when there
/// is none (or for anything but a live instance). Valid until the
/// exception changes.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_exception(module_inst: wasm_module_inst_t) -> *const c_char {
    // SAFETY: as the caller promises.
    let Some(inst) = (unsafe { self::inst(module_inst) }) else { return ptr::null() };
    let mut e = inst.exception();
    match e.as_mut() {
        Some(msg) => {
            if !msg.as_bytes().starts_with(b"Exception: ") {
                *msg = CString::new(format!("Exception: {}", msg.to_string_lossy())).unwrap_or_default();
            }
            msg.as_ptr()
        }
        None => ptr::null(),
    }
}

/// Sets the instance's exception (NULL clears it), as a native reports a
/// failure: the call in progress then traps with it. As WAMR spreads an
/// exception over the instance's cluster, the other instances of the
/// program get it too, and their running calls stop (a clear reaches them
/// all alike).
///
/// # Safety
/// `module_inst` NULL or any pointer; `exception` NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_exception(module_inst: wasm_module_inst_t, exception: *const c_char) {
    // SAFETY: as the caller promises.
    let Some(inst) = (unsafe { self::inst(module_inst) }) else { return };
    // SAFETY: NULL or NUL-terminated (caller).
    let msg = (!exception.is_null()).then(|| unsafe { std::ffi::CStr::from_ptr(exception) }.to_string_lossy());
    match msg {
        Some(m) => inst.cluster.each(|other| {
            other.set_exception(Some(&m));
            if !ptr::eq(other, inst) {
                other.interrupt.interrupt();
            }
        }),
        None => inst.cluster.each(ModuleInst::clear_exception),
    }
}

/// Clears the instance's exception, and, as WAMR spreads it, that of
/// every instance of its program (withdrawing a termination).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_clear_exception(module_inst: wasm_module_inst_t) {
    // SAFETY: as the caller promises.
    if let Some(inst) = unsafe { self::inst(module_inst) } {
        inst.cluster.each(ModuleInst::clear_exception);
    }
}

/// Terminates the instance's execution, from any thread, as WAMR does:
/// the exception becomes "terminated by user", and the call running in the
/// instance stops — within microseconds in wasm code, when a native it is
/// in returns, at once in a WASI wait or read, and a native blocked inside
/// `wasm_runtime_begin_blocking_op`'s bracket is woken (the blocking call
/// returns `EINTR`) — and fails with it. Until the exception is cleared,
/// calls fail at their start, as WAMR's thread manager stops them; once
/// it is cleared they run normally. As in WAMR, which spreads an exception
/// over the instance's cluster, every instance of the program is
/// terminated: the exec envs spawned from it too, those that have not
/// made their first call included.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_terminate(module_inst: wasm_module_inst_t) {
    // SAFETY: as the caller promises.
    if let Some(inst) = unsafe { self::inst(module_inst) } {
        inst.cluster.each(|m| {
            m.set_exception(Some("terminated by user"));
            m.terminated.store(true, Ordering::Relaxed);
            m.interrupt.interrupt();
            crate::export::blocking_op::wake(m.handle());
        });
    }
}

/// Attaches client data to the instance.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_custom_data(module_inst: wasm_module_inst_t, custom_data: *mut c_void) {
    // SAFETY: as the caller promises.
    if let Some(inst) = unsafe { self::inst(module_inst) } {
        inst.custom_data.store(custom_data, Ordering::Relaxed);
    }
}

/// The client data attached to the instance (NULL if none).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_custom_data(module_inst: wasm_module_inst_t) -> *mut c_void {
    // SAFETY: as the caller promises.
    unsafe { self::inst(module_inst) }.map_or(ptr::null_mut(), |i| i.custom_data.load(Ordering::Relaxed))
}

/// Records the bounds-check flag. WAMR uses it to switch software bounds
/// checks off for interpreted code; cranewasm's compiled code is
/// protected by guard pages (or explicit checks, chosen per engine), which
/// no instance may switch off, so only the flag changes.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_bounds_checks(module_inst: wasm_module_inst_t, enable: bool) {
    // SAFETY: as the caller promises.
    if let Some(inst) = unsafe { self::inst(module_inst) } {
        inst.bounds_checks.store(enable, Ordering::Relaxed);
    }
}

/// The bounds-check flag (true unless switched off; false for a bad
/// instance).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_is_bounds_checks_enabled(module_inst: wasm_module_inst_t) -> bool {
    // SAFETY: as the caller promises.
    unsafe { self::inst(module_inst) }.is_some_and(|i| i.bounds_checks.load(Ordering::Relaxed))
}

/// The running mode a new instance starts in: the runtime's default, but
/// `Mode_Interp` (instruction counting) only for a module compiled with it,
/// and always for one under `CRANEWASM_INSTRUCTION_METERING=1`.
fn start_mode(metered: bool) -> RunningMode {
    match crate::core::runtime::default_running_mode() {
        _ if metered && crate::core::runtime::metering_forced() => MODE_INTERP,
        MODE_INTERP if !metered => MODE_LLVM_JIT,
        mode => mode,
    }
}

/// Sets the instance's running mode: true for the modes cranewasm has
/// (`Mode_LLVM_JIT`, `Mode_Interp`, or 0 for the runtime's default), false
/// otherwise. `Mode_Interp` needs a module loaded while the default mode
/// was `Mode_Interp`, whose code counts instructions: compiled code cannot
/// gain the counting afterwards, so for another instance it is refused
/// with a warning (WAMR, which interprets any module, would accept it).
/// Leaving `Mode_Interp` keeps the counting code but drops the limit, as
/// WAMR's JIT modes ignore it.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_set_running_mode(
    module_inst: wasm_module_inst_t,
    running_mode: RunningMode,
) -> bool {
    // SAFETY: as the caller promises.
    let Some(inst) = (unsafe { self::inst(module_inst) }) else { return false };
    if !crate::export::runtime::wasm_runtime_is_running_mode_supported(running_mode) {
        return false;
    }
    let mode = if running_mode == MODE_DEFAULT { start_mode(inst.metered) } else { running_mode };
    if mode == MODE_INTERP && !inst.metered {
        crate::core::runtime::warn(format_args!(
            "wasm_runtime_set_running_mode: the module was compiled without instruction counting; load it while \
             the default running mode is Mode_Interp to run it in Mode_Interp"
        ));
        return false;
    }
    inst.running_mode.store(mode, Ordering::Relaxed);
    true
}

/// The instance's running mode (`Mode_LLVM_JIT`); 0 for a bad instance.
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_get_running_mode(module_inst: wasm_module_inst_t) -> RunningMode {
    // SAFETY: as the caller promises.
    unsafe { self::inst(module_inst) }.map_or(0, |i| i.running_mode.load(Ordering::Relaxed))
}

impl ModuleInst {
    /// Memory `index` of the instance as a shared memory, if it is one.
    pub fn shared_memory(&self, index: u32) -> Option<SharedMemory> {
        let locked = self.lock();
        let store = locked.store();
        self.instance()?.memory(&*store, index)?.to_shared(&*store)
    }

    /// The number of memories of the instance, imported and defined.
    fn memory_count(&self) -> u32 {
        let locked = self.lock();
        let store = locked.store();
        let Some(instance) = self.instance() else { return 0 };
        (0..).find(|i| instance.memory(&*store, *i).is_none()).unwrap_or(0)
    }

    /// Whether memory 0 is shared (the app heap then is too).
    fn memory0_shared(&self) -> bool {
        self.shared_memory(0).is_some()
    }

    /// The exec env object of the singleton.
    pub fn singleton_handle(&self) -> usize {
        self.singleton.get().map_or(0, |s| s.as_ptr() as usize)
    }

    /// The exec env to run a call of the runtime's own with (module
    /// `malloc`, `execute_main`): the one of the call in progress, else
    /// the singleton.
    pub fn exec_env_for_internal_call(&self) -> usize {
        match self.current_exec_env() {
            0 => self.singleton_handle(),
            e => e,
        }
    }
}
