//! WAMR's native API, `wasm_export.h` (and `lib_export.h`): the 173
//! functions most programs that link libiwasm use, beside the wasm-c-api
//! of `crate::c_api` and over the same layer ([`crate::core`]: calls, host
//! functions, linking, store data) and object model.
//!
//! One file per area of the header: [`runtime`] (initialisation, runtime
//! memory, version), [`module`] (loading, the module registry of
//! multi-module, package queries), [`reflect`] (import and export types),
//! [`instance`] (instantiation, exceptions, custom data; [`link`], how its
//! imports are linked), [`args`]
//! (`InstantiationArgs2`), [`context`] (context keys), [`lookup`]
//! (functions, memories, globals and tables of an instance), [`exec_env`],
//! [`call`] (calls with 32-bit cells, `wasm_val_t`s, variadic arguments and
//! through the table), [`exec_control`] (the enlarge-error callback,
//! instruction metering), [`application`] (`wasm_application_execute_main` and
//! `_func`, whose argument parsing the `iwasm` command line shares),
//! [`natives`] (registration, signature strings and trampolines), [`app_memory`]
//! and [`heap`] (app addresses and the host-managed heap), [`wasi`],
//! [`externref`], [`funcref`] (WAMR's function indices in calls),
//! [`threads`] (thread environments and WAMR's native stack checks),
//! [`blocking_op`] (natives blocked in a system call, woken by a stop),
//! [`thread_mgr`] (spawned exec envs and threads, wasi-threads) with
//! [`aux_stack`] (their shadow stack, found as WAMR's loader finds it),
//! [`teardown`] (what the runtime's end frees for the client),
//! [`undeclared`] (what WAMR exports outside its headers and its clients
//! link), and [`unsupported`]: the one place for the features cranewasm
//! builds without, each behaving as WAMR does when built without it.
//!
//! Every handle (`wasm_module_t`, `wasm_module_inst_t`, `wasm_exec_env_t`,
//! `wasm_function_inst_t`, `wasm_memory_inst_t`, the type handles,
//! `InstantiationArgs2 *`) is a cell of the live-object table
//! ([`crate::handle`]): NULL, a pointer the library never handed out and a
//! deleted object are refused alike, without being read. The layer only
//! converts: a `wasm_runtime_*` function and a `wasm_*` one that mean the
//! same thing call the same core function.

use std::ffi::{CStr, c_char};

pub mod app_memory;
pub mod application;
pub mod args;
pub mod aux_stack;
pub mod blocking_op;
pub mod call;
pub mod context;
pub mod exec_control;
pub mod exec_env;
pub mod externref;
pub mod funcref;
pub mod gc;
pub mod heap;
pub mod instance;
pub mod link;
pub mod lock;
pub mod lookup;
pub mod module;
pub mod natives;
pub mod reflect;
pub mod runtime;
pub mod teardown;
pub mod thread_mgr;
pub mod threads;
pub mod types;
pub mod undeclared;
pub mod unsupported;
pub mod wasi;

/// Writes `msg` into the client's error buffer as WAMR's `set_error_buf`
/// does: truncated to fit, NUL-terminated; nothing for a NULL or empty
/// buffer.
///
/// # Safety
/// `buf` must be NULL or writable for `size` bytes.
pub unsafe fn set_error_buf(buf: *mut c_char, size: u32, msg: &str) {
    if buf.is_null() || size == 0 {
        return;
    }
    let n = msg.len().min(size as usize - 1);
    // SAFETY: `n + 1 <= size` bytes of the client's buffer.
    unsafe {
        std::ptr::copy_nonoverlapping(msg.as_ptr().cast(), buf, n);
        *buf.add(n) = 0;
    }
}

/// The string at `p`, if it is not NULL and is UTF-8.
///
/// # Safety
/// `p` must be NULL or NUL-terminated, unchanged for `'a`.
pub unsafe fn cstr<'a>(p: *const c_char) -> Option<&'a str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: as the caller promises.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

unsafe extern "C" {
    /// The C library's standard output stream.
    static mut stdout: *mut libc::FILE;
}

/// Writes `bytes` to C's `stdout`, as WAMR's `os_printf` does: output the
/// library prints for the guest (the builtin libc's `printf`, call
/// stacks, `wasm_application_execute_func`'s results) keeps its order
/// with the host program's own `printf`s.
pub fn c_print(bytes: &[u8]) {
    // SAFETY: `stdout` is the C library's stream, valid for the process;
    // `bytes` is readable for its length.
    unsafe {
        libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), stdout);
    }
}

/// Flushes C's `stdout` (before output that does not go through it).
pub fn c_flush() {
    // SAFETY: as in `c_print`.
    unsafe {
        libc::fflush(stdout);
    }
}
