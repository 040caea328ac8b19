//! WAMR's thread manager: spawned exec envs and threads
//! (`wasm_runtime_spawn_exec_env`, `_spawn_thread`, `_join_thread`,
//! `_set_max_thread_num`) and wasi-threads' `wasi.thread-spawn` for
//! instances of `wasm_export.h`.
//!
//! As in WAMR, a thread never runs on its parent's instance: each spawned
//! exec env gets an instance of its own (a *sub instance*, see
//! [`ModuleInst::is_sub`]) of the same module, made over the parent's
//! shared memories (imported or defined), with its WASI state, app heap and
//! custom data; memories that are not shared are the sub instance's own,
//! data segments are not applied again, and of the post-instantiation
//! functions only the start function runs. Instances are single-threaded
//! stores, so threads run in parallel and share only what the program
//! shares: its shared memories.
//!
//! The instances made from one main instance form its *cluster*, which
//! counts them: at most `max_thread_num` (WAMR's default 4, set by
//! `RuntimeInitArgs::max_thread_num` or `wasm_runtime_set_max_thread_num`,
//! and by iwasm's `--max-threads`) spawned at once, as WAMR's
//! `wasm_cluster_add_exec_env` allows. A spawned exec env also needs a
//! slice of the program's auxiliary (shadow) stack, LLVM's
//! `__stack_pointer`: as WAMR does without heap-allocated aux stacks, the
//! stack its loader finds ([`aux_stack`](crate::export::aux_stack): from
//! `__data_end` up to the initial stack pointer, in modules exporting
//! `__heap_base` and `__data_end`) is cut into `max_thread_num + 1`
//! slices, the first the main instance's; a spawn fails ("failed to
//! allocate aux stack space for new thread") when none is free or the
//! module has no such stack. wasi-threads programs manage their threads' stacks themselves
//! (wasi-libc), so `thread-spawn` takes no slice.
//!
//! A wasi-threads thread that traps or calls `proc_exit` ends the whole
//! program, as the proposal requires, and as WAMR does it (its
//! `wasm_cluster_set_exception`): every instance of the cluster gets the
//! exception (`wasi proc exit` with the exit code, or the trap's message)
//! and an interrupt, which stops its running call wherever it is, a
//! `memory.atomic.wait` included; so the main thread's call returns with
//! that exception and the embedder's process lives on. So does the main
//! thread's own exit or trap end the wasi-threads threads it spawned. A
//! thread blocked in a host call (a WASI read, say) stops when that call
//! returns; an embedder that cannot wait for it (iwasm) learns of the end
//! from [`on_program_end`] and may end the process itself.

use std::collections::HashMap;
use std::ffi::c_void;
use std::ptr;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::Duration;

use cranewasm::wasi::threads::MAX_TID;
use cranewasm::{AsContextMut, Func, FuncType, Instance, Val, ValRaw, ValType};

use crate::core::runtime::log;
use crate::export::exec_env::{exec_env as live_exec_env, new_exec_env};
use crate::export::instance::{InstOf, Locked, ModuleInst, Settings, inst, instantiate};
use crate::export::types::*;
use crate::object;
use crate::wasm_module_t;

/// WAMR's `CLUSTER_MAX_THREAD_NUM`.
const DEFAULT_MAX_THREADS: u32 = 4;
/// WAMR's `WASM_THREAD_AUX_STACK_SIZE_MIN`.
const AUX_STACK_MIN: u32 = 256;
/// WASI's `EAGAIN`, negated: what a failed `thread-spawn` returns.
const SPAWN_FAILED: i32 = -6;

/// The maximum number of threads a cluster may spawn.
static MAX_THREADS: AtomicU32 = AtomicU32::new(DEFAULT_MAX_THREADS);

/// Records `max_thread_num` (0 keeps the current one, as in WAMR).
pub fn set_max_thread_num(n: u32) {
    if n > 0 {
        MAX_THREADS.store(n, Ordering::Relaxed);
    }
}

/// Sets the maximum number of threads a program may spawn (WAMR's
/// `max_thread_num`; 0 is ignored).
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_set_max_thread_num(num: u32) {
    set_max_thread_num(num);
}

/// The threads of one program.
#[derive(Default)]
pub struct Cluster {
    /// Spawned threads (exec envs) alive.
    spawned: AtomicU32,
    /// The next wasi-threads thread id.
    next_tid: AtomicU32,
    aux: Mutex<Option<AuxStacks>>,
    /// The live instances of the program (addresses of `ModuleInst`s,
    /// which leave before they are dropped), to end them all.
    members: Mutex<Vec<usize>>,
    /// wasi-threads threads still running; `finished` is signalled as
    /// each ends.
    threads: Mutex<u32>,
    finished: Condvar,
    /// The program ended (a thread's exit or trap): it ends once.
    ended: AtomicBool,
}

/// How a program ended in one of its spawned threads, for
/// [`on_program_end`].
pub struct ProgramEnd {
    /// `proc_exit`'s status, or `None` after a trap.
    pub exit_code: Option<u32>,
    /// The exception every instance of the program got (without WAMR's
    /// "Exception: " prefix).
    pub message: String,
}

static PROGRAM_END: OnceLock<fn(&ProgramEnd)> = OnceLock::new();

/// Has `hook` called (on the ending thread, after every instance was
/// stopped) when a spawned thread ends its program: an embedder whose
/// main thread may be blocked in a host call that no interrupt stops can
/// then end the process itself, as iwasm does. The first hook set stays.
pub fn on_program_end(hook: fn(&ProgramEnd)) {
    let _ = PROGRAM_END.set(hook);
}

/// The slices of the program's shadow stack.
struct AuxStacks {
    /// The index of `__stack_pointer` among the instance's globals.
    global: u32,
    /// The top of the first slice after the main instance's.
    top: u32,
    size: u32,
    used: Vec<bool>,
}

impl Cluster {
    /// A cluster for a new main instance.
    pub fn new() -> Arc<Cluster> {
        Arc::new(Cluster { next_tid: AtomicU32::new(1), ..Default::default() })
    }

    /// Counts a new thread, unless the cluster has its maximum.
    fn reserve(&self) -> bool {
        let max = MAX_THREADS.load(Ordering::Relaxed);
        if self.spawned.fetch_add(1, Ordering::AcqRel) >= max {
            self.spawned.fetch_sub(1, Ordering::AcqRel);
            log(1, format_args!("thread manager error: maximum number of threads exceeded"));
            return false;
        }
        true
    }

    fn release(&self) {
        self.spawned.fetch_sub(1, Ordering::AcqRel);
    }

    fn members(&self) -> std::sync::MutexGuard<'_, Vec<usize>> {
        self.members.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records a new instance of the program.
    pub fn join(&self, inst: &'static ModuleInst) {
        self.members().push(ptr::from_ref(inst) as usize);
    }

    /// Runs `f` on every live instance of the program: WAMR spreads an
    /// exception set or cleared through the API over its cluster.
    pub fn each(&self, f: impl Fn(&ModuleInst)) {
        for &m in self.members().iter() {
            // SAFETY: members are live: an instance leaves (under this
            // lock, held here) before it is dropped.
            f(unsafe { &*(m as *const ModuleInst) });
        }
    }

    /// Forgets an instance about to be dropped.
    pub fn leave(&self, inst: &ModuleInst) {
        let me = ptr::from_ref(inst) as usize;
        self.members().retain(|&m| m != me);
    }

    /// Ends the program, the first time only: every instance gets the
    /// exception and exit code and is stopped. True if this ended it.
    fn end(&self, failed: &ModuleInst) -> bool {
        if self.ended.swap(true, Ordering::AcqRel) {
            return false;
        }
        let (message, exit_code) = outcome(failed);
        let frames = failed.frames.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for &m in self.members().iter() {
            // SAFETY: members are live: an instance leaves (under this
            // lock, held here) before it is dropped.
            unsafe { &*(m as *const ModuleInst) }.end_program(&message, exit_code, &frames);
        }
        // Threads waiting in lib-pthread's natives return, to be stopped.
        crate::libc_builtin::pthread::wake_waiters();
        true
    }

    /// The main instance's call failed: if threads it spawned run
    /// (wasi-threads or lib-pthread), the program ends with its exception
    /// (they are stopped), as WAMR spreads it over the cluster.
    pub fn main_failed(&self, main: &ModuleInst) {
        if *self.threads_running() > 0 {
            self.end(main);
        }
    }

    /// The main instance's `_start` returned: as WAMR does then, which
    /// takes the return for `proc_exit(0)` (C's `exit` after `main`), the
    /// threads still running are stopped (their exception "wasi proc
    /// exit", status 0), and the main instance is left without exception.
    pub fn main_returned(&self, main: &ModuleInst) {
        if *self.threads_running() > 0 {
            main.wasi_exit_code.store(0, Ordering::Relaxed);
            main.set_exception(Some("wasi proc exit"));
            self.end(main);
            main.clear_exception();
        }
    }

    fn threads_running(&self) -> std::sync::MutexGuard<'_, u32> {
        self.threads.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a thread that runs the program until it calls
    /// [`Cluster::thread_finished`]: the main instance waits for it when
    /// the program ended (see [`Cluster::wait_ended_threads`]).
    pub(crate) fn thread_started(&self) {
        *self.threads_running() += 1;
    }

    pub(crate) fn thread_finished(&self) {
        *self.threads_running() -= 1;
        self.finished.notify_all();
    }

    /// After the program ended, waits (at most `limit`) for its
    /// wasi-threads threads to unwind and finish, so that the main instance
    /// goes after them; false if some still run (blocked in a host call).
    pub fn wait_ended_threads(&self, limit: Duration) -> bool {
        if !self.ended.load(Ordering::Acquire) {
            return true;
        }
        let running = self.threads_running();
        let (running, _) =
            self.finished.wait_timeout_while(running, limit, |n| *n > 0).unwrap_or_else(|e| e.into_inner());
        *running == 0
    }

    /// A free slice of the shadow stack: its global, top and slot.
    fn take_stack(&self) -> Option<(u32, u32, usize)> {
        let mut aux = self.aux.lock().unwrap_or_else(|e| e.into_inner());
        let aux = aux.as_mut()?;
        let slot = aux.used.iter().position(|u| !u)?;
        aux.used[slot] = true;
        Some((aux.global, aux.top - aux.size * slot as u32, slot))
    }

    fn free_stack(&self, slot: usize) {
        if let Some(aux) = self.aux.lock().unwrap_or_else(|e| e.into_inner()).as_mut() {
            aux.used[slot] = false;
        }
    }
}

/// The wasi-threads threads of an instance's program still running (0
/// for anything but a live instance).
///
/// # Safety
/// `module_inst` may be NULL or any pointer.
pub unsafe fn threads_running(module_inst: wasm_module_inst_t) -> u32 {
    // SAFETY: as the caller promises.
    unsafe { inst(module_inst) }.map_or(0, |i| *i.cluster.threads_running())
}

/// An instance's exception and, for `proc_exit`, its exit code.
fn outcome(inst: &ModuleInst) -> (String, Option<u32>) {
    let message = inst.exception_message().unwrap_or_default();
    let exit_code = (message == "wasi proc exit").then(|| inst.wasi_exit_code.load(Ordering::Relaxed));
    (message, exit_code)
}

/// A spawned thread's call failed (`proc_exit` or a trap, the exception
/// of `failed`): the program ends (see the module documentation).
pub(crate) fn end_program(failed: &ModuleInst) {
    if failed.cluster.end(failed)
        && let Some(hook) = PROGRAM_END.get()
    {
        let (message, exit_code) = outcome(failed);
        hook(&ProgramEnd { exit_code, message });
    }
}

/// Records the shadow stack of a new main instance, as WAMR's loader
/// finds it ([`aux_stack`](crate::export::aux_stack)), cut into
/// `max_thread_num + 1` slices.
pub fn find_aux_stack(locked: &Locked<'_>, instance: Instance) {
    let Some(stack) = crate::export::aux_stack::find(locked, instance) else { return };
    let max = MAX_THREADS.load(Ordering::Relaxed);
    let size = (stack.size / (max + 1)) & !15;
    if size < AUX_STACK_MIN {
        return;
    }
    let aux = AuxStacks { global: stack.global, top: stack.top - size, size, used: vec![false; max as usize] };
    *locked.inst.cluster.aux.lock().unwrap_or_else(|e| e.into_inner()) = Some(aux);
}

/// A new sub instance of `parent` (see the module documentation): its
/// handle, or WAMR's reason.
fn instantiate_sub(parent: &'static ModuleInst) -> Result<wasm_module_inst_t, String> {
    let s = Settings {
        stack_size: parent.default_stack_size,
        heap_size: 0,
        max_memory_pages: 0,
        custom_data: parent.custom_data.load(Ordering::Relaxed),
        wasi: None,
        parent: Some(parent),
    };
    // SAFETY: a handle the library stored, checked.
    if unsafe { object::get_stored::<crate::WASMModuleCommon>(parent.module_handle) }.is_none() {
        return Err("the instance's module was unloaded".into());
    }
    // SAFETY: the parent's module handle, live (above), which the sub
    // instance needs only while it is made.
    let h = unsafe { instantiate(parent.module_handle as wasm_module_t, &s) }?;
    // SAFETY: just made.
    if let Some(sub) = unsafe { inst(h) } {
        crate::export::context::inherit(sub, parent);
    }
    Ok(h)
}

/// Destroys a sub instance that no call uses any more.
fn destroy_sub(h: wasm_module_inst_t) {
    // SAFETY: a sub instance this file made, used by no one now; the
    // client may have seen its handle (`wasm_runtime_get_module_inst`).
    unsafe { object::retire::<WASMModuleInstanceCommon>(h) };
}

/// What a spawned exec env holds besides itself.
struct Spawned {
    inst: usize,
    cluster: Arc<Cluster>,
    slot: usize,
}

/// Spawned exec envs, by handle.
static SPAWNED: Mutex<Option<HashMap<usize, Spawned>>> = Mutex::new(None);

fn spawned() -> std::sync::MutexGuard<'static, Option<HashMap<usize, Spawned>>> {
    SPAWNED.lock().unwrap_or_else(|e| e.into_inner())
}

/// A new exec env, on a sub instance of the exec env's instance, for
/// another thread to call the program with; NULL (with WAMR's log line)
/// when the cluster has its maximum of threads, no shadow stack slice is
/// free, or the sub instance cannot be made.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_spawn_exec_env(exec_env: wasm_exec_env_t) -> wasm_exec_env_t {
    let Some(env) = live_exec_env(exec_env as usize) else { return ptr::null_mut() };
    let Some(parent) = exec_env_of(exec_env) else { return ptr::null_mut() };
    let cluster = parent.cluster.clone();
    if !cluster.reserve() {
        return ptr::null_mut();
    }
    let Some((global, top, slot)) = cluster.take_stack() else {
        log(1, format_args!("thread manager error: failed to allocate aux stack space for new thread"));
        cluster.release();
        return ptr::null_mut();
    };
    let undo = |cluster: &Cluster| {
        cluster.free_stack(slot);
        cluster.release();
    };
    let sub_h = match instantiate_sub(parent) {
        Ok(h) => h,
        Err(e) => {
            log(1, format_args!("thread manager error: {e}"));
            undo(&cluster);
            return ptr::null_mut();
        }
    };
    // SAFETY: just made.
    let sub = unsafe { inst(sub_h) }.expect("a new instance is live");
    let set = {
        let locked = sub.lock();
        let store = locked.store();
        let sp = sub.instance().and_then(|i| i.global(&*store, global));
        sp.is_some_and(|g| g.set(&mut *store, Val::I32(top as i32)).is_ok())
    };
    let new = if set {
        object::new::<WASMExecEnv>(new_exec_env(sub_h as usize, env.stack_size, false))
    } else {
        ptr::null_mut()
    };
    if new.is_null() {
        destroy_sub(sub_h);
        undo(&cluster);
        return ptr::null_mut();
    }
    spawned().get_or_insert_with(HashMap::new).insert(new as usize, Spawned { inst: sub_h as usize, cluster, slot });
    new
}

/// Destroys an exec env [`wasm_runtime_spawn_exec_env`] made, with its
/// instance and shadow stack slice; anything else is ignored (with a log
/// line).
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_destroy_spawned_exec_env(exec_env: wasm_exec_env_t) {
    let Some(s) = spawned().as_mut().and_then(|m| m.remove(&(exec_env as usize))) else {
        // One the end of the runtime freed goes without a word.
        if crate::handle::live(exec_env as usize, crate::handle::ANY_KIND) != Err(crate::handle::Miss::Retired) {
            log(1, format_args!("wasm_runtime_destroy_spawned_exec_env: not a spawned exec env"));
        }
        return;
    };
    // SAFETY: a spawned exec env, given up by the client.
    unsafe { destroy_spawned(exec_env as usize, s, false) };
}

/// Frees a spawned exec env taken out of [`SPAWNED`], with its instance and
/// shadow stack slice; `retired`: for the client (see [`object::retire`]).
///
/// # Safety
/// No call may use the exec env or its instance.
unsafe fn destroy_spawned(exec_env: usize, s: Spawned, retired: bool) {
    // SAFETY: as the caller promises.
    unsafe {
        match retired {
            true => object::retire::<WASMExecEnv>(exec_env as wasm_exec_env_t),
            false => object::delete::<WASMExecEnv>(exec_env as wasm_exec_env_t),
        }
    }
    destroy_sub(s.inst as wasm_module_inst_t);
    s.cluster.free_stack(s.slot);
    s.cluster.release();
}

/// Frees the spawned exec envs whose instance runs no call, for the end of
/// the runtime ([`teardown`](crate::export::teardown)); those of threads
/// still running stay with them.
pub fn destroy_idle_spawned() {
    let idle: Vec<(usize, Spawned)> = {
        let mut map = spawned();
        let Some(map) = map.as_mut() else { return };
        // SAFETY: the sub instances of spawned exec envs are live until
        // their entry leaves the map.
        let is_idle = |s: &Spawned| unsafe { inst(s.inst as wasm_module_inst_t) }.is_some_and(|i| !i.running());
        let keys: Vec<usize> = map.iter().filter(|(_, s)| is_idle(s)).map(|(k, _)| *k).collect();
        keys.into_iter().filter_map(|k| map.remove(&k).map(|s| (k, s))).collect()
    };
    for (exec_env, s) in idle {
        // SAFETY: its instance runs no call, and the map no longer has it.
        unsafe { destroy_spawned(exec_env, s, true) };
    }
}

/// The program (cluster) of a live exec env's instance.
pub(crate) fn cluster_of(exec_env: wasm_exec_env_t) -> Option<Arc<Cluster>> {
    exec_env_of(exec_env).map(|i| i.cluster.clone())
}

/// Whether the program of a live exec env's instance has ended: its
/// threads are being stopped, and a native should not wait any longer.
pub(crate) fn program_ended(exec_env: wasm_exec_env_t) -> bool {
    exec_env_of(exec_env).is_some_and(|i| i.cluster.ended.load(Ordering::Acquire))
}

/// The instance of a live exec env.
fn exec_env_of(h: wasm_exec_env_t) -> Option<&'static ModuleInst> {
    live_exec_env(h as usize)?.instance()
}

/// Threads started by [`wasm_runtime_spawn_thread`], by id.
static THREADS: Mutex<Option<HashMap<u64, JoinHandle<usize>>>> = Mutex::new(None);
static NEXT_THREAD: AtomicU64 = AtomicU64::new(1);

/// The stack a thread running wasm needs: the engine's wasm stack limit
/// and room for the host frames around it.
fn thread_stack(inst: &ModuleInst) -> usize {
    inst.module.engine().config().get_max_wasm_stack() + (2 << 20)
}

/// Runs `callback(exec_env, arg)` on a new thread with a spawned exec env,
/// which is destroyed when the callback returns; 0 and the thread's id in
/// `*tid`, or -1 when no exec env or thread can be made.
///
/// # Safety
/// `exec_env` NULL or any pointer; `tid` NULL or writable; `callback`
/// callable from any thread as its type says, with `arg`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_spawn_thread(
    exec_env: wasm_exec_env_t,
    tid: *mut wasm_thread_t,
    callback: wasm_thread_callback_t,
    arg: *mut c_void,
) -> i32 {
    let Some(callback) = callback else { return -1 };
    if tid.is_null() {
        return -1;
    }
    // SAFETY: as the caller promises.
    let new = unsafe { wasm_runtime_spawn_exec_env(exec_env) };
    if new.is_null() {
        return -1;
    }
    let stack = exec_env_of(new).map_or(4 << 20, thread_stack);
    let (env, arg) = (new as usize, arg as usize);
    let started = std::thread::Builder::new().stack_size(stack).spawn(move || {
        crate::export::threads::mark_thread_inited();
        // SAFETY: the client's callback, called as its type says.
        let ret = unsafe { callback(env as wasm_exec_env_t, arg as *mut c_void) };
        // SAFETY: the exec env this thread was given.
        unsafe { wasm_runtime_destroy_spawned_exec_env(env as wasm_exec_env_t) };
        ret as usize
    });
    match started {
        Ok(handle) => {
            let id = NEXT_THREAD.fetch_add(1, Ordering::Relaxed);
            THREADS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(id, handle);
            // SAFETY: writable (caller).
            unsafe { tid.write(id as wasm_thread_t) };
            0
        }
        Err(_) => {
            // SAFETY: our own spawned exec env, not handed out.
            unsafe { wasm_runtime_destroy_spawned_exec_env(new) };
            -1
        }
    }
}

/// Waits for a thread of [`wasm_runtime_spawn_thread`]: 0 and its
/// callback's result in `*retval` (if not NULL), or -1 for an unknown (or
/// already joined) thread.
///
/// # Safety
/// `retval` NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_join_thread(tid: wasm_thread_t, retval: *mut *mut c_void) -> i32 {
    let handle = THREADS.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|m| m.remove(&(tid as u64)));
    let Some(Ok(ret)) = handle.map(JoinHandle::join) else { return -1 };
    if !retval.is_null() {
        // SAFETY: writable (caller).
        unsafe { retval.write(ret as *mut c_void) };
    }
    0
}

/// `wasi.thread-spawn` for an instance's store.
pub fn thread_spawn_func(store: &mut cranewasm::Store<crate::export::instance::InstData>) -> Func {
    Func::new_raw(store.as_context_mut(), FuncType::new([ValType::I32], [ValType::I32]), |caller, slots| {
        let parent = caller.data().inst();
        slots[0] = ValRaw::i32(wasi_thread_spawn(parent, slots[0].get_i32()));
        Ok(())
    })
    .expect("trampoline compilation cannot fail")
}

/// `thread-spawn(start_arg)`: a new thread running `wasi_thread_start(tid,
/// start_arg)` on a sub instance; its id, or `-EAGAIN`.
fn wasi_thread_spawn(parent: &'static ModuleInst, start_arg: i32) -> i32 {
    let cluster = parent.cluster.clone();
    if !cluster.reserve() {
        return SPAWN_FAILED;
    }
    let tid = cluster.next_tid.try_update(Ordering::AcqRel, Ordering::Acquire, |t| (t <= MAX_TID).then_some(t + 1));
    let sub_h = match tid.map_err(|_| "thread ids exhausted".to_string()).and_then(|_| instantiate_sub(parent)) {
        Ok(h) => h,
        Err(e) => {
            log(1, format_args!("thread manager error: {e}"));
            cluster.release();
            return SPAWN_FAILED;
        }
    };
    let tid = tid.unwrap_or_default();
    // SAFETY: just made.
    let sub = unsafe { inst(sub_h) }.expect("a new instance is live");
    let start_ty = FuncType::new([ValType::I32, ValType::I32], []);
    let start = {
        let locked = sub.lock();
        let store = locked.store();
        sub.instance().and_then(|i| i.get_func(&*store, "wasi_thread_start")).filter(|f| f.ty(&*store) == start_ty)
    };
    let Some(start) = start else {
        destroy_sub(sub_h);
        cluster.release();
        return SPAWN_FAILED;
    };
    let h = sub_h as usize;
    let for_thread = cluster.clone();
    cluster.thread_started();
    let started = std::thread::Builder::new()
        .name(format!("wasi-thread-{tid}"))
        .stack_size(thread_stack(parent))
        .spawn(move || {
            crate::export::threads::mark_thread_inited();
            // SAFETY: the sub instance this thread owns.
            let sub = unsafe { inst(h as wasm_module_inst_t) }.expect("the thread's instance is live");
            let env = sub.singleton_handle();
            let args = [Val::I32(tid as i32), Val::I32(start_arg)];
            if crate::export::call::call_vals(sub, env, start, &start_ty, &args).is_none() {
                end_program(sub);
            }
            destroy_sub(h as wasm_module_inst_t);
            for_thread.release();
            for_thread.thread_finished();
        });
    match started {
        Ok(_) => tid as i32,
        Err(_) => {
            destroy_sub(sub_h);
            cluster.release();
            cluster.thread_finished();
            SPAWN_FAILED
        }
    }
}
