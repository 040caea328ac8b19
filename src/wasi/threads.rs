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
//! returns from `wasi_thread_start` just ends. One that calls `proc_exit`
//! or traps ends the whole program: that is the embedder's `on_exit`,
//! which by default ends the process, as the proposal requires (a
//! program's other threads cannot be stopped from outside while they run
//! wasm). The first thread's `proc_exit` and traps reach its own caller as
//! usual ([`start`](super::start)).

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use crate::error::{Error, Result};
use crate::linker::Linker;
use crate::module::Module;
use crate::runtime::caller::Caller;
use crate::runtime::func::Func;
use crate::runtime::instance::Instance;
use crate::runtime::shared_memory::SharedMemory;
use crate::runtime::store::{AsContextMut, Store};
use crate::trap::Trap;
use crate::types::{ExternType, FuncType, ValType};
use crate::values::ValRaw;

/// The module name `thread-spawn` is imported from.
pub const MODULE: &str = "wasi";
/// The spawning function's name.
pub const SPAWN: &str = "thread-spawn";
/// The export a new thread runs: `(tid: i32, start_arg: i32)`.
pub const START: &str = "wasi_thread_start";
/// The largest thread id.
pub const MAX_TID: u32 = 0x1FFF_FFFF;
/// Live spawned threads allowed by default (see
/// [`WasiThreads::max_threads`]).
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
type Link<T> = dyn Fn(&mut Store<T>, &mut Linker) -> Result<()> + Send + Sync;
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

    /// What happens when a spawned thread calls `proc_exit` or traps,
    /// instead of ending the process.
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
                ))
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
        link: impl Fn(&mut Store<T>, &mut Linker) -> Result<()> + Send + Sync + 'static,
    ) -> WasiThreadsBuilder<T> {
        WasiThreadsBuilder {
            module: module.clone(),
            fork: Box::new(fork),
            link: Box::new(link),
            max_threads: DEFAULT_MAX_THREADS,
            on_exit: Box::new(exit_process),
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

    /// Defines the shared memory import and `wasi.thread-spawn` in
    /// `linker`, for `store`.
    pub fn define(&self, store: &mut Store<T>, linker: &mut Linker) -> Result<()> {
        let (module, name) = &self.program.memory_import;
        linker.define(module, name, self.program.memory.to_memory(&mut *store)?);
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
        linker.define(MODULE, SPAWN, spawn);
        Ok(())
    }

    /// An instance of the program in `store` (the first thread's, or any
    /// other), with `link`'s imports and this program's memory and
    /// `thread-spawn`.
    pub fn instantiate(&self, store: &mut Store<T>) -> Result<Instance> {
        instantiate(&self.program, store)
    }
}

fn instantiate<T: Send + 'static>(program: &Arc<Program<T>>, store: &mut Store<T>) -> Result<Instance> {
    let mut linker = Linker::new();
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
        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |t| (t <= MAX_TID).then_some(t + 1))
        .map_err(|_| Error::Usage("thread ids exhausted".into()))?;
    let mut store = Store::new(program.module.engine(), (program.fork)(parent));
    let instance = instantiate(program, &mut store)?;
    let start =
        instance
            .get_func(&store, START)
            .ok_or_else(|| Error::Usage(format!("no {START} export")))?
            .typed::<(i32, i32), ()>(&store)?;
    // Room for the wasm stack limit and the host frames around it.
    let stack = program.module.engine().config().max_wasm_stack + (2 << 20);
    let program_for_thread = program.clone();
    std::thread::Builder::new()
        .name(format!("wasi-thread-{tid}"))
        .stack_size(stack)
        .spawn(move || {
            let program = program_for_thread;
            let result = start.call(&mut store, (tid as i32, start_arg));
            drop(store);
            program.live.fetch_sub(1, Ordering::AcqRel);
            if let Err(trap) = result {
                (program.on_exit)(match trap.exit_code() {
                    Some(code) => ProgramExit::Exit(code),
                    None => ProgramExit::Trap(trap),
                });
            }
        })
        .map_err(|e| Error::Resource(format!("cannot start a thread: {e}")))?;
    Ok(tid)
}

/// The default [`ProgramExit`] handling: the process ends with the
/// program, with the status `proc_exit` gave, or 1 after a trap (whose
/// message goes to stderr).
pub fn exit_process(exit: ProgramExit) {
    match exit {
        ProgramExit::Exit(code) => std::process::exit(code),
        ProgramExit::Trap(trap) => {
            eprintln!("wasi thread trapped: {trap}");
            std::process::exit(1)
        }
    }
}
