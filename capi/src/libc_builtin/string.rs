//! The string and memory functions of the builtin libc. Their pointer
//! arguments arrive checked and converted by their signatures (`*` for one
//! byte, `*~` for a length, `$` for a string); what the signature cannot
//! say — a destination as long as the source, `s1` of `memcmp` as long as
//! `s2` — is checked here against the instance's memory, as WAMR does.
//! Results that are addresses go back as app addresses.

use std::ffi::c_char;

use super::{addr, instance};
use crate::export::types::*;

/// `memcmp(s1, s2, size)`.
pub(crate) extern "C" fn memcmp_wrapper(exec_env: wasm_exec_env_t, s1: *const u8, s2: *const u8, size: u32) -> i32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(s1, u64::from(size)) {
        return 0;
    }
    // SAFETY: both ranges lie in memory (checked here and by `*~`).
    unsafe { libc::memcmp(s1.cast(), s2.cast(), size as usize) }
}

/// `memcpy(dst, src, size)`: `dst` as an app address.
pub(crate) extern "C" fn memcpy_wrapper(exec_env: wasm_exec_env_t, dst: *mut u8, src: *const u8, size: u32) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    let off = inst.native_to_app(dst) as u32;
    if size == 0 || !inst.validate_native(dst, u64::from(size)) {
        return off;
    }
    // SAFETY: both ranges lie in memory; `copy` allows overlap (which
    // memcpy leaves undefined).
    unsafe { std::ptr::copy(src, dst, size as usize) };
    off
}

/// `memmove(dst, src, size)`: `dst` as an app address.
pub(crate) extern "C" fn memmove_wrapper(exec_env: wasm_exec_env_t, dst: *mut u8, src: *const u8, size: u32) -> u32 {
    memcpy_wrapper(exec_env, dst, src, size)
}

/// `memset(s, c, size)`: `s` as an app address.
pub(crate) extern "C" fn memset_wrapper(exec_env: wasm_exec_env_t, s: *mut u8, c: i32, size: u32) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    let off = inst.native_to_app(s) as u32;
    if !inst.validate_native(s, u64::from(size)) {
        return off;
    }
    // SAFETY: the range lies in memory (checked).
    unsafe { std::ptr::write_bytes(s, c as u8, size as usize) };
    off
}

/// `strchr(s, c)`: the match as an app address, or 0.
pub(crate) extern "C" fn strchr_wrapper(exec_env: wasm_exec_env_t, s: *const c_char, c: i32) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    // SAFETY: a NUL-terminated string in memory (`$`).
    let r = unsafe { libc::strchr(s, c) };
    if r.is_null() { 0 } else { inst.native_to_app(r.cast()) as u32 }
}

/// `strcmp(s1, s2)`.
pub(crate) extern "C" fn strcmp_wrapper(exec_env: wasm_exec_env_t, s1: *const c_char, s2: *const c_char) -> i32 {
    let _ = exec_env;
    // SAFETY: NUL-terminated strings in memory (`$$`).
    unsafe { libc::strcmp(s1, s2) }
}

/// `strncmp(s1, s2, size)`.
pub(crate) extern "C" fn strncmp_wrapper(
    exec_env: wasm_exec_env_t,
    s1: *const c_char,
    s2: *const c_char,
    size: u32,
) -> i32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(s1.cast(), u64::from(size)) {
        return 0;
    }
    // SAFETY: both ranges lie in memory (checked here and by `*~`).
    unsafe { libc::strncmp(s1, s2, size as usize) }
}

/// `strcpy(dst, src)`: `dst` as an app address, or 0 when it has no room.
pub(crate) extern "C" fn strcpy_wrapper(exec_env: wasm_exec_env_t, dst: *mut c_char, src: *const c_char) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    // SAFETY: a NUL-terminated string in memory (`$`).
    let len = unsafe { libc::strlen(src) } + 1;
    if !inst.validate_native(dst.cast(), len as u64) {
        return 0;
    }
    // SAFETY: `len` bytes lie in memory at both (checked); `copy` allows
    // overlap.
    unsafe { std::ptr::copy(src, dst, len) };
    inst.native_to_app(dst.cast()) as u32
}

/// `strncpy(dst, src, size)`: `dst` as an app address, or 0.
pub(crate) extern "C" fn strncpy_wrapper(
    exec_env: wasm_exec_env_t,
    dst: *mut c_char,
    src: *const c_char,
    size: u32,
) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(dst.cast(), u64::from(size)) {
        return 0;
    }
    // SAFETY: `size` bytes lie in memory at both (checked here and by
    // `*~`).
    unsafe { libc::strncpy(dst, src, size as usize) };
    inst.native_to_app(dst.cast()) as u32
}

/// `strlen(s)`.
pub(crate) extern "C" fn strlen_wrapper(exec_env: wasm_exec_env_t, s: *const c_char) -> u32 {
    let _ = exec_env;
    // SAFETY: a NUL-terminated string in memory (`$`).
    unsafe { libc::strlen(s) as u32 }
}

/// `memchr(s, c, n)`: the match as an app address, or 0.
pub(crate) extern "C" fn memchr_wrapper(exec_env: wasm_exec_env_t, s: *const u8, c: i32, n: u32) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(s, u64::from(n)) {
        return 0;
    }
    // SAFETY: the range lies in memory (checked).
    let r = unsafe { libc::memchr(s.cast(), c, n as usize) };
    if r.is_null() { 0 } else { inst.native_to_app(r.cast()) as u32 }
}

/// `strncasecmp(s1, s2, n)` (both strings end within memory, so `n`
/// cannot take it past them).
pub(crate) extern "C" fn strncasecmp_wrapper(
    exec_env: wasm_exec_env_t,
    s1: *const c_char,
    s2: *const c_char,
    n: u32,
) -> i32 {
    let _ = exec_env;
    // SAFETY: NUL-terminated strings in memory (`$$`); strncasecmp stops
    // at the first NUL.
    unsafe { libc::strncasecmp(s1, s2, n as usize) }
}

/// `strspn(s, accept)`.
pub(crate) extern "C" fn strspn_wrapper(exec_env: wasm_exec_env_t, s: *const c_char, accept: *const c_char) -> u32 {
    let _ = exec_env;
    // SAFETY: NUL-terminated strings in memory (`$$`).
    unsafe { libc::strspn(s, accept) as u32 }
}

/// `strcspn(s, reject)`.
pub(crate) extern "C" fn strcspn_wrapper(exec_env: wasm_exec_env_t, s: *const c_char, reject: *const c_char) -> u32 {
    let _ = exec_env;
    // SAFETY: NUL-terminated strings in memory (`$$`).
    unsafe { libc::strcspn(s, reject) as u32 }
}

/// `strstr(s, find)`: the match as an app address, or 0.
pub(crate) extern "C" fn strstr_wrapper(exec_env: wasm_exec_env_t, s: *const c_char, find: *const c_char) -> u32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    // SAFETY: NUL-terminated strings in memory (`$$`).
    let r = unsafe { libc::strstr(s, find) };
    if r.is_null() { 0 } else { inst.native_to_app(addr(r.cast()).cast()) as u32 }
}
