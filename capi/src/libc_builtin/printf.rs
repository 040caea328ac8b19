//! `printf`, `sprintf`, `snprintf` (and their `v` forms, the same
//! functions here: a wasm program passes its `va_list`, a pointer into its
//! memory, either way), `puts` and `putchar`.
//!
//! The format is walked as WAMR's `_vprintf_wa` walks it: each conversion
//! (from `%` to its letter) is handed to the host's `snprintf` with one
//! argument read from the wasm `va_list` — 4 bytes for `d i u o x X c p`
//! and `s` (an app address), 8 bytes at 8-byte alignment for `ll`/`j`
//! integers and for `e f g`; `l`, `z` and `t` mean 32 bits in wasm and are
//! dropped. Every read is checked against the end of memory ("out of
//! bounds memory access" otherwise) and a `%s` string against its NUL.
//! Conversions WAMR does not know print as written; `%n` prints nothing.
//! Output goes to C's stdout, so it keeps its order with the host's own.

use std::ffi::{c_char, c_int};

use super::instance;
use crate::export::instance::ModuleInst;
use crate::export::types::*;

/// Where formatted characters go.
trait Out {
    fn out(&mut self, c: u8);
}

/// `printf`'s output: collected, then written to stdout.
#[derive(Default)]
struct Print {
    bytes: Vec<u8>,
}

impl Out for Print {
    fn out(&mut self, c: u8) {
        self.bytes.push(c);
    }
}

/// `sprintf`'s output: at most `max - 1` characters and a NUL into `str`,
/// counting all of them (WAMR's `sprintf_out`).
struct Str {
    str: *mut u8,
    max: u32,
    count: u32,
}

impl Out for Str {
    fn out(&mut self, c: u8) {
        if self.str.is_null() || self.count >= self.max {
            self.count += 1;
            return;
        }
        let c = if self.count == self.max - 1 { 0 } else { c };
        // SAFETY: `count < max`, and `[str, str + max)` was checked to lie
        // in the instance's memory.
        unsafe { *self.str.add(self.count as usize) = c };
        self.count += 1;
    }
}

/// Outputs the NUL-terminated text in `buf` (up to its end).
fn out_all(out: &mut impl Out, buf: &[u8]) {
    for &c in buf.iter().take_while(|&&c| c != 0) {
        out.out(c);
    }
}

/// Formats `fmt` with the arguments of the wasm `va_list` at native `ap`.
/// False when an argument lies outside memory or a `%s` string is bad
/// (the exception is set).
///
/// # Safety
/// `fmt` must be a NUL-terminated string in the instance's memory (the
/// native's `$` argument, checked before the call).
unsafe fn vprintf_wa(out: &mut impl Out, inst: &ModuleInst, fmt: *const u8, ap: *const u8) -> bool {
    let Some((base, len)) = inst.memory_range() else {
        inst.set_exception(Some("out of bounds memory access"));
        return false;
    };
    let end = base as usize + len as usize;
    let mut ap = ap as usize;
    if ap < base as usize || ap >= end {
        inst.set_exception(Some("out of bounds memory access"));
        return false;
    }
    // SAFETY: NUL-terminated (caller).
    let fmt = unsafe { std::ffi::CStr::from_ptr(fmt.cast()) }.to_bytes();
    let fail = |inst: &ModuleInst| {
        inst.set_exception(Some("out of bounds memory access"));
        false
    };
    let (mut might, mut long_ctr, mut start) = (false, 0, 0);
    for (i, &c) in fmt.iter().enumerate() {
        if !might {
            if c == b'%' {
                might = true;
                long_ctr = 0;
                start = i;
            } else {
                out.out(c);
            }
            continue;
        }
        match c {
            b'.' | b'+' | b'-' | b' ' | b'#' | b'0'..=b'9' | b'h' => continue,
            b't' | b'z' => {
                long_ctr = 1;
                continue;
            }
            b'j' => {
                long_ctr = 2;
                continue;
            }
            b'l' => {
                long_ctr += 1;
                continue;
            }
            b'o' | b'd' | b'i' | b'u' | b'p' | b'x' | b'X' | b'c' => {
                let mut frag = fmt[start..=i].to_vec();
                let mut buf = [0u8; 64];
                if long_ctr < 2 {
                    if ap + 4 > end {
                        return fail(inst);
                    }
                    // SAFETY: 4 bytes below the end of memory (checked).
                    let d = unsafe { (ap as *const i32).read_unaligned() };
                    ap += 4;
                    if long_ctr == 1 && matches!(frag[frag.len() - 2], b'l' | b'z' | b't') {
                        // %ld, %zd and %td are 32-bit in wasm.
                        let n = frag.len();
                        frag.remove(n - 2);
                    }
                    frag.push(0);
                    // SAFETY: a NUL-terminated format with one conversion of
                    // an int (a pointer-sized value for %p) into 64 bytes.
                    unsafe {
                        if c == b'p' {
                            libc::snprintf(buf.as_mut_ptr().cast(), 64, frag.as_ptr().cast(), d as u32 as usize);
                        } else {
                            libc::snprintf(buf.as_mut_ptr().cast(), 64, frag.as_ptr().cast(), d as c_int);
                        }
                    }
                } else {
                    ap = ap.next_multiple_of(8);
                    if ap + 8 > end {
                        return fail(inst);
                    }
                    // SAFETY: 8 bytes below the end of memory (checked).
                    let lld = unsafe { (ap as *const i64).read_unaligned() };
                    ap += 8;
                    frag.push(0);
                    // SAFETY: one conversion of a long long into 64 bytes.
                    unsafe { libc::snprintf(buf.as_mut_ptr().cast(), 64, frag.as_ptr().cast(), lld) };
                }
                out_all(out, &buf);
            }
            b's' => {
                if ap + 4 > end {
                    return fail(inst);
                }
                // SAFETY: 4 bytes below the end of memory (checked).
                let off = unsafe { (ap as *const u32).read_unaligned() };
                ap += 4;
                if !inst.validate_app_str(u64::from(off)) {
                    return false;
                }
                let s = inst.app_to_native(u64::from(off));
                // SAFETY: a NUL-terminated string in memory (validated).
                let str_len = unsafe { libc::strlen(s.cast()) };
                let mut buf = vec![0u8; str_len + 64];
                let mut frag = fmt[start..=i].to_vec();
                frag.push(0);
                let arg: *const c_char = if off == 0 && str_len == 0 { std::ptr::null() } else { s.cast() };
                // SAFETY: one %s conversion of a NUL-terminated string (or
                // NULL, which glibc prints as "(null)") into `buf`.
                unsafe { libc::snprintf(buf.as_mut_ptr().cast(), buf.len(), frag.as_ptr().cast(), arg) };
                out_all(out, &buf);
            }
            b'%' => out.out(b'%'),
            b'e' | b'E' | b'g' | b'G' | b'f' | b'F' => {
                ap = ap.next_multiple_of(8);
                if ap + 8 > end {
                    return fail(inst);
                }
                // SAFETY: 8 bytes below the end of memory (checked).
                let f = unsafe { (ap as *const f64).read_unaligned() };
                ap += 8;
                let mut frag = fmt[start..=i].to_vec();
                frag.push(0);
                let mut buf = [0u8; 64];
                // SAFETY: one conversion of a double into 64 bytes.
                unsafe { libc::snprintf(buf.as_mut_ptr().cast(), 64, frag.as_ptr().cast(), f) };
                out_all(out, &buf);
            }
            b'n' => {}
            _ => {
                out.out(b'%');
                out.out(c);
            }
        }
        might = false;
    }
    true
}

/// `printf(format, va_list)` to stdout; the number of characters, or 0
/// after a failed check (which traps).
pub(crate) extern "C" fn printf_wrapper(exec_env: wasm_exec_env_t, format: *const u8, va_args: *const u8) -> i32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(va_args, 4) {
        return 0;
    }
    let mut out = Print::default();
    // SAFETY: `format` is the checked `$` argument.
    let ok = unsafe { vprintf_wa(&mut out, inst, format, va_args) };
    crate::export::c_print(&out.bytes);
    if ok { out.bytes.len() as i32 } else { 0 }
}

/// `sprintf(str, format, va_list)`, writing at most to the end of memory.
pub(crate) extern "C" fn sprintf_wrapper(
    exec_env: wasm_exec_env_t,
    str: *mut u8,
    format: *const u8,
    va_args: *const u8,
) -> i32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(va_args, 4) {
        return 0;
    }
    let Some((base, len)) = inst.memory_range() else { return 0 };
    let end = base as usize + len as usize;
    if (str as usize) < base as usize || str as usize >= end {
        inst.set_exception(Some("out of bounds memory access"));
        return 0;
    }
    let mut out = Str { str, max: (end - str as usize).min(u32::MAX as usize) as u32, count: 0 };
    // SAFETY: `format` is the checked `$` argument.
    if !unsafe { vprintf_wa(&mut out, inst, format, va_args) } {
        return 0;
    }
    terminate(&out);
    out.count as i32
}

/// `snprintf(str, size, format, va_list)`.
pub(crate) extern "C" fn snprintf_wrapper(
    exec_env: wasm_exec_env_t,
    str: *mut u8,
    size: u32,
    format: *const u8,
    va_args: *const u8,
) -> i32 {
    let Some(inst) = instance(exec_env) else { return 0 };
    if !inst.validate_native(va_args, 4) {
        return 0;
    }
    let mut out = Str { str, max: size, count: 0 };
    // SAFETY: `format` is the checked `$` argument; `[str, str + size)`
    // was checked (the `*~` arguments).
    if !unsafe { vprintf_wa(&mut out, inst, format, va_args) } {
        return 0;
    }
    terminate(&out);
    out.count as i32
}

/// Ends `sprintf`'s output with a NUL when it has room (WAMR does so after
/// formatting).
fn terminate(out: &Str) {
    if out.count < out.max {
        // SAFETY: `count < max`, within the checked destination.
        unsafe { *out.str.add(out.count as usize) = 0 };
    }
}

/// `puts(str)`: the string and a newline; the number printed.
pub(crate) extern "C" fn puts_wrapper(exec_env: wasm_exec_env_t, str: *const c_char) -> i32 {
    let _ = exec_env;
    // SAFETY: the checked `$` argument.
    let s = unsafe { std::ffi::CStr::from_ptr(str) }.to_bytes();
    let mut line = s.to_vec();
    line.push(b'\n');
    crate::export::c_print(&line);
    line.len() as i32
}

/// `putchar(c)`: 1.
pub(crate) extern "C" fn putchar_wrapper(exec_env: wasm_exec_env_t, c: i32) -> i32 {
    let _ = exec_env;
    crate::export::c_print(&[c as u8]);
    1
}
