//! `wasm_application_execute_main` and `wasm_application_execute_func`:
//! running a program's entry point, or one export with arguments given as
//! strings, as WAMR's `iwasm` does; the `iwasm` command line uses these
//! too, so `-f` parses and prints exactly as here.
//!
//! Arguments are read as C's `strtoul`/`strtoull` (base prefixes, negative
//! values wrapping) and `strtod` read them; results are printed on C's
//! stdout as WAMR prints them: `0x2a:i32`, `%.7g:f64`, comma-separated on
//! one line.

use std::ffi::{CStr, c_char};

use cranewasm::{V128, Val, ValType};

use crate::export::instance::{ModuleInst, inst};
use crate::export::lookup::{func_inst, wasm_runtime_lookup_function};
use crate::export::types::*;

/// An argument for a parameter of type `ty`, or WAMR's message for it.
pub fn parse_arg(i: usize, s: &str, ty: ValType) -> Result<Val, String> {
    let bad = || format!("invalid input argument {i}: {s}");
    if s.is_empty() {
        return Err(format!("invalid input argument {i}"));
    }
    Ok(match ty {
        ValType::I32 => Val::I32(parse_int(s).ok_or_else(bad)? as u32 as i32),
        ValType::I64 => Val::I64(parse_int(s).ok_or_else(bad)? as i64),
        ValType::F32 => Val::f32(parse_float(s).ok_or_else(bad)? as f32),
        ValType::F64 => Val::f64(parse_float(s).ok_or_else(bad)?),
        ValType::V128 => {
            // `LOW\HIGH`, each an integer.
            let (lo, hi) = s.split_once('\\').ok_or_else(bad)?;
            let (lo, hi) = (parse_int(lo).ok_or_else(bad)?, parse_int(hi).ok_or_else(bad)?);
            Val::V128(V128((u128::from(hi) << 64) | u128::from(lo)))
        }
        ValType::FUNCREF if s.eq_ignore_ascii_case("null") => Val::FuncRef(None),
        ValType::EXTERNREF if s.eq_ignore_ascii_case("null") => Val::ExternRef(None),
        _ => return Err(bad()),
    })
}

/// An integer as `strtoull(s, _, 0)` reads it: optional sign, then `0x`
/// hex, a leading `0` octal, or decimal; negative values wrap.
fn parse_int(s: &str) -> Option<u64> {
    let (neg, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(hex) = digits.strip_prefix("0x").or_else(|| digits.strip_prefix("0X")) {
        u64::from_str_radix(hex, 16).ok()?
    } else if digits.len() > 1 && digits.starts_with('0') {
        u64::from_str_radix(&digits[1..], 8).ok()?
    } else {
        digits.parse().ok()?
    };
    Some(if neg { v.wrapping_neg() } else { v })
}

/// A float as `strtod` reads it, including `inf`, `nan` and hex floats'
/// common decimal forms.
fn parse_float(s: &str) -> Option<f64> {
    let lower = s.to_ascii_lowercase();
    let (neg, body) = match lower.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let v = match body {
        "inf" | "infinity" => f64::INFINITY,
        "nan" => f64::NAN,
        _ if body.starts_with("0x") => parse_int(body)? as f64,
        _ => body.parse().ok()?,
    };
    Some(if neg { -v } else { v })
}

/// The results as WAMR prints them.
pub fn format_results(results: &[Val], host_pointer: impl Fn(&Val) -> usize) -> String {
    results.iter().map(|v| format_val(v, &host_pointer)).collect::<Vec<_>>().join(",")
}

fn format_val(v: &Val, host_pointer: &impl Fn(&Val) -> usize) -> String {
    match v {
        Val::I32(x) => format!("{:#x}:i32", *x as u32),
        Val::I64(x) => format!("{:#x}:i64", *x as u64),
        Val::F32(bits) => format!("{}:f32", format_g7(f64::from(f32::from_bits(*bits)))),
        Val::F64(bits) => format!("{}:f64", format_g7(f64::from_bits(*bits))),
        Val::V128(v) => {
            let x = v.as_u128();
            format!("<0x{:016x} 0x{:016x}>:v128", x as u64, (x >> 64) as u64)
        }
        Val::FuncRef(None) => "func:ref.null".into(),
        Val::FuncRef(Some(_)) => "ref.func".into(),
        Val::ExternRef(None) => "extern:ref.null".into(),
        Val::ExnRef(None) => "exn:ref.null".into(),
        Val::ExnRef(Some(_)) => "ref.exn".into(),
        Val::AnyRef(None) => "any:ref.null".into(),
        Val::AnyRef(Some(a)) => match a.as_i31() {
            Some(v) => format!("{:#x}:ref.i31", v.get_u32()),
            None => "ref.any".into(),
        },
        Val::ExternRef(Some(_)) => match host_pointer(v) {
            0 | usize::MAX => "extern:ref.null".into(),
            p => format!("{p:#x}:ref.extern"),
        },
    }
}

/// C's `%.7g`.
pub fn format_g7(v: f64) -> String {
    const P: i32 = 7;
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan".into() } else { "nan".into() };
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf".into() } else { "inf".into() };
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // The exponent after rounding to P significant digits.
    let sci = format!("{:.*e}", (P - 1) as usize, v);
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    if (-4..P).contains(&exp) {
        let fixed = format!("{:.*}", (P - 1 - exp) as usize, v);
        strip_zeros(&fixed)
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip_zeros(mantissa), exp.abs())
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
}

/// The strings of a C `argv`.
///
/// # Safety
/// `argv` NULL or `argc` readable pointers, each NULL or NUL-terminated.
unsafe fn args(argc: i32, argv: *mut *mut c_char) -> Vec<String> {
    if argv.is_null() {
        return Vec::new();
    }
    (0..argc.max(0) as usize)
        .map(|i| {
            // SAFETY: as the caller promises.
            let p = unsafe { *argv.add(i) };
            // SAFETY: as the caller promises.
            if p.is_null() { String::new() } else { unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned() }
        })
        .collect()
}

/// Runs export `name` with arguments parsed from `args`, printing its
/// results; false with the exception set otherwise.
pub fn execute_func(inst: &ModuleInst, name: &str, args: &[String]) -> bool {
    let h = inst.handle() as wasm_module_inst_t;
    let cname = std::ffi::CString::new(name).unwrap_or_default();
    // SAFETY: a live instance handle and a NUL-terminated name.
    let f = unsafe { wasm_runtime_lookup_function(h, cname.as_ptr()) };
    // SAFETY: NULL or the handle just made.
    let Some(fi) = (unsafe { func_inst(f) }) else {
        inst.set_exception(Some(&format!("lookup function {name} failed")));
        return false;
    };
    if fi.ty.params().len() != args.len() {
        inst.set_exception(Some("invalid input argument count"));
        return false;
    }
    let mut params = Vec::with_capacity(args.len());
    for (i, (a, t)) in args.iter().zip(fi.ty.params()).enumerate() {
        match parse_arg(i, a, *t) {
            Ok(v) => params.push(match v {
                // An externref argument is a host pointer written as an
                // integer.
                Val::ExternRef(None) => inst.externref_val(usize::MAX),
                v => v,
            }),
            Err(e) => {
                inst.set_exception(Some(&e));
                return false;
            }
        }
    }
    inst.set_exception(None);
    let env = inst.singleton_handle();
    let Some(results) = crate::export::call::call_vals(inst, env, fi.func, &fi.ty, &params) else { return false };
    let line = format_results(&results, |v| inst.host_pointer_of(v));
    crate::export::c_print(format!("{line}\n").as_bytes());
    true
}

/// The entry point failed; the instance's exception says why.
#[derive(Debug)]
pub struct Failed;

/// Runs the program: `_start` (its `proc_exit` counted as success, the
/// status in `wasm_runtime_get_wasi_exit_code`), else `main`,
/// `__main_argc_argv` or `_main` with `argc`/`argv` copied into the app's
/// memory, giving `main`'s result.
pub fn execute_main(inst: &ModuleInst, argv_strings: &[String]) -> Result<Option<i32>, Failed> {
    let h = inst.handle() as wasm_module_inst_t;
    let env = inst.singleton_handle();
    // SAFETY: a live instance handle.
    let start = unsafe { crate::export::wasi::wasm_runtime_lookup_wasi_start_function(h) };
    // SAFETY: NULL or a handle just made.
    if let Some(fi) = unsafe { func_inst(start) } {
        let ok = crate::export::call::call_vals(inst, env, fi.func, &fi.ty, &[]).is_some();
        if ok {
            inst.cluster.main_returned(inst);
        }
        if !ok && inst.exception_message().is_some_and(|e| e.contains("wasi proc exit")) {
            inst.set_exception(None);
            return Ok(None);
        }
        return if ok { Ok(None) } else { Err(Failed) };
    }
    let lookup = |n: &std::ffi::CStr| {
        // SAFETY: a live instance handle and a NUL-terminated name.
        let f = unsafe { wasm_runtime_lookup_function(h, n.as_ptr()) };
        // SAFETY: NULL or a handle just made.
        unsafe { func_inst(f) }
    };
    let Some(fi) = lookup(c"main").or_else(|| lookup(c"__main_argc_argv")).or_else(|| lookup(c"_main")) else {
        // WAMR's text when it is built with WASI, as here.
        inst.set_exception(Some("lookup the entry point symbol (like _start, main, _main, __main_argc_argv) failed"));
        return Err(Failed);
    };
    let (params, results) = (fi.ty.params(), fi.ty.results());
    let ok_type = (params.is_empty() || params == [ValType::I32, ValType::I32])
        && (results.is_empty() || results == [ValType::I32]);
    if !ok_type {
        inst.set_exception(Some("invalid function type of main function"));
        return Err(Failed);
    }
    let mut buf = 0;
    let mut call_args = Vec::new();
    if !params.is_empty() {
        let strings: usize = argv_strings.iter().map(|s| s.len() + 1).sum::<usize>().next_multiple_of(4);
        let total = strings + 4 * argv_strings.len();
        buf = if total as u64 >= u64::from(u32::MAX) { 0 } else { inst.malloc(total as u64) };
        if buf == 0 {
            inst.set_exception(Some("allocate memory failed"));
            return Err(Failed);
        }
        let base = inst.app_to_native(buf);
        let mut p = 0usize;
        let offsets = buf as usize + strings;
        for (i, s) in argv_strings.iter().enumerate() {
            // SAFETY: the allocation holds every string, its NUL and the
            // offsets after them.
            unsafe {
                std::ptr::copy_nonoverlapping(s.as_ptr(), base.add(p), s.len());
                *base.add(p + s.len()) = 0;
                (base.add(strings + 4 * i) as *mut u32).write_unaligned(buf as u32 + p as u32);
            }
            p += s.len() + 1;
        }
        call_args = vec![Val::I32(argv_strings.len() as i32), Val::I32(offsets as i32)];
    }
    let out = crate::export::call::call_vals(inst, env, fi.func, &fi.ty, &call_args);
    if buf != 0 {
        inst.free(buf);
    }
    match out {
        Some(r) => Ok(r.first().and_then(Val::i32)),
        None => Err(Failed),
    }
}

/// Runs the program's entry point (see [`execute_main`]); true if it ran
/// and no exception is left.
///
/// # Safety
/// `module_inst` NULL or any pointer; `argv` NULL or `argc` readable
/// pointers, each NULL or NUL-terminated; when `main` returns a value and
/// `argc > 0`, `argv[0]`'s storage takes it as an `int`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_application_execute_main(
    module_inst: wasm_module_inst_t,
    argc: i32,
    argv: *mut *mut c_char,
) -> bool {
    // SAFETY: as the caller promises.
    let Some(i) = (unsafe { inst(module_inst) }) else { return false };
    // SAFETY: as the caller promises.
    let strings = unsafe { args(argc, argv) };
    match execute_main(i, &strings) {
        Ok(ret) => {
            if let (Some(r), true, false) = (ret, argc > 0, argv.is_null()) {
                // SAFETY: WAMR's contract: argv's storage takes the result.
                unsafe { (argv as *mut i32).write_unaligned(r) };
            }
            !i.has_exception()
        }
        Err(Failed) => false,
    }
}

/// Runs export `name` with `argc` arguments given as strings and prints
/// its results on stdout (see the module documentation). False with the
/// exception set for an unknown function, a wrong argument count, an
/// argument that does not parse, or a trap.
///
/// # Safety
/// `module_inst` NULL or any pointer; `name` NULL or NUL-terminated;
/// `argv` as for [`wasm_application_execute_main`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn wasm_application_execute_func(
    module_inst: wasm_module_inst_t,
    name: *const c_char,
    argc: i32,
    argv: *mut *mut c_char,
) -> bool {
    // SAFETY: as the caller promises.
    let (Some(i), Some(name)) = (unsafe { inst(module_inst) }, unsafe { crate::export::cstr(name) }) else {
        return false;
    };
    // SAFETY: as the caller promises.
    let strings = unsafe { args(argc, argv) };
    execute_func(i, name, &strings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_like_strtoul() {
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("0x2A"), Some(42));
        assert_eq!(parse_int("052"), Some(42));
        assert_eq!(parse_int("-1"), Some(u64::MAX));
        assert_eq!(parse_int("4x"), None);
        assert_eq!(parse_arg(0, "-1", ValType::I32).unwrap().i32(), Some(-1));
        assert!(parse_arg(1, "", ValType::I32).unwrap_err().contains("argument 1"));
    }

    #[test]
    fn results_like_wamr() {
        let none = |_: &Val| 0;
        assert_eq!(format_results(&[Val::I32(42), Val::I64(-1)], none), "0x2a:i32,0xffffffffffffffff:i64");
        assert_eq!(format_results(&[Val::f64(3.5)], none), "3.5:f64");
        assert_eq!(format_results(&[Val::f64(1.0 / 3.0)], none), "0.3333333:f64");
        assert_eq!(format_results(&[Val::f64(1e20)], none), "1e+20:f64");
        assert_eq!(format_results(&[Val::f32(123456789.0)], none), "1.234568e+08:f32");
        assert_eq!(format_results(&[Val::f64(0.0001)], none), "0.0001:f64");
        assert_eq!(format_results(&[Val::f64(f64::NAN)], none), "nan:f64");
        assert_eq!(format_results(&[], none), "");
    }
}
