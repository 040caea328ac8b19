//! `-f NAME ARGS...`: arguments read and results printed as WAMR's
//! `wasm_application_execute_func` does (C's `strtoul`/`strtod` with base
//! prefixes; `0x2a:i32`, `%.7g:f64`, comma-separated on one line), so
//! scripts that read WAMR's output read ours.

use cranewasm::{Val, ValType, V128};

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
        ValType::FuncRef if s.eq_ignore_ascii_case("null") => Val::FuncRef(None),
        ValType::ExternRef if s.eq_ignore_ascii_case("null") => Val::ExternRef(None),
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
pub fn format_results(results: &[Val]) -> String {
    results.iter().map(format_val).collect::<Vec<_>>().join(",")
}

fn format_val(v: &Val) -> String {
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
        Val::ExternRef(Some(_)) => "ref.extern".into(),
    }
}

/// C's `%.7g`.
fn format_g7(v: f64) -> String {
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
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
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
        assert_eq!(format_results(&[Val::I32(42), Val::I64(-1)]), "0x2a:i32,0xffffffffffffffff:i64");
        assert_eq!(format_results(&[Val::f64(3.5)]), "3.5:f64");
        assert_eq!(format_results(&[Val::f64(1.0 / 3.0)]), "0.3333333:f64");
        assert_eq!(format_results(&[Val::f64(1e20)]), "1e+20:f64");
        assert_eq!(format_results(&[Val::f32(123456789.0)]), "1.234568e+08:f32");
        assert_eq!(format_results(&[Val::f64(0.0001)]), "0.0001:f64");
        assert_eq!(format_results(&[Val::f64(f64::NAN)]), "nan:f64");
        assert_eq!(format_results(&[]), "");
    }
}
