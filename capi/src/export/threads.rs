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

use crate::export::exec_env::{ExecEnv, exec_env};
use crate::export::types::*;

thread_local! {
    static INITED: Cell<bool> = const { Cell::new(false) };
    /// [`stack_boundary`] of this thread, once computed.
    static BOUNDARY: Cell<usize> = const { Cell::new(0) };
}

/// WAMR's `WASM_STACK_GUARD_SIZE` on Linux release builds: the native
/// stack a call into wasm needs above the guard pages.
const STACK_GUARD: usize = 3 * 1024;
/// WAMR's `STACK_OVERFLOW_CHECK_GUARD_PAGE_COUNT` on x86-64: the pages at
/// the end of a thread's stack that WAMR protects and nothing may use
/// (cranewasm's compiled code and host calls stay above them too, see
/// `src/runtime/vm/stack.rs`).
const GUARD_PAGES: usize = 3;
/// WAMR's `APP_THREAD_STACK_SIZE_MAX`: WAMR counts at most this much of a
/// thread's stack, below its top.
const THREAD_STACK_MAX: usize = 8 << 20;
/// WAMR's `APP_THREAD_STACK_SIZE_DEFAULT` on Linux.
const THREAD_STACK_DEFAULT: usize = 128 << 10;

/// Marks the calling thread's environment initialised.
pub fn mark_thread_inited() {
    INITED.with(|i| i.set(true));
}

/// Whether the calling thread may call into wasm (see the module
/// documentation).
pub fn may_call() -> bool {
    INITED.with(Cell::get) || !crate::core::runtime::initialized()
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

/// The page size.
fn page_size() -> usize {
    // SAFETY: a plain query.
    (unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).max(4096) as usize
}

/// The lowest usable address of the calling thread's stack as WAMR's
/// `os_thread_get_stack_boundary` computes it on Linux: the stack's end
/// past the C library's guard, but no more than 8 MiB below its top
/// (0 if unknown).
pub fn stack_boundary() -> usize {
    BOUNDARY.with(|b| {
        if b.get() == 0 {
            if let Some(stack) = cranewasm::__sys::thread_stack() {
                let page = page_size();
                let max = ((THREAD_STACK_MAX + page - 1) & !(page - 1)).max(THREAD_STACK_DEFAULT);
                let skip = stack.size.saturating_sub(max);
                b.set(stack.low + skip + stack.guard);
            }
        }
        b.get()
    })
}

/// WAMR's checks: whether the native stack is left that a call into wasm
/// (`requested` `None`: the guard size) or a native (`Some(bytes)`) needs,
/// above the guard pages past the exec env's boundary (the thread's
/// [`stack_boundary`] plus the guard size, or the one set with
/// `wasm_runtime_set_native_stack_boundary`).
fn stack_left(env: &ExecEnv, requested: Option<usize>) -> bool {
    let boundary = match env.native_stack_boundary() {
        0 => match stack_boundary() {
            0 => return true,
            b => b + STACK_GUARD,
        },
        user => user,
    };
    let guarded = boundary + GUARD_PAGES * page_size();
    let limit = match requested {
        None => guarded,
        Some(n) => (guarded + n).saturating_sub(STACK_GUARD),
    };
    // The address of a local is where the stack is now.
    std::hint::black_box(&limit) as *const usize as usize >= limit
}

/// [`stack_left`] for a live exec env; if not, "native stack overflow" is
/// set on the exec env's instance. False for a bad exec env.
pub fn detect(exec_env_h: wasm_exec_env_t, requested: Option<usize>) -> bool {
    let Some(env) = exec_env(exec_env_h as usize) else { return false };
    if stack_left(env, requested) {
        return true;
    }
    if let Some(i) = env.instance() {
        i.set_exception(Some("native stack overflow"));
    }
    false
}

/// WAMR's check at the start of a call on `exec_env_h` into `inst`
/// ([`detect`]). Under valgrind, in a forked child, the C library places
/// the main thread's stack end just below the stack pointer (valgrind shows
/// it only the part used so far): a call from outside wasm there would
/// always fail, so, as the engine does for its own limit
/// (`src/runtime/vm/stack.rs`), only calls made while wasm runs are held to
/// the thread's stack end then (a boundary the client set still counts).
pub fn call_may_start(exec_env_h: wasm_exec_env_t, inst: &crate::export::instance::ModuleInst) -> bool {
    let Some(env) = exec_env(exec_env_h as usize) else { return true };
    let misplaced = env.native_stack_boundary() == 0 && cranewasm::running_on_valgrind();
    if stack_left(env, None) || (inst.current_exec_env() == 0 && misplaced) {
        return true;
    }
    inst.set_exception(Some("native stack overflow"));
    false
}

/// WAMR's exception for a call that ran out of stack, as it tells the two
/// apart: "native stack overflow" when the thread's stack ran out (its
/// end bounded the call, see `src/runtime/vm/stack.rs`), "wasm operand
/// stack overflow" when the wasm stack did (the engine's
/// `max_wasm_stack`, the role of WAMR's exec env stack). Asked on the
/// calling thread right after the call, at about its entry's depth.
pub fn stack_overflow_message(engine: &cranewasm::Engine) -> &'static str {
    let here = std::hint::black_box(&engine) as *const _ as usize;
    let wasm_end = here.saturating_sub(engine.config().get_max_wasm_stack());
    // The limit rounds to pages (wasm gets at most one more).
    if wasm_end <= cranewasm::native_stack_floor() + 4096 {
        "native stack overflow"
    } else {
        "wasm operand stack overflow"
    }
}

/// Whether WAMR's guard size of native stack is left above the guard
/// pages ([`detect`]); sets "native stack overflow" otherwise.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_detect_native_stack_overflow(exec_env: wasm_exec_env_t) -> bool {
    detect(exec_env, None)
}

/// Whether `required_size` bytes of native stack are left above the guard
/// pages ([`detect`]); sets "native stack overflow" otherwise.
///
/// # Safety
/// `exec_env` may be NULL or any pointer.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_runtime_detect_native_stack_overflow_size(
    exec_env: wasm_exec_env_t,
    required_size: u32,
) -> bool {
    detect(exec_env, Some(required_size as usize))
}
