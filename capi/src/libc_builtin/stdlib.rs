//! Allocation, conversions, `ctype`, exits and clocks of the builtin libc.
//!
//! `malloc` and friends allocate in the instance's memory through
//! `wasm_runtime_module_malloc` (the app heap, or the module's own
//! allocator); `exit` and `abort` end the call with WAMR's exceptions
//! (`env.exit(N)`, `env.abort(N)`). The `ctype` functions answer for a
//! byte or EOF and 0 (or the value unchanged) for anything else, where C
//! leaves it undefined.

use std::ffi::c_char;

use super::instance;
use crate::export::types::*;

/// `malloc(size)`: an app address, or 0.
pub(crate) extern "C" fn malloc_wrapper(exec_env: wasm_exec_env_t, size: u32) -> u32 {
    instance(exec_env).map_or(0, |i| i.malloc(u64::from(size)) as u32)
}

/// `calloc(nmemb, size)`: zeroed, or 0 (also when the product reaches
/// 4 GiB).
pub(crate) extern "C" fn calloc_wrapper(exec_env: wasm_exec_env_t, nmemb: u32, size: u32) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    let total = u64::from(nmemb) * u64::from(size);
    if total >= u64::from(u32::MAX) {
        return 0;
    }
    let a = inst.malloc(total);
    if a != 0 {
        // SAFETY: a fresh allocation of `total` bytes in memory.
        unsafe { std::ptr::write_bytes(inst.app_to_native(a), 0, total as usize) };
    }
    a as u32
}

/// `realloc(ptr, size)` in the app heap (WAMR supports it nowhere else).
pub(crate) extern "C" fn realloc_wrapper(exec_env: wasm_exec_env_t, ptr: u32, size: u32) -> u32 {
    instance(exec_env).map_or(0, |i| i.realloc(u64::from(ptr), u64::from(size)) as u32)
}

/// `free(ptr)`.
pub(crate) extern "C" fn free_wrapper(exec_env: wasm_exec_env_t, ptr: *mut u8) {
    let Some(inst) = instance(exec_env) else { return };
    if inst.validate_native(ptr, 4) {
        inst.free(inst.native_to_app(ptr));
    }
}

/// `strdup(s)`: a copy in the instance's memory, or 0.
pub(crate) extern "C" fn strdup_wrapper(exec_env: wasm_exec_env_t, s: *const c_char) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    // SAFETY: a NUL-terminated string in memory (`$`).
    let len = unsafe { libc::strlen(s) } + 1;
    let a = inst.malloc(len as u64);
    if a != 0 {
        // `s` may have moved if malloc grew memory through the app's own
        // allocator: memory never moves here, so it is still valid.
        // SAFETY: `len` bytes of the string into the new allocation.
        unsafe { std::ptr::copy_nonoverlapping(s.cast::<u8>(), inst.app_to_native(a), len) };
    }
    a as u32
}

/// `atoi(s)`.
pub(crate) extern "C" fn atoi_wrapper(exec_env: wasm_exec_env_t, s: *const c_char) -> i32 {
    let _ = exec_env;
    // SAFETY: a NUL-terminated string in memory (`$`).
    unsafe { libc::atoi(s) }
}

/// Sets `msg` as the exception: the call then traps with it.
fn raise(exec_env: wasm_exec_env_t, msg: &str) {
    if let Some(inst) = instance(exec_env) {
        inst.set_exception(Some(msg));
    }
}

/// `exit(status)`: "env.exit(status)".
pub(crate) extern "C" fn exit_wrapper(exec_env: wasm_exec_env_t, status: i32) {
    raise(exec_env, &format!("env.exit({status})"));
}

/// `abort(code)`: "env.abort(code)".
pub(crate) extern "C" fn abort_wrapper(exec_env: wasm_exec_env_t, code: i32) {
    raise(exec_env, &format!("env.abort({code})"));
}

/// Emscripten's `abortStackOverflow(code)`.
pub(crate) extern "C" fn abort_stack_overflow_wrapper(exec_env: wasm_exec_env_t, code: i32) {
    raise(exec_env, &format!("env.abortStackOverflow({code})"));
}

/// Emscripten's `nullFunc_X(code)`.
pub(crate) extern "C" fn null_func_x_wrapper(exec_env: wasm_exec_env_t, code: i32) {
    raise(exec_env, &format!("env.nullFunc_X({code})"));
}

/// `__cxa_allocate_exception(size)`: an allocation, or 0.
pub(crate) extern "C" fn cxa_allocate_exception_wrapper(exec_env: wasm_exec_env_t, size: u32) -> u32 {
    malloc_wrapper(exec_env, size)
}

/// `__cxa_begin_catch`: nothing to do.
pub(crate) extern "C" fn cxa_begin_catch_wrapper(exec_env: wasm_exec_env_t, exception: *mut u8) {
    let _ = (exec_env, exception);
}

/// `__cxa_throw`: C++ exceptions end the call with "exception thrown by
/// stdc++".
pub(crate) extern "C" fn cxa_throw_wrapper(exec_env: wasm_exec_env_t, thrown: *mut u8, tinfo: *mut u8, elem: u32) {
    let _ = (thrown, tinfo, elem);
    raise(exec_env, "exception thrown by stdc++");
}

/// `strtol` and `strtoul`: parses with the host's function, and writes the
/// end as an app address (4 bytes) to `*endptr`.
fn strto(
    exec_env: wasm_exec_env_t,
    nptr: *const c_char,
    endptr: *mut u8,
    parse: impl FnOnce(*mut *mut c_char) -> u64,
) -> u64 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(endptr, 4) {
        return 0;
    }
    let mut end: *mut c_char = nptr.cast_mut();
    let v = parse(&mut end);
    let app = inst.native_to_app(end.cast()) as u32;
    // SAFETY: 4 bytes in memory (checked).
    unsafe { (endptr as *mut u32).write_unaligned(app) };
    v
}

/// `strtol(nptr, endptr, base)`.
pub(crate) extern "C" fn strtol_wrapper(
    exec_env: wasm_exec_env_t,
    nptr: *const c_char,
    endptr: *mut u8,
    base: i32,
) -> i32 {
    // SAFETY: a NUL-terminated string in memory (`$`); `e` is ours.
    strto(exec_env, nptr, endptr, |e| unsafe { libc::strtol(nptr, e, base) } as u64) as i32
}

/// `strtoul(nptr, endptr, base)`.
pub(crate) extern "C" fn strtoul_wrapper(
    exec_env: wasm_exec_env_t,
    nptr: *const c_char,
    endptr: *mut u8,
    base: i32,
) -> u32 {
    // SAFETY: as for `strtol_wrapper`.
    strto(exec_env, nptr, endptr, |e| unsafe { libc::strtoul(nptr, e, base) } as u64) as u32
}

/// A `ctype` answer for `c`: the host's for a byte or EOF, `other`
/// otherwise.
fn ctype(c: i32, f: unsafe extern "C" fn(i32) -> i32, other: i32) -> i32 {
    if (-1..=255).contains(&c) {
        // SAFETY: C's ctype functions are defined for EOF and bytes.
        unsafe { f(c) }
    } else {
        other
    }
}

macro_rules! ctype_wrappers {
    ($($name:ident => $f:ident, $other:expr;)*) => {$(
        #[doc = concat!("`", stringify!($f), "(c)`.")]
        pub(crate) extern "C" fn $name(exec_env: wasm_exec_env_t, c: i32) -> i32 {
            let _ = exec_env;
            ctype(c, libc::$f, $other(c))
        }
    )*};
}

ctype_wrappers! {
    isupper_wrapper => isupper, |_| 0;
    isalpha_wrapper => isalpha, |_| 0;
    isspace_wrapper => isspace, |_| 0;
    isgraph_wrapper => isgraph, |_| 0;
    isprint_wrapper => isprint, |_| 0;
    isdigit_wrapper => isdigit, |_| 0;
    isxdigit_wrapper => isxdigit, |_| 0;
    isalnum_wrapper => isalnum, |_| 0;
    tolower_wrapper => tolower, |c| c;
    toupper_wrapper => toupper, |c| c;
}

/// Microseconds of the monotonic clock (WAMR's `os_time_get_boot_us`).
fn boot_us() -> u64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: writes the local timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000 + ts.tv_nsec as u64 / 1000
}

/// `clock_gettime(clk_id, ts)`: any clock reads the monotonic one, into
/// wasm's `{ int64 tv_sec; int32 tv_nsec; }` (16 bytes); -1 when `ts` does
/// not fit in memory.
pub(crate) extern "C" fn clock_gettime_wrapper(exec_env: wasm_exec_env_t, clk_id: u32, ts: *mut u8) -> u32 {
    let _ = clk_id;
    let Some(inst) = instance(exec_env) else { return u32::MAX };
    if !inst.validate_native(ts, 16) {
        return u32::MAX;
    }
    let t = boot_us();
    // SAFETY: 16 bytes in memory (checked).
    unsafe {
        (ts as *mut i64).write_unaligned((t / 1_000_000) as i64);
        (ts.add(8) as *mut i32).write_unaligned(((t % 1_000_000) * 1000) as i32);
    }
    0
}

/// `clock()`: nanoseconds (wasi-sdk's `CLOCKS_PER_SEC`) of the monotonic
/// clock.
pub(crate) extern "C" fn clock_wrapper(exec_env: wasm_exec_env_t) -> u64 {
    let _ = exec_env;
    boot_us() * 1000
}
