//! `NativeCall`: C functions called through a trampoline compiled for their
//! signature, with every kind of value, more arguments than the host has
//! argument registers (so some go on the stack), and results written
//! through pointers.

use std::ffi::c_void;

use cranewasm::{Engine, NativeCall, ValRaw, ValType};

extern "C" fn mix(first: *mut c_void, a: i32, b: i64, c: f32, d: f64) -> f64 {
    assert_eq!(first as usize, 0x1234);
    a as f64 + b as f64 + c as f64 + d
}

#[allow(clippy::too_many_arguments)]
extern "C" fn many(
    _first: *mut c_void,
    a: i32,
    b: i64,
    c: i32,
    d: i64,
    e: i32,
    f: i64,
    g: i32,
    h: i64,
    x1: f64,
    x2: f32,
    x3: f64,
    x4: f32,
    x5: f64,
    x6: f32,
    x7: f64,
    x8: f32,
    x9: f64,
    x10: f32,
) -> i64 {
    let ints = [a as i64, b, c as i64, d, e as i64, f, g as i64, h];
    let floats = [x1, x2 as f64, x3, x4 as f64, x5, x6 as f64, x7, x8 as f64, x9, x10 as f64];
    ints.iter().enumerate().map(|(i, v)| v * (i as i64 + 1)).sum::<i64>()
        + floats.iter().enumerate().map(|(i, v)| (v * (i as f64 + 1.0)) as i64).sum::<i64>()
}

extern "C" fn two_results(_first: *mut c_void, x: i32, second: *mut i64) -> f32 {
    // SAFETY: the trampoline passes a pointer to the second result's slot.
    unsafe { *second = x as i64 * 1000 };
    x as f32 / 2.0
}

extern "C" fn nothing(first: *mut c_void, p: i64) {
    // SAFETY: the test passes the address of a u64 as `p`.
    unsafe { *(p as *mut u64) = first as u64 };
}

#[test]
fn calls_c_functions_of_any_signature() {
    use ValType::*;
    let engine = Engine::default();

    let call = NativeCall::new(&engine, &[I32, I64, F32, F64], &[F64]).unwrap();
    let mut v = [ValRaw::i32(-3), ValRaw::i64(1 << 40), ValRaw::f32(2.5f32.to_bits()), ValRaw::f64(0.25f64.to_bits())];
    // SAFETY: `mix` has exactly this signature; four slots.
    unsafe { call.call(mix as *const c_void, 0x1234 as *mut c_void, v.as_mut_ptr()) };
    assert_eq!(f64::from_bits(v[0].get_f64()), -3.0 + (1u64 << 40) as f64 + 2.5 + 0.25);
    assert_eq!(v[0].kind_byte(), ValRaw::kind_of(F64));

    let params = [I32, I64, I32, I64, I32, I64, I32, I64, F64, F32, F64, F32, F64, F32, F64, F32, F64, F32];
    let call = NativeCall::new(&engine, &params, &[I64]).unwrap();
    let mut v: Vec<ValRaw> = params
        .iter()
        .enumerate()
        .map(|(i, t)| match t {
            I32 => ValRaw::i32(i as i32 + 1),
            I64 => ValRaw::i64(-(i as i64) - 1),
            F32 => ValRaw::f32((i as f32 + 0.5).to_bits()),
            _ => ValRaw::f64((i as f64 + 0.25).to_bits()),
        })
        .collect();
    let expected = many(
        std::ptr::null_mut(),
        1,
        -2,
        3,
        -4,
        5,
        -6,
        7,
        -8,
        8.25,
        9.5,
        10.25,
        11.5,
        12.25,
        13.5,
        14.25,
        15.5,
        16.25,
        17.5,
    );
    // SAFETY: `many` has exactly this signature; one slot per parameter.
    unsafe { call.call(many as *const c_void, std::ptr::null_mut(), v.as_mut_ptr()) };
    assert_eq!(v[0].get_i64(), expected);

    let call = NativeCall::new(&engine, &[I32], &[F32, I64]).unwrap();
    assert_eq!(call.slots(), 2);
    let mut v = [ValRaw::i32(7), ValRaw::default()];
    // SAFETY: `two_results` takes the second result's pointer; two slots.
    unsafe { call.call(two_results as *const c_void, std::ptr::null_mut(), v.as_mut_ptr()) };
    assert_eq!(f32::from_bits(v[0].get_f32()), 3.5);
    assert_eq!(v[1].get_i64(), 7000);
    assert_eq!((v[0].kind_byte(), v[1].kind_byte()), (ValRaw::kind_of(F32), ValRaw::kind_of(I64)));

    let call = NativeCall::new(&engine, &[I64], &[]).unwrap();
    let mut out = 0u64;
    let mut v = [ValRaw::i64(&mut out as *mut u64 as i64)];
    // SAFETY: `nothing` has this signature and writes to `out`.
    unsafe { call.call(nothing as *const c_void, 99 as *mut c_void, v.as_mut_ptr()) };
    assert_eq!(out, 99);
}
