//! `wasm_runtime_begin_blocking_op` / `_end_blocking_op`: a native about to
//! block in a system call (a read, an accept, a wait) brackets it, so that
//! stopping its instance wakes it, as WAMR built with its thread manager
//! does (`core/iwasm/common/wasm_blocking_op.c`).
//!
//! A stop (`wasm_runtime_terminate`, or the end of the instance's program:
//! another thread's exit or trap) signals each thread that is inside a
//! bracket of that instance with `SIGUSR1`, WAMR's default, whose handler
//! does nothing and is installed without `SA_RESTART`: the blocking call
//! returns `EINTR`, the native returns, and the stop traps on the way back
//! into wasm. The signal is repeated every 50 ms until the native ends its
//! bracket, as WAMR repeats it (a signal that lands just before the system
//! call is lost). `begin` answers false when the instance is already being
//! stopped, so that the native does not block at all.
//!
//! As in WAMR, the handler is installed by the runtime, replacing the
//! program's own (here at the first bracket, so that a program that never
//! brackets keeps its `SIGUSR1`); the signal is unblocked inside brackets
//! only, and one that arrives as a bracket ends is consumed then, so it
//! cannot interrupt a later system call.

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard, Once};
use std::time::Duration;

use crate::core::runtime::warn;
use crate::export::exec_env::exec_env;
use crate::export::instance::{ModuleInst, inst};
use crate::export::types::*;

/// WAMR's signal for waking blocking operations.
const SIGNAL: libc::c_int = libc::SIGUSR1;
/// How often a stop repeats the signal while the native is still inside.
const REPEAT: Duration = Duration::from_millis(50);

/// A thread inside a bracket: the instance (handle) it runs and its kernel
/// thread id (for `tgkill`, which fails cleanly for a thread that is gone).
static INSIDE: Mutex<Vec<(usize, libc::pid_t)>> = Mutex::new(Vec::new());

thread_local! {
    /// Whether the signal was blocked in this thread before its bracket.
    static WAS_BLOCKED: Cell<bool> = const { Cell::new(false) };
}

fn inside() -> MutexGuard<'static, Vec<(usize, libc::pid_t)>> {
    INSIDE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a stop has reached the exec env's instance: WAMR's
/// `TERMINATE` flag, set by `wasm_runtime_terminate` and by the end of the
/// program (an exception a native set is no stop).
fn stopping(inst: &ModuleInst, env: wasm_exec_env_t) -> bool {
    inst.terminated() || crate::export::thread_mgr::program_ended(env)
}

extern "C" fn do_nothing(_: libc::c_int) {}

fn install_handler() {
    static ONCE: Once = Once::new();
    // SAFETY: sigaction with a zeroed struct we own and a handler that
    // does nothing (async-signal-safe).
    ONCE.call_once(|| unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = do_nothing as *const () as usize;
        libc::sigemptyset(&mut action.sa_mask);
        // No SA_RESTART: the blocking call must return with EINTR.
        action.sa_flags = 0;
        libc::sigaction(SIGNAL, &action, std::ptr::null_mut());
    });
}

/// Blocks or unblocks the signal in this thread; whether it was blocked.
fn set_blocked(block: bool) -> bool {
    // SAFETY: sigset operations on sets we own; pthread_sigmask affects
    // this thread only.
    unsafe {
        let (mut set, mut old): (libc::sigset_t, libc::sigset_t) = (std::mem::zeroed(), std::mem::zeroed());
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, SIGNAL);
        libc::pthread_sigmask(if block { libc::SIG_BLOCK } else { libc::SIG_UNBLOCK }, &set, &mut old);
        libc::sigismember(&old, SIGNAL) == 1
    }
}

/// Consumes a signal pending for this thread (it is blocked now).
fn drain() {
    cranewasm::__sys::drain_signal(SIGNAL);
}

/// The instance handle of a live exec env, with a warning otherwise.
fn instance_of(env: wasm_exec_env_t, what: &str) -> Option<(usize, &'static ModuleInst)> {
    let handle = exec_env(env as usize)?.inst();
    // SAFETY: a handle is looked up, not trusted.
    let found = unsafe { inst(handle as wasm_module_inst_t) }.map(|i| (handle, i));
    if found.is_none() {
        warn(format_args!("{what}: not a live exec env"));
    }
    found
}

/// Before a blocking operation in a native: true when it may block (a stop
/// will wake it), false when its instance is being stopped already (the
/// native should return without blocking, as WAMR's header shows with
/// `return EINTR`), or for anything but a live exec env.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_begin_blocking_op(exec_env: wasm_exec_env_t) -> bool {
    let Some((handle, inst)) = instance_of(exec_env, "wasm_runtime_begin_blocking_op") else { return false };
    if stopping(inst, exec_env) {
        return false;
    }
    install_handler();
    let tid = cranewasm::__sys::thread_id();
    inside().push((handle, tid));
    WAS_BLOCKED.with(|w| w.set(set_blocked(false)));
    // A stop between the check above and the registration did not see
    // this thread: look again now that it would.
    if stopping(inst, exec_env) {
        // SAFETY: as the caller promises.
        unsafe { wasm_runtime_end_blocking_op(exec_env) };
        return false;
    }
    true
}

/// After a blocking operation: the native is no longer woken, and a wake
/// signal that came as the operation ended is consumed. `errno` is kept,
/// as WAMR keeps it.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_end_blocking_op(exec_env: wasm_exec_env_t) {
    let errno = std::io::Error::last_os_error().raw_os_error();
    let Some((handle, _)) = instance_of(exec_env, "wasm_runtime_end_blocking_op") else { return };
    let tid = cranewasm::__sys::thread_id();
    let mut list = inside();
    let Some(at) = list.iter().position(|&(h, t)| h == handle && t == tid) else {
        drop(list);
        warn(format_args!("wasm_runtime_end_blocking_op without wasm_runtime_begin_blocking_op"));
        return;
    };
    list.swap_remove(at);
    drop(list);
    set_blocked(true);
    drain();
    if !WAS_BLOCKED.with(Cell::get) {
        set_blocked(false);
    }
    if let Some(e) = errno {
        cranewasm::__sys::set_errno(e);
    }
}

/// Signals the threads inside a bracket of instance `handle`; how many.
fn signal(handle: usize) -> usize {
    let list = inside();
    let mut n = 0;
    for &(_, tid) in list.iter().filter(|(h, _)| *h == handle) {
        // A thread of this process, registered, so still inside its
        // bracket: it deregisters under this lock.
        cranewasm::__sys::signal_thread(tid, SIGNAL);
        n += 1;
    }
    n
}

/// Wakes the natives of instance `handle` that are inside a bracket, after
/// a stop was requested for it; a helper thread repeats the signal until
/// they have all left.
pub fn wake(handle: usize) {
    if signal(handle) == 0 {
        return;
    }
    let _ = std::thread::Builder::new().name("cranewasm-wake".into()).spawn(move || {
        loop {
            std::thread::sleep(REPEAT);
            if signal(handle) == 0 {
                return;
            }
        }
    });
}
