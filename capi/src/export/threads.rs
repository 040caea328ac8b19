//! Threads and their native stacks: the thread environment
//! (`wasm_runtime_init_thread_env` and co.) and the native stack checks.
//! (The blocking-operation brackets are in
//! [`blocking_op`](crate::export::blocking_op).)
//!
//! As in WAMR, the thread that initialises the runtime has its
//! environment initialised, and a thread that calls into wasm must have
//! called `wasm_runtime_init_thread_env` first (the call fails otherwise
//! with WAMR's "thread signal env not inited"). A program that never
//! initialises the runtime (a wasm-c-api program calling an instance of
//! `*module`) is not held to that. Threads the runtime starts
//! ([`crate::export::thread_mgr`]) are initialised.

use std::cell::Cell;

use crate::export::exec_env::exec_env;
use crate::export::instance::inst;
use crate::export::types::*;

thread_local! {
    static INITED: Cell<bool> = const { Cell::new(false) };
    /// The lowest usable address of this thread's stack, once looked up.
    static STACK_LOW: Cell<usize> = const { Cell::new(0) };
}

/// WAMR's `WASM_STACK_GUARD_SIZE` on Linux release builds.
const STACK_GUARD: usize = 3 * 1024;

/// Marks the calling thread's environment initialised.
pub fn mark_thread_inited() {
    INITED.with(|i| i.set(true));
}

/// Whether the calling thread may call into wasm (see the module
/// documentation).
pub fn may_call() -> bool {
    INITED.with(Cell::get) || !crate::export::runtime::initialized()
}

/// Initialises the calling thread's environment so it may call into wasm.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_init_thread_env() -> bool {
    mark_thread_inited();
    true
}

/// Undoes [`wasm_runtime_init_thread_env`] for the calling thread.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_destroy_thread_env() {
    INITED.with(|i| i.set(false));
}

/// Whether the calling thread's environment is initialised.
#[unsafe(no_mangle)]
pub extern "C" fn wasm_runtime_thread_env_inited() -> bool {
    INITED.with(Cell::get)
}

/// The lowest address of the calling thread's stack (0 if unknown).
fn stack_low() -> usize {
    STACK_LOW.with(|s| {
        if s.get() == 0 {
            if let Some(stack) = cranewasm::__sys::thread_stack() {
                s.set(stack.low);
            }
        }
        s.get()
    })
}

/// WAMR's check: whether `required` bytes beyond the guard are left on
/// this thread's stack; if not, "native stack overflow" is set on the exec
/// env's instance. False for a bad exec env.
fn detect(exec_env_h: wasm_exec_env_t, required: usize) -> bool {
    let Some(env) = exec_env(exec_env_h as usize) else { return false };
    let low = stack_low();
    if low == 0 {
        return true;
    }
    // The address of a local is where the stack is now.
    let here = &low as *const usize as usize;
    let limit = low + STACK_GUARD.max(required);
    if here < limit {
        // SAFETY: a handle, checked.
        if let Some(i) = unsafe { inst(env.inst() as wasm_module_inst_t) } {
            i.set_exception(Some("native stack overflow"));
        }
        return false;
    }
    true
}

/// Whether at least WAMR's guard size of native stack is left; sets
/// "native stack overflow" otherwise.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_detect_native_stack_overflow(exec_env: wasm_exec_env_t) -> bool {
    detect(exec_env, 0)
}

/// Whether `required_size` bytes of native stack are left (at least the
/// guard size); sets "native stack overflow" otherwise.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_detect_native_stack_overflow_size(
    exec_env: wasm_exec_env_t,
    required_size: u32,
) -> bool {
    detect(exec_env, required_size as usize)
}
