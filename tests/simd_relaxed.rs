//! The relaxed-SIMD operators return the results of the spec's
//! deterministic profile, on every host. The spec tests accept any allowed
//! result; these inputs are the ones where the allowed results differ, so
//! each assertion pins down the choice.

use cranewasm::*;

/// Runs `(func (result v128) BODY)` and returns its bytes.
fn eval(body: &str) -> [u8; 16] {
    let engine = Engine::default();
    let wat = format!(r#"(module (func (export "f") (result v128) {body}))"#);
    let module = Module::new(&engine, wat).unwrap();
    let mut store = Store::new(&engine, ());
    let instance = Instance::new(&mut store, &module, &[]).unwrap();
    let f = instance.get_func(&store, "f").unwrap();
    let mut r = [Val::I32(0)];
    f.call(&mut store, &[], &mut r).unwrap();
    r[0].v128().unwrap().to_le_bytes()
}

fn i16s(b: [u8; 16]) -> [i16; 8] {
    std::array::from_fn(|i| i16::from_le_bytes([b[2 * i], b[2 * i + 1]]))
}

fn i32s(b: [u8; 16]) -> [i32; 4] {
    std::array::from_fn(|i| i32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

fn u32s(b: [u8; 16]) -> [u32; 4] {
    std::array::from_fn(|i| u32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

#[test]
fn dot_products_are_signed_with_saturated_pair_sums() {
    // (-128 * -128) * 2 = 32768 does not fit an i16: saturated, not wrapped.
    let r = eval(
        "(i16x8.relaxed_dot_i8x16_i7x16_s
            (v128.const i8x16 -128 -128 -128 127 0 0 0 0 0 0 0 0 0 0 0 0)
            (v128.const i8x16 -128 -128 -128 -1 0 0 0 0 0 0 0 0 0 0 0 0))",
    );
    assert_eq!(i16s(r), [32767, 16384 - 127, 0, 0, 0, 0, 0, 0]);
    // The i32 form adds the saturated i16 sums: 2 * 32767, not 65536.
    let r = eval(
        "(i32x4.relaxed_dot_i8x16_i7x16_add_s
            (v128.const i8x16 -128 -128 -128 -128 1 2 3 4 0 0 0 0 0 0 0 0)
            (v128.const i8x16 -128 -128 -128 -128 -1 -1 -1 -1 0 0 0 0 0 0 0 0)
            (v128.const i32x4 1 10 100 1000))",
    );
    assert_eq!(i32s(r), [65534 + 1, -10 + 10, 100, 1000]);
}

#[test]
fn madd_rounds_the_product_first() {
    // (1 + 2^-12)^2 = 1 + 2^-11 + 2^-24 rounds to 1 + 2^-11; adding
    // -(1 + 2^-11) then gives 0, where a fused multiply-add gives 2^-24.
    let r = eval(
        "(f32x4.relaxed_madd
            (v128.const i32x4 0x3f800800 0x3f800800 0x40000000 0)
            (v128.const i32x4 0x3f800800 0x3f800800 0x40400000 0)
            (v128.const i32x4 0xbf801000 0x00000000 0x3f800000 0))",
    );
    assert_eq!(u32s(r), [0, 0x3f801000, 7.0f32.to_bits(), 0]);
    let r = eval(
        "(f32x4.relaxed_nmadd
            (v128.const i32x4 0x3f800800 0x40000000 0 0)
            (v128.const i32x4 0x3f800800 0x40400000 0 0)
            (v128.const i32x4 0x3f801000 0x3f800000 0 0))",
    );
    assert_eq!(u32s(r), [0, (-5.0f32).to_bits(), 0, 0]);
    let r = eval(
        "(f64x2.relaxed_madd
            (v128.const i64x2 0x3ff0000002000000 0x4000000000000000)
            (v128.const i64x2 0x3ff0000002000000 0x4008000000000000)
            (v128.const i64x2 0xbff0000004000000 0x3ff0000000000000))",
    );
    // (1 + 2^-27)^2 = 1 + 2^-26 + 2^-54 rounds to 1 + 2^-26: the sum is 0,
    // where a fused multiply-add gives 2^-54.
    assert_eq!(r[..8], 0f64.to_le_bytes());
    assert_eq!(r[8..], 7.0f64.to_le_bytes());
}

#[test]
fn swizzle_laneselect_min_max_trunc_q15_match_their_strict_forms() {
    let r = eval(
        "(i8x16.relaxed_swizzle
            (v128.const i8x16 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25)
            (v128.const i8x16 0 15 16 17 31 32 127 128 255 1 2 3 4 5 6 7))",
    );
    assert_eq!(r, [10, 25, 0, 0, 0, 0, 0, 0, 0, 11, 12, 13, 14, 15, 16, 17]);

    // A mask mixing set and clear bits selects bit by bit.
    let r = eval(
        "(i32x4.relaxed_laneselect
            (v128.const i32x4 -1 -1 0 0x12345678)
            (v128.const i32x4 0 0 -1 0x0f0f0f0f)
            (v128.const i32x4 0x0000ffff 0x80000000 0x7fffffff 0xff00ff00))",
    );
    assert_eq!(u32s(r), [0x0000ffff, 0x80000000, 0x80000000, 0x120f560f]);

    let r = eval(
        "(f32x4.relaxed_min
            (v128.const f32x4 nan 1 -0 0)
            (v128.const f32x4 1 nan 0 -0))",
    );
    let r = u32s(r);
    assert!(f32::from_bits(r[0]).is_nan() && f32::from_bits(r[1]).is_nan(), "{r:x?}");
    assert_eq!(r[2..], [0x8000_0000, 0x8000_0000]);
    let r = u32s(eval(
        "(f32x4.relaxed_max
            (v128.const f32x4 nan 1 -0 0)
            (v128.const f32x4 1 nan 0 -0))",
    ));
    assert!(f32::from_bits(r[0]).is_nan() && f32::from_bits(r[1]).is_nan(), "{r:x?}");
    assert_eq!(r[2..], [0, 0]);

    let r = eval("(i32x4.relaxed_trunc_f32x4_s (v128.const f32x4 nan -3e9 3e9 -2.9))");
    assert_eq!(i32s(r), [0, i32::MIN, i32::MAX, -2]);
    let r = eval("(i32x4.relaxed_trunc_f32x4_u (v128.const f32x4 nan -1 5e9 2.9))");
    assert_eq!(u32s(r), [0, 0, u32::MAX, 2]);
    let r = eval("(i32x4.relaxed_trunc_f64x2_s_zero (v128.const f64x2 -3e9 nan))");
    assert_eq!(i32s(r), [i32::MIN, 0, 0, 0]);
    let r = eval("(i32x4.relaxed_trunc_f64x2_u_zero (v128.const f64x2 5e9 -0.5))");
    assert_eq!(u32s(r), [u32::MAX, 0, 0, 0]);

    let r = eval(
        "(i16x8.relaxed_q15mulr_s
            (v128.const i16x8 -32768 -32768 16384 0 0 0 0 0)
            (v128.const i16x8 -32768 32767 16384 0 0 0 0 0))",
    );
    assert_eq!(i16s(r), [32767, -32767, 8192, 0, 0, 0, 0, 0]);
}
