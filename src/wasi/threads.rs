//! wasi-threads: `wasi.thread-spawn`, for programs built for
//! `wasm32-wasip1-threads` (pthreads over wasi-libc).
//!
//! As the proposal's ABI says, a program imports one shared memory, and
//! every thread is a new instance of the same module over that memory: the
//! new thread calls the instance's `wasi_thread_start(tid, start_arg)`
//! export. Stores are single-threaded, so each thread has its own store,
//! whose data is made from the spawning thread's by the embedder's `fork`
//! (for a [`WasiCtx`](super::WasiCtx), [`share`](super::WasiCtx::share): one
//! fd table for the whole program) and whose imports the embedder's `link`
//! defines, as for the first thread.
//!
//! Thread ids are 1, 2, ... up to 0x1FFF_FFFF (the ABI's range), never
//! reused; a spawn that cannot start a thread (the limit of live threads,
//! or an instantiation that fails) returns `-EAGAIN`. A thread that
//! returns from `wasi_thread_start` just ends.
//!
//! One that calls `proc_exit` or traps ends the whole program, as the
//! proposal requires, without ending the process (a library must not): the
//! program's other stores are interrupted, which stops their running calls
//! wherever they are, `memory.atomic.wait` included (a call blocked in a
//! host function stops when that returns). The first thread's call then
//! returns with the program's end: [`WasiThreads::start`] gives it as
//! [`wasi::start`](super::start) gives the first thread's own `proc_exit`
//! or trap, and [`WasiThreads::exit`] tells it at any time; the embedder's
//! optional [`on_exit`](WasiThreadsBuilder::on_exit) hears of it at once,
//! on the ending thread (a command-line runner may end the process there,
//! with [`exit_process`]). The first thread's `_start` ending, by a
//! return, `proc_exit` or a trap, ends the other threads too when run
//! through [`WasiThreads::start`], as the proposal's tests expect of a
//! program whose main function is done.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::environ::error::{Error, Result};
use crate::environ::trap::Trap;
use crate::environ::types::{ExternType, FuncType, ValType};
use crate::environ::val_raw::ValRaw;
use crate::runtime::caller::Caller;
use crate::runtime::func::Func;
use crate::runtime::instance::Instance;
use crate::runtime::interrupt::InterruptHandle;
use crate::runtime::linker::Linker;
use crate::runtime::module::Module;
use crate::runtime::shared_memory::SharedMemory;
use crate::runtime::store::{AsContextMut, Store};

/// The module name `thread-spawn` is imported from.
pub const MODULE: &str = "wasi";
/// The spawning function's name.
pub const SPAWN: &str = "thread-spawn";
/// The export a new thread runs: `(tid: i32, start_arg: i32)`.
pub const START: &str = "wasi_thread_start";
/// The largest thread id.
pub const MAX_TID: u32 = 0x1FFF_FFFF;
/// Live spawned threads allowed by default (see
/// [`WasiThreadsBuilder::max_threads`]).
pub const DEFAULT_MAX_THREADS: u32 = 128;
/// WASI's `EAGAIN`, negated: what a failed spawn returns.
const SPAWN_FAILED: i32 = -6;

/// How a spawned thread ended the program.
#[derive(Debug, Clone)]
pub enum ProgramExit {
    /// It called `proc_exit` with this status.
    Exit(i32),
    /// It trapped (or its start function could not be called).
    Trap(Trap),
}

type Fork<T> = dyn Fn(&mut T) -> T + Send + Sync;
type Link<T> = dyn Fn(&mut Store<T>, &mut Linker<T>) -> Result<()> + Send + Sync;
type OnExit = dyn Fn(ProgramExit) + Send + Sync;

/// What the threads of one program share: its module, its memory, how a
/// thread's store is made, and the thread ids.
pub struct WasiThreads<T> {
    program: Arc<Program<T>>,
}

impl<T> Clone for WasiThreads<T> {
    fn clone(&self) -> Self {
        WasiThreads { program: self.program.clone() }
    }
}

struct Program<T> {
    module: Module,
    memory: SharedMemory,
    /// Module and field name of the memory import.
    memory_import: (String, String),
    max_threads: u32,
    next_tid: AtomicU32,
    live: AtomicU32,
    fork: Box<Fork<T>>,
    link: Box<Link<T>>,
    on_exit: Box<OnExit>,
    /// The interrupt handles of the program's stores: the first thread's
    /// (id 0, as many as were instantiated) and the running threads'.
    stores: Mutex<Vec<(u32, InterruptHandle)>>,
    /// How the program ended, once it has.
    ended: OnceLock<ProgramExit>,
}

/// The defaults of [`WasiThreads::new`], changed before it is shared.
pub struct WasiThreadsBuilder<T> {
    module: Module,
    fork: Box<Fork<T>>,
    link: Box<Link<T>>,
    max_threads: u32,
    on_exit: Box<OnExit>,
}

impl<T: Send + 'static> WasiThreadsBuilder<T> {
    /// At most `n` spawned threads alive at once (WAMR's `--max-threads`);
    /// a spawn past it fails.
    pub fn max_threads(mut self, n: u32) -> Self {
        self.max_threads = n;
        self
    }

    /// Called on the ending thread when a spawned thread's `proc_exit` or
    /// trap ends the program, once the other threads were told to stop
    /// (by default nothing more happens: see the module documentation).
    pub fn on_exit(mut self, f: impl Fn(ProgramExit) + Send + Sync + 'static) -> Self {
        self.on_exit = Box::new(f);
        self
    }

    /// The program's shared state, with its memory created from the
    /// module's import. Fails when the module does not import exactly one
    /// memory, a shared one.
    pub fn build(self) -> Result<WasiThreads<T>> {
        let mut memories = self.module.imports().filter_map(|i| match i.ty {
            ExternType::Memory(ty) => Some((i.module, i.name, ty)),
            _ => None,
        });
        let found = (memories.next(), memories.next());
        drop(memories);
        let (module_name, name, ty) = match found {
            (Some(m), None) if m.2.is_shared() => m,
            _ => {
                return Err(Error::Usage(
                    "a wasi-threads program must import one memory, a shared one, for its threads to share".into(),
                ));
            }
        };
        let memory = SharedMemory::new(self.module.engine(), ty)?;
        Ok(WasiThreads {
            program: Arc::new(Program {
                module: self.module,
                memory,
                memory_import: (module_name, name),
                max_threads: self.max_threads,
                next_tid: AtomicU32::new(1),
                live: AtomicU32::new(0),
                fork: self.fork,
                link: self.link,
                on_exit: self.on_exit,
                stores: Mutex::default(),
                ended: OnceLock::new(),
            }),
        })
    }
}

impl<T: Send + 'static> WasiThreads<T> {
    /// A program of `module`: each new thread's store data is
    /// `fork(spawning thread's data)`, and its imports (all but the shared
    /// memory and `thread-spawn`, which this adds) are what `link` defines.
    ///
    /// ```
    /// use cranewasm::wasi::{threads::WasiThreads, WasiCtx};
    /// use cranewasm::{Engine, Module, Store};
    /// let engine = Engine::default();
    /// let module = Module::new(&engine, r#"(module
    ///     (import "env" "memory" (memory 1 1 shared))
    ///     (import "wasi" "thread-spawn" (func $spawn (param i32) (result i32)))
    ///     (func (export "wasi_thread_start") (param i32 i32)
    ///         (i32.atomic.store (i32.const 0) (local.get 0))
    ///         (drop (memory.atomic.notify (i32.const 0) (i32.const 1))))
    ///     (func (export "_start")
    ///         (drop (call $spawn (i32.const 0)))
    ///         (drop (memory.atomic.wait32 (i32.const 0) (i32.const 0) (i64.const -1)))))"#)?;
    /// let threads = WasiThreads::new(&module, WasiCtx::share, |store, linker| {
    ///     linker.define_wasi(store, |cx: &mut WasiCtx| cx)?;
    ///     Ok(())
    /// })
    /// .build()?;
    /// let mut store = Store::new(&engine, WasiCtx::builder().build()?);
    /// let instance = threads.instantiate(&mut store)?;
    /// cranewasm::wasi::start(&mut store, &instance)?;
    /// assert_eq!(unsafe { *threads.memory().data()[0].get() }, 1, "thread 1 ran");
    /// # Ok::<(), cranewasm::Error>(())
    /// ```
    #[allow(clippy::new_ret_no_self, reason = "the builder names its optional settings")]
    pub fn new(
        module: &Module,
        fork: impl Fn(&mut T) -> T + Send + Sync + 'static,
        link: impl Fn(&mut Store<T>, &mut Linker<T>) -> Result<()> + Send + Sync + 'static,
    ) -> WasiThreadsBuilder<T> {
        WasiThreadsBuilder {
            module: module.clone(),
            fork: Box::new(fork),
            link: Box::new(link),
            max_threads: DEFAULT_MAX_THREADS,
            on_exit: Box::new(|_| {}),
        }
    }

    /// The program's shared memory.
    pub fn memory(&self) -> &SharedMemory {
        &self.program.memory
    }

    /// Spawned threads still running.
    pub fn live_threads(&self) -> u32 {
        self.program.live.load(Ordering::Acquire)
    }

    /// How the program ended, if it has: by a spawned thread's `proc_exit`
    /// or trap, or when [`start`](Self::start) returned.
    pub fn exit(&self) -> Option<ProgramExit> {
        self.program.ended.get().cloned()
    }

    /// Runs the program's `_start` in `store` (the first thread's, with
    /// `instance` made by [`instantiate`](Self::instantiate)), as
    /// [`wasi::start`](super::start) does: its exit status, or its error.
    /// When a spawned thread ended the program, that is the outcome: its
    /// `proc_exit` status, or its trap. When `_start` ends first, the
    /// program's other threads are stopped.
    pub fn start(&self, store: &mut Store<T>, instance: &Instance) -> Result<i32> {
        let result = super::start(&mut *store, instance);
        let own = match &result {
            Ok(code) => ProgramExit::Exit(*code),
            Err(Error::Trap(trap)) => ProgramExit::Trap(trap.clone()),
            Err(e) => ProgramExit::Trap(Trap::new(e.to_string())),
        };
        // The first thread's store is not stopped: it is done.
        if end(&self.program, own, false) {
            return result;
        }
        match self.program.ended.get() {
            Some(ProgramExit::Exit(code)) => Ok(*code),
            Some(ProgramExit::Trap(trap)) => Err(Error::Trap(trap.clone())),
            None => result,
        }
    }

    /// Defines the shared memory import and `wasi.thread-spawn` in
    /// `linker`, for `store`.
    pub fn define(&self, store: &mut Store<T>, linker: &mut Linker<T>) -> Result<()> {
        let (module, name) = &self.program.memory_import;
        let memory = self.program.memory.to_memory(&mut *store)?;
        linker.define(&*store, module, name, memory)?;
        let program = self.program.clone();
        let spawn = Func::new_raw(
            store.as_context_mut(),
            FuncType::new([ValType::I32], [ValType::I32]),
            move |mut caller: Caller<'_, T>, slots: &mut [ValRaw]| {
                let arg = slots[0].get_i32();
                slots[0] = ValRaw::i32(spawn(&program, caller.data_mut(), arg));
                Ok(())
            },
        )?;
        linker.define(&*store, MODULE, SPAWN, spawn)?;
        Ok(())
    }

    /// An instance of the program in `store` (the first thread's, or any
    /// other), with `link`'s imports and this program's memory and
    /// `thread-spawn`.
    pub fn instantiate(&self, store: &mut Store<T>) -> Result<Instance> {
        instantiate(&self.program, store, 0)
    }
}

impl<T> Program<T> {
    fn stores(&self) -> MutexGuard<'_, Vec<(u32, InterruptHandle)>> {
        self.stores.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Ends the program with `exit`, unless it ended already: every store is
/// interrupted, the first thread's (id 0) only if `first_too`. True if
/// this ended it.
fn end<T>(program: &Program<T>, exit: ProgramExit, first_too: bool) -> bool {
    if program.ended.set(exit).is_err() {
        return false;
    }
    for (tid, handle) in program.stores().iter() {
        if first_too || *tid != 0 {
            handle.interrupt();
        }
    }
    true
}

/// An instance of the program in `store`, the store of thread `tid` (0:
/// the first thread), whose interrupt handle the program keeps (made
/// before any call, so that every call of the store can be stopped).
fn instantiate<T: Send + 'static>(program: &Arc<Program<T>>, store: &mut Store<T>, tid: u32) -> Result<Instance> {
    program.stores().push((tid, store.interrupt_handle()));
    let mut linker = Linker::new(store.engine());
    (program.link)(store, &mut linker)?;
    WasiThreads { program: program.clone() }.define(store, &mut linker)?;
    linker.instantiate(store, &program.module)
}

/// `thread-spawn(start_arg)`: a new thread's id, or `-EAGAIN`.
fn spawn<T: Send + 'static>(program: &Arc<Program<T>>, parent: &mut T, start_arg: i32) -> i32 {
    // Count the thread first, so that racing spawns cannot pass the limit.
    if program.live.fetch_add(1, Ordering::AcqRel) >= program.max_threads {
        program.live.fetch_sub(1, Ordering::AcqRel);
        return SPAWN_FAILED;
    }
    match start_thread(program, parent, start_arg) {
        Ok(tid) => tid as i32,
        Err(_) => {
            program.live.fetch_sub(1, Ordering::AcqRel);
            SPAWN_FAILED
        }
    }
}

/// Makes the new thread's store and instance here (so that a failure is
/// the spawn's), then runs it on a thread of its own.
fn start_thread<T: Send + 'static>(program: &Arc<Program<T>>, parent: &mut T, start_arg: i32) -> Result<u32> {
    let tid = program
        .next_tid
        .try_update(Ordering::AcqRel, Ordering::Acquire, |t| (t <= MAX_TID).then_some(t + 1))
        .map_err(|_| Error::Usage("thread ids exhausted".into()))?;
    let mut store = Store::new(program.module.engine(), (program.fork)(parent));
    let instance = match instantiate(program, &mut store, tid) {
        Ok(i) => i,
        Err(e) => {
            forget_store(program, tid);
            return Err(e);
        }
    };
    let start =
        instance
            .get_func(&store, START)
            .ok_or_else(|| Error::Usage(format!("no {START} export")))?
            .typed::<(i32, i32), ()>(&store)?;
    // Room for the wasm stack limit and the host frames around it.
    let stack = program.module.engine().config().max_wasm_stack + (2 << 20);
    let program_for_thread = program.clone();
    let started = std::thread::Builder::new().name(format!("wasi-thread-{tid}")).stack_size(stack).spawn(move || {
        let program = program_for_thread;
        let result = start.call(&mut store, (tid as i32, start_arg));
        forget_store(&program, tid);
        drop(store);
        program.live.fetch_sub(1, Ordering::AcqRel);
        if let Err(trap) = result {
            let exit = match trap.exit_code() {
                Some(code) => ProgramExit::Exit(code),
                None => ProgramExit::Trap(trap),
            };
            if end(&program, exit.clone(), true) {
                (program.on_exit)(exit);
            }
        }
    });
    if let Err(e) = started {
        forget_store(program, tid);
        return Err(Error::Resource(format!("cannot start a thread: {e}")));
    }
    Ok(tid)
}

/// Thread `tid`'s store is gone (or never ran).
fn forget_store<T>(program: &Program<T>, tid: u32) {
    program.stores().retain(|(t, _)| *t != tid);
}

/// A [`ProgramExit`] handling for command-line runners (see
/// [`WasiThreadsBuilder::on_exit`]): the process ends with the program,
/// with the status `proc_exit` gave, or 1 after a trap (whose message goes
/// to stderr).
pub fn exit_process(exit: ProgramExit) {
    match exit {
        ProgramExit::Exit(code) => std::process::exit(code),
        ProgramExit::Trap(trap) => {
            eprintln!("wasi thread trapped: {trap}");
            std::process::exit(1)
        }
    }
}
