//! The dispatch of every SIMD and relaxed-SIMD operator: wasmparser's
//! `VisitSimdOperator` implemented for the translator, one method per
//! operator, grouped by the file that holds their translation (see
//! `translate/visit.rs` for the scalar operators and the reasons).

use cranelift_codegen::ir::{
    condcodes::{FloatCC, IntCC},
    types::{F32X4, F64X2, I16X8, I32X4, I64X2, I8X16},
    InstBuilder,
};
use wasmparser::{MemArg, VisitSimdOperator, V128};

use super::conversions::{self, Half};
use super::relaxed;
use super::Translator;
use crate::environ::error::Result;

impl VisitSimdOperator<'_> for Translator<'_, '_> {
    operators! { t =>
        // memory.rs
        visit_v128_load(memarg: MemArg) => t.v128_load(&memarg)?;
        visit_v128_store(memarg: MemArg) => t.v128_store(&memarg)?;

        visit_v128_load8x8_s(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().sload8x8(f, a, o))?;
        visit_v128_load8x8_u(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().uload8x8(f, a, o))?;
        visit_v128_load16x4_s(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().sload16x4(f, a, o))?;
        visit_v128_load16x4_u(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().uload16x4(f, a, o))?;
        visit_v128_load32x2_s(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().sload32x2(f, a, o))?;
        visit_v128_load32x2_u(memarg: MemArg) => t.load_extend(&memarg, |b, f, a, o| b.ins().uload32x2(f, a, o))?;

        visit_v128_load8_splat(memarg: MemArg) => t.load_splat(&memarg, I8X16)?;
        visit_v128_load16_splat(memarg: MemArg) => t.load_splat(&memarg, I16X8)?;
        visit_v128_load32_splat(memarg: MemArg) => t.load_splat(&memarg, I32X4)?;
        visit_v128_load64_splat(memarg: MemArg) => t.load_splat(&memarg, I64X2)?;

        // As floats: see `load_zero`.
        visit_v128_load32_zero(memarg: MemArg) => t.load_zero(&memarg, F32X4)?;
        visit_v128_load64_zero(memarg: MemArg) => t.load_zero(&memarg, F64X2)?;

        visit_v128_load8_lane(memarg: MemArg, lane: u8) => t.load_lane(&memarg, I8X16, lane)?;
        visit_v128_load16_lane(memarg: MemArg, lane: u8) => t.load_lane(&memarg, I16X8, lane)?;
        visit_v128_load32_lane(memarg: MemArg, lane: u8) => t.load_lane(&memarg, I32X4, lane)?;
        visit_v128_load64_lane(memarg: MemArg, lane: u8) => t.load_lane(&memarg, I64X2, lane)?;
        visit_v128_store8_lane(memarg: MemArg, lane: u8) => t.store_lane(&memarg, I8X16, lane)?;
        visit_v128_store16_lane(memarg: MemArg, lane: u8) => t.store_lane(&memarg, I16X8, lane)?;
        visit_v128_store32_lane(memarg: MemArg, lane: u8) => t.store_lane(&memarg, I32X4, lane)?;
        visit_v128_store64_lane(memarg: MemArg, lane: u8) => t.store_lane(&memarg, I64X2, lane)?;

        // lanes.rs
        visit_v128_const(value: V128) => t.v128_const(value);
        visit_i8x16_shuffle(lanes: [u8; 16]) => t.shuffle(lanes);
        // `swizzle` yields 0 for indices of 16 and above, as wasm does.
        visit_i8x16_swizzle => t.v_binary(I8X16, |b, x, y| b.ins().swizzle(x, y));

        visit_i8x16_splat => t.splat(I8X16);
        visit_i16x8_splat => t.splat(I16X8);
        visit_i32x4_splat => t.splat(I32X4);
        visit_i64x2_splat => t.splat(I64X2);
        visit_f32x4_splat => t.splat(F32X4);
        visit_f64x2_splat => t.splat(F64X2);

        visit_i8x16_extract_lane_s(lane: u8) => t.extract_small_lane(I8X16, lane, true);
        visit_i8x16_extract_lane_u(lane: u8) => t.extract_small_lane(I8X16, lane, false);
        visit_i16x8_extract_lane_s(lane: u8) => t.extract_small_lane(I16X8, lane, true);
        visit_i16x8_extract_lane_u(lane: u8) => t.extract_small_lane(I16X8, lane, false);
        visit_i32x4_extract_lane(lane: u8) => t.extract_lane(I32X4, lane);
        visit_i64x2_extract_lane(lane: u8) => t.extract_lane(I64X2, lane);
        visit_f32x4_extract_lane(lane: u8) => t.extract_lane(F32X4, lane);
        visit_f64x2_extract_lane(lane: u8) => t.extract_lane(F64X2, lane);

        visit_i8x16_replace_lane(lane: u8) => t.replace_lane(I8X16, lane);
        visit_i16x8_replace_lane(lane: u8) => t.replace_lane(I16X8, lane);
        visit_i32x4_replace_lane(lane: u8) => t.replace_lane(I32X4, lane);
        visit_i64x2_replace_lane(lane: u8) => t.replace_lane(I64X2, lane);
        visit_f32x4_replace_lane(lane: u8) => t.replace_lane(F32X4, lane);
        visit_f64x2_replace_lane(lane: u8) => t.replace_lane(F64X2, lane);

        // integer.rs
        visit_v128_not => t.v_unary(I8X16, |b, x| b.ins().bnot(x));
        visit_v128_and => t.v_binary(I8X16, |b, x, y| b.ins().band(x, y));
        visit_v128_andnot => t.v_binary(I8X16, |b, x, y| b.ins().band_not(x, y));
        visit_v128_or => t.v_binary(I8X16, |b, x, y| b.ins().bor(x, y));
        visit_v128_xor => t.v_binary(I8X16, |b, x, y| b.ins().bxor(x, y));
        // wasm's operands are (v1, v2, mask); Cranelift's mask comes first.
        visit_v128_bitselect => t.v_ternary(I8X16, |b, x, y, m| b.ins().bitselect(m, x, y));
        visit_v128_any_true => t.v_test(I8X16, |b, x| b.ins().vany_true(x));

        visit_i8x16_all_true => t.v_test(I8X16, |b, x| b.ins().vall_true(x));
        visit_i16x8_all_true => t.v_test(I16X8, |b, x| b.ins().vall_true(x));
        visit_i32x4_all_true => t.v_test(I32X4, |b, x| b.ins().vall_true(x));
        visit_i64x2_all_true => t.v_test(I64X2, |b, x| b.ins().vall_true(x));
        visit_i8x16_bitmask => t.bitmask(I8X16);
        visit_i16x8_bitmask => t.bitmask(I16X8);
        visit_i32x4_bitmask => t.bitmask(I32X4);
        visit_i64x2_bitmask => t.bitmask(I64X2);

        visit_i8x16_abs => t.v_unary(I8X16, |b, x| b.ins().iabs(x));
        visit_i16x8_abs => t.v_unary(I16X8, |b, x| b.ins().iabs(x));
        visit_i32x4_abs => t.v_unary(I32X4, |b, x| b.ins().iabs(x));
        visit_i64x2_abs => t.v_unary(I64X2, |b, x| b.ins().iabs(x));
        visit_i8x16_neg => t.v_unary(I8X16, |b, x| b.ins().ineg(x));
        visit_i16x8_neg => t.v_unary(I16X8, |b, x| b.ins().ineg(x));
        visit_i32x4_neg => t.v_unary(I32X4, |b, x| b.ins().ineg(x));
        visit_i64x2_neg => t.v_unary(I64X2, |b, x| b.ins().ineg(x));
        visit_i8x16_popcnt => t.v_unary(I8X16, |b, x| b.ins().popcnt(x));

        visit_i8x16_shl => t.shift(I8X16, |b, x, n| b.ins().ishl(x, n));
        visit_i16x8_shl => t.shift(I16X8, |b, x, n| b.ins().ishl(x, n));
        visit_i32x4_shl => t.shift(I32X4, |b, x, n| b.ins().ishl(x, n));
        visit_i64x2_shl => t.shift(I64X2, |b, x, n| b.ins().ishl(x, n));
        visit_i8x16_shr_s => t.shift(I8X16, |b, x, n| b.ins().sshr(x, n));
        visit_i16x8_shr_s => t.shift(I16X8, |b, x, n| b.ins().sshr(x, n));
        visit_i32x4_shr_s => t.shift(I32X4, |b, x, n| b.ins().sshr(x, n));
        visit_i64x2_shr_s => t.shift(I64X2, |b, x, n| b.ins().sshr(x, n));
        visit_i8x16_shr_u => t.shift(I8X16, |b, x, n| b.ins().ushr(x, n));
        visit_i16x8_shr_u => t.shift(I16X8, |b, x, n| b.ins().ushr(x, n));
        visit_i32x4_shr_u => t.shift(I32X4, |b, x, n| b.ins().ushr(x, n));
        visit_i64x2_shr_u => t.shift(I64X2, |b, x, n| b.ins().ushr(x, n));

        visit_i8x16_add => t.v_binary(I8X16, |b, x, y| b.ins().iadd(x, y));
        visit_i16x8_add => t.v_binary(I16X8, |b, x, y| b.ins().iadd(x, y));
        visit_i32x4_add => t.v_binary(I32X4, |b, x, y| b.ins().iadd(x, y));
        visit_i64x2_add => t.v_binary(I64X2, |b, x, y| b.ins().iadd(x, y));
        visit_i8x16_sub => t.v_binary(I8X16, |b, x, y| b.ins().isub(x, y));
        visit_i16x8_sub => t.v_binary(I16X8, |b, x, y| b.ins().isub(x, y));
        visit_i32x4_sub => t.v_binary(I32X4, |b, x, y| b.ins().isub(x, y));
        visit_i64x2_sub => t.v_binary(I64X2, |b, x, y| b.ins().isub(x, y));
        visit_i16x8_mul => t.v_binary(I16X8, |b, x, y| b.ins().imul(x, y));
        visit_i32x4_mul => t.v_binary(I32X4, |b, x, y| b.ins().imul(x, y));
        visit_i64x2_mul => t.v_binary(I64X2, |b, x, y| b.ins().imul(x, y));

        visit_i8x16_add_sat_s => t.v_binary(I8X16, |b, x, y| b.ins().sadd_sat(x, y));
        visit_i16x8_add_sat_s => t.v_binary(I16X8, |b, x, y| b.ins().sadd_sat(x, y));
        visit_i8x16_add_sat_u => t.v_binary(I8X16, |b, x, y| b.ins().uadd_sat(x, y));
        visit_i16x8_add_sat_u => t.v_binary(I16X8, |b, x, y| b.ins().uadd_sat(x, y));
        visit_i8x16_sub_sat_s => t.v_binary(I8X16, |b, x, y| b.ins().ssub_sat(x, y));
        visit_i16x8_sub_sat_s => t.v_binary(I16X8, |b, x, y| b.ins().ssub_sat(x, y));
        visit_i8x16_sub_sat_u => t.v_binary(I8X16, |b, x, y| b.ins().usub_sat(x, y));
        visit_i16x8_sub_sat_u => t.v_binary(I16X8, |b, x, y| b.ins().usub_sat(x, y));
        visit_i16x8_q15mulr_sat_s => t.v_binary(I16X8, |b, x, y| b.ins().sqmul_round_sat(x, y));

        visit_i8x16_min_s => t.v_binary(I8X16, |b, x, y| b.ins().smin(x, y));
        visit_i16x8_min_s => t.v_binary(I16X8, |b, x, y| b.ins().smin(x, y));
        visit_i32x4_min_s => t.v_binary(I32X4, |b, x, y| b.ins().smin(x, y));
        visit_i8x16_min_u => t.v_binary(I8X16, |b, x, y| b.ins().umin(x, y));
        visit_i16x8_min_u => t.v_binary(I16X8, |b, x, y| b.ins().umin(x, y));
        visit_i32x4_min_u => t.v_binary(I32X4, |b, x, y| b.ins().umin(x, y));
        visit_i8x16_max_s => t.v_binary(I8X16, |b, x, y| b.ins().smax(x, y));
        visit_i16x8_max_s => t.v_binary(I16X8, |b, x, y| b.ins().smax(x, y));
        visit_i32x4_max_s => t.v_binary(I32X4, |b, x, y| b.ins().smax(x, y));
        visit_i8x16_max_u => t.v_binary(I8X16, |b, x, y| b.ins().umax(x, y));
        visit_i16x8_max_u => t.v_binary(I16X8, |b, x, y| b.ins().umax(x, y));
        visit_i32x4_max_u => t.v_binary(I32X4, |b, x, y| b.ins().umax(x, y));
        visit_i8x16_avgr_u => t.v_binary(I8X16, |b, x, y| b.ins().avg_round(x, y));
        visit_i16x8_avgr_u => t.v_binary(I16X8, |b, x, y| b.ins().avg_round(x, y));

        visit_i8x16_eq => t.v_icmp(I8X16, IntCC::Equal);
        visit_i16x8_eq => t.v_icmp(I16X8, IntCC::Equal);
        visit_i32x4_eq => t.v_icmp(I32X4, IntCC::Equal);
        visit_i64x2_eq => t.v_icmp(I64X2, IntCC::Equal);
        visit_i8x16_ne => t.v_icmp(I8X16, IntCC::NotEqual);
        visit_i16x8_ne => t.v_icmp(I16X8, IntCC::NotEqual);
        visit_i32x4_ne => t.v_icmp(I32X4, IntCC::NotEqual);
        visit_i64x2_ne => t.v_icmp(I64X2, IntCC::NotEqual);
        visit_i8x16_lt_s => t.v_icmp(I8X16, IntCC::SignedLessThan);
        visit_i16x8_lt_s => t.v_icmp(I16X8, IntCC::SignedLessThan);
        visit_i32x4_lt_s => t.v_icmp(I32X4, IntCC::SignedLessThan);
        visit_i64x2_lt_s => t.v_icmp(I64X2, IntCC::SignedLessThan);
        visit_i8x16_lt_u => t.v_icmp(I8X16, IntCC::UnsignedLessThan);
        visit_i16x8_lt_u => t.v_icmp(I16X8, IntCC::UnsignedLessThan);
        visit_i32x4_lt_u => t.v_icmp(I32X4, IntCC::UnsignedLessThan);
        visit_i8x16_gt_s => t.v_icmp(I8X16, IntCC::SignedGreaterThan);
        visit_i16x8_gt_s => t.v_icmp(I16X8, IntCC::SignedGreaterThan);
        visit_i32x4_gt_s => t.v_icmp(I32X4, IntCC::SignedGreaterThan);
        visit_i64x2_gt_s => t.v_icmp(I64X2, IntCC::SignedGreaterThan);
        visit_i8x16_gt_u => t.v_icmp(I8X16, IntCC::UnsignedGreaterThan);
        visit_i16x8_gt_u => t.v_icmp(I16X8, IntCC::UnsignedGreaterThan);
        visit_i32x4_gt_u => t.v_icmp(I32X4, IntCC::UnsignedGreaterThan);
        visit_i8x16_le_s => t.v_icmp(I8X16, IntCC::SignedLessThanOrEqual);
        visit_i16x8_le_s => t.v_icmp(I16X8, IntCC::SignedLessThanOrEqual);
        visit_i32x4_le_s => t.v_icmp(I32X4, IntCC::SignedLessThanOrEqual);
        visit_i64x2_le_s => t.v_icmp(I64X2, IntCC::SignedLessThanOrEqual);
        visit_i8x16_le_u => t.v_icmp(I8X16, IntCC::UnsignedLessThanOrEqual);
        visit_i16x8_le_u => t.v_icmp(I16X8, IntCC::UnsignedLessThanOrEqual);
        visit_i32x4_le_u => t.v_icmp(I32X4, IntCC::UnsignedLessThanOrEqual);
        visit_i8x16_ge_s => t.v_icmp(I8X16, IntCC::SignedGreaterThanOrEqual);
        visit_i16x8_ge_s => t.v_icmp(I16X8, IntCC::SignedGreaterThanOrEqual);
        visit_i32x4_ge_s => t.v_icmp(I32X4, IntCC::SignedGreaterThanOrEqual);
        visit_i64x2_ge_s => t.v_icmp(I64X2, IntCC::SignedGreaterThanOrEqual);
        visit_i8x16_ge_u => t.v_icmp(I8X16, IntCC::UnsignedGreaterThanOrEqual);
        visit_i16x8_ge_u => t.v_icmp(I16X8, IntCC::UnsignedGreaterThanOrEqual);
        visit_i32x4_ge_u => t.v_icmp(I32X4, IntCC::UnsignedGreaterThanOrEqual);

        // float.rs
        visit_f32x4_abs => t.v_unary(F32X4, |b, x| b.ins().fabs(x));
        visit_f64x2_abs => t.v_unary(F64X2, |b, x| b.ins().fabs(x));
        visit_f32x4_neg => t.v_unary(F32X4, |b, x| b.ins().fneg(x));
        visit_f64x2_neg => t.v_unary(F64X2, |b, x| b.ins().fneg(x));
        visit_f32x4_sqrt => t.v_unary(F32X4, |b, x| b.ins().sqrt(x));
        visit_f64x2_sqrt => t.v_unary(F64X2, |b, x| b.ins().sqrt(x));
        visit_f32x4_ceil => t.v_unary(F32X4, |b, x| b.ins().ceil(x));
        visit_f64x2_ceil => t.v_unary(F64X2, |b, x| b.ins().ceil(x));
        visit_f32x4_floor => t.v_unary(F32X4, |b, x| b.ins().floor(x));
        visit_f64x2_floor => t.v_unary(F64X2, |b, x| b.ins().floor(x));
        visit_f32x4_trunc => t.v_unary(F32X4, |b, x| b.ins().trunc(x));
        visit_f64x2_trunc => t.v_unary(F64X2, |b, x| b.ins().trunc(x));
        visit_f32x4_nearest => t.v_unary(F32X4, |b, x| b.ins().nearest(x));
        visit_f64x2_nearest => t.v_unary(F64X2, |b, x| b.ins().nearest(x));

        visit_f32x4_add => t.v_binary(F32X4, |b, x, y| b.ins().fadd(x, y));
        visit_f64x2_add => t.v_binary(F64X2, |b, x, y| b.ins().fadd(x, y));
        visit_f32x4_sub => t.v_binary(F32X4, |b, x, y| b.ins().fsub(x, y));
        visit_f64x2_sub => t.v_binary(F64X2, |b, x, y| b.ins().fsub(x, y));
        visit_f32x4_mul => t.v_binary(F32X4, |b, x, y| b.ins().fmul(x, y));
        visit_f64x2_mul => t.v_binary(F64X2, |b, x, y| b.ins().fmul(x, y));
        visit_f32x4_div => t.v_binary(F32X4, |b, x, y| b.ins().fdiv(x, y));
        visit_f64x2_div => t.v_binary(F64X2, |b, x, y| b.ins().fdiv(x, y));
        visit_f32x4_min => t.v_binary(F32X4, |b, x, y| b.ins().fmin(x, y));
        visit_f64x2_min => t.v_binary(F64X2, |b, x, y| b.ins().fmin(x, y));
        visit_f32x4_max => t.v_binary(F32X4, |b, x, y| b.ins().fmax(x, y));
        visit_f64x2_max => t.v_binary(F64X2, |b, x, y| b.ins().fmax(x, y));
        visit_f32x4_pmin => t.pseudo_min_max(F32X4, false);
        visit_f64x2_pmin => t.pseudo_min_max(F64X2, false);
        visit_f32x4_pmax => t.pseudo_min_max(F32X4, true);
        visit_f64x2_pmax => t.pseudo_min_max(F64X2, true);

        visit_f32x4_eq => t.v_fcmp(F32X4, FloatCC::Equal);
        visit_f64x2_eq => t.v_fcmp(F64X2, FloatCC::Equal);
        visit_f32x4_ne => t.v_fcmp(F32X4, FloatCC::NotEqual);
        visit_f64x2_ne => t.v_fcmp(F64X2, FloatCC::NotEqual);
        visit_f32x4_lt => t.v_fcmp(F32X4, FloatCC::LessThan);
        visit_f64x2_lt => t.v_fcmp(F64X2, FloatCC::LessThan);
        visit_f32x4_gt => t.v_fcmp(F32X4, FloatCC::GreaterThan);
        visit_f64x2_gt => t.v_fcmp(F64X2, FloatCC::GreaterThan);
        visit_f32x4_le => t.v_fcmp(F32X4, FloatCC::LessThanOrEqual);
        visit_f64x2_le => t.v_fcmp(F64X2, FloatCC::LessThanOrEqual);
        visit_f32x4_ge => t.v_fcmp(F32X4, FloatCC::GreaterThanOrEqual);
        visit_f64x2_ge => t.v_fcmp(F64X2, FloatCC::GreaterThanOrEqual);

        // conversions.rs
        // `snarrow`/`unarrow` read their inputs as signed, as wasm does.
        visit_i8x16_narrow_i16x8_s => t.v_binary(I16X8, |b, x, y| b.ins().snarrow(x, y));
        visit_i8x16_narrow_i16x8_u => t.v_binary(I16X8, |b, x, y| b.ins().unarrow(x, y));
        visit_i16x8_narrow_i32x4_s => t.v_binary(I32X4, |b, x, y| b.ins().snarrow(x, y));
        visit_i16x8_narrow_i32x4_u => t.v_binary(I32X4, |b, x, y| b.ins().unarrow(x, y));

        visit_i16x8_extend_low_i8x16_s => t.extend(I8X16, Half::Low, true);
        visit_i16x8_extend_high_i8x16_s => t.extend(I8X16, Half::High, true);
        visit_i16x8_extend_low_i8x16_u => t.extend(I8X16, Half::Low, false);
        visit_i16x8_extend_high_i8x16_u => t.extend(I8X16, Half::High, false);
        visit_i32x4_extend_low_i16x8_s => t.extend(I16X8, Half::Low, true);
        visit_i32x4_extend_high_i16x8_s => t.extend(I16X8, Half::High, true);
        visit_i32x4_extend_low_i16x8_u => t.extend(I16X8, Half::Low, false);
        visit_i32x4_extend_high_i16x8_u => t.extend(I16X8, Half::High, false);
        visit_i64x2_extend_low_i32x4_s => t.extend(I32X4, Half::Low, true);
        visit_i64x2_extend_high_i32x4_s => t.extend(I32X4, Half::High, true);
        visit_i64x2_extend_low_i32x4_u => t.extend(I32X4, Half::Low, false);
        visit_i64x2_extend_high_i32x4_u => t.extend(I32X4, Half::High, false);

        visit_i16x8_extmul_low_i8x16_s => t.ext_mul(I8X16, Half::Low, true);
        visit_i16x8_extmul_high_i8x16_s => t.ext_mul(I8X16, Half::High, true);
        visit_i16x8_extmul_low_i8x16_u => t.ext_mul(I8X16, Half::Low, false);
        visit_i16x8_extmul_high_i8x16_u => t.ext_mul(I8X16, Half::High, false);
        visit_i32x4_extmul_low_i16x8_s => t.ext_mul(I16X8, Half::Low, true);
        visit_i32x4_extmul_high_i16x8_s => t.ext_mul(I16X8, Half::High, true);
        visit_i32x4_extmul_low_i16x8_u => t.ext_mul(I16X8, Half::Low, false);
        visit_i32x4_extmul_high_i16x8_u => t.ext_mul(I16X8, Half::High, false);
        visit_i64x2_extmul_low_i32x4_s => t.ext_mul(I32X4, Half::Low, true);
        visit_i64x2_extmul_high_i32x4_s => t.ext_mul(I32X4, Half::High, true);
        visit_i64x2_extmul_low_i32x4_u => t.ext_mul(I32X4, Half::Low, false);
        visit_i64x2_extmul_high_i32x4_u => t.ext_mul(I32X4, Half::High, false);

        visit_i16x8_extadd_pairwise_i8x16_s => t.ext_add_pairwise(I8X16, true);
        visit_i16x8_extadd_pairwise_i8x16_u => t.ext_add_pairwise(I8X16, false);
        visit_i32x4_extadd_pairwise_i16x8_s => t.ext_add_pairwise(I16X8, true);
        visit_i32x4_extadd_pairwise_i16x8_u => t.ext_add_pairwise(I16X8, false);
        visit_i32x4_dot_i16x8_s => t.v_binary(I16X8, conversions::dot);

        visit_i32x4_trunc_sat_f32x4_s => t.v_unary(F32X4, |b, x| b.ins().fcvt_to_sint_sat(I32X4, x));
        visit_i32x4_trunc_sat_f32x4_u => t.v_unary(F32X4, |b, x| b.ins().fcvt_to_uint_sat(I32X4, x));
        visit_i32x4_trunc_sat_f64x2_s_zero => t.trunc_sat_f64x2_zero(true);
        visit_i32x4_trunc_sat_f64x2_u_zero => t.trunc_sat_f64x2_zero(false);
        visit_f32x4_convert_i32x4_s => t.v_unary(I32X4, |b, x| b.ins().fcvt_from_sint(F32X4, x));
        visit_f32x4_convert_i32x4_u => t.v_unary(I32X4, |b, x| b.ins().fcvt_from_uint(F32X4, x));
        visit_f64x2_convert_low_i32x4_s => t.convert_low(true);
        visit_f64x2_convert_low_i32x4_u => t.convert_low(false);
        visit_f32x4_demote_f64x2_zero => t.v_unary(F64X2, |b, x| b.ins().fvdemote(x));
        visit_f64x2_promote_low_f32x4 => t.v_unary(F32X4, |b, x| b.ins().fvpromote_low(x));

        // relaxed.rs
        visit_i8x16_relaxed_swizzle => t.v_binary(I8X16, |b, x, y| b.ins().swizzle(x, y));
        visit_i32x4_relaxed_trunc_f32x4_s => t.v_unary(F32X4, |b, x| b.ins().fcvt_to_sint_sat(I32X4, x));
        visit_i32x4_relaxed_trunc_f32x4_u => t.v_unary(F32X4, |b, x| b.ins().fcvt_to_uint_sat(I32X4, x));
        visit_i32x4_relaxed_trunc_f64x2_s_zero => t.trunc_sat_f64x2_zero(true);
        visit_i32x4_relaxed_trunc_f64x2_u_zero => t.trunc_sat_f64x2_zero(false);

        visit_f32x4_relaxed_madd => t.multiply_add(F32X4, false);
        visit_f64x2_relaxed_madd => t.multiply_add(F64X2, false);
        visit_f32x4_relaxed_nmadd => t.multiply_add(F32X4, true);
        visit_f64x2_relaxed_nmadd => t.multiply_add(F64X2, true);

        visit_i8x16_relaxed_laneselect => t.laneselect(I8X16);
        visit_i16x8_relaxed_laneselect => t.laneselect(I16X8);
        visit_i32x4_relaxed_laneselect => t.laneselect(I32X4);
        visit_i64x2_relaxed_laneselect => t.laneselect(I64X2);

        visit_f32x4_relaxed_min => t.v_binary(F32X4, |b, x, y| b.ins().fmin(x, y));
        visit_f64x2_relaxed_min => t.v_binary(F64X2, |b, x, y| b.ins().fmin(x, y));
        visit_f32x4_relaxed_max => t.v_binary(F32X4, |b, x, y| b.ins().fmax(x, y));
        visit_f64x2_relaxed_max => t.v_binary(F64X2, |b, x, y| b.ins().fmax(x, y));

        visit_i16x8_relaxed_q15mulr_s => t.v_binary(I16X8, |b, x, y| b.ins().sqmul_round_sat(x, y));
        visit_i16x8_relaxed_dot_i8x16_i7x16_s => t.v_binary(I8X16, relaxed::dot_i8_saturating);
        visit_i32x4_relaxed_dot_i8x16_i7x16_add_s => t.relaxed_dot_add();
    }
}
