//! gemmlowp's fixed-point arithmetic on `int32`, as TFLM's reference kernels use it.
//!
//! Mirrors `fixedpoint/fixedpoint.h` of google/gemmlowp (the copy TFLM builds with), scalar
//! `int32` only. gemmlowp's `FixedPoint<int32_t, IntegerBits>` is represented here by its raw
//! `i32` and the number of integer bits passed explicitly: a value with `m` integer bits has
//! `31 - m` fractional bits. Plain `+`/`-` of fixed-point values wrap, as the C++ code does on
//! every target TFLM runs on; the multiplies saturate exactly where gemmlowp's do.

/// `SaturatingRoundingDoublingHighMul` (ARM `VQRDMULH`): `(a * b * 2 + 2^31) >> 32`, rounding
/// half away from zero, saturating the single overflow case `MIN * MIN`.
#[inline]
pub fn saturating_rounding_doubling_high_mul(a: i32, b: i32) -> i32 {
    if a == b && a == i32::MIN {
        return i32::MAX;
    }
    // gemmlowp computes `(ab + nudge) / 2^31` truncating toward zero, with `nudge = 2^30` for
    // `ab >= 0` and `1 - 2^30` otherwise. For `ab < 0` the sum is negative, and truncating a
    // negative `n / 2^31` is flooring `(n + 2^31 - 1) / 2^31` = `(ab + 2^30) >> 31`; for
    // `ab >= 0` truncating is flooring too. So both signs are one arithmetic shift of
    // `ab + 2^30`: a 32x32->64 multiply, a 64-bit add and a shift, no branch on the sign
    // (exactly the same results; `tests::high_mul_matches_gemmlowp`).
    ((i64::from(a) * i64::from(b) + (1 << 30)) >> 31) as i32
}

/// `RoundingDivideByPOT`: `x / 2^exponent` rounded to nearest, ties away from zero
/// (`0 <= exponent <= 31`).
#[inline]
pub fn rounding_divide_by_pot(x: i32, exponent: u32) -> i32 {
    debug_assert!(exponent <= 31);
    // (1 << exponent) - 1 in 32 bits (no 64-bit shift on a 32-bit core); all ones past 31.
    let mask = if exponent < 32 {
        (1u32 << exponent).wrapping_sub(1) as i32
    } else {
        -1
    };
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> exponent) + i32::from(remainder > threshold)
}

/// `SaturatingRoundingMultiplyByPOT<exponent>`: a saturating left shift for a positive
/// exponent, [`rounding_divide_by_pot`] for a negative one.
#[inline]
pub fn saturating_rounding_multiply_by_pot(x: i32, exponent: i32) -> i32 {
    if exponent > 0 {
        let threshold: i32 = (1i32 << (31 - exponent)) - 1;
        if x > threshold {
            i32::MAX
        } else if x < -threshold {
            i32::MIN
        } else {
            x << exponent
        }
    } else if exponent < 0 {
        rounding_divide_by_pot(x, exponent.unsigned_abs())
    } else {
        x
    }
}

/// `Rescale<dst_integer_bits>` of a value with `src_integer_bits`.
#[inline]
pub fn rescale(x: i32, src_integer_bits: i32, dst_integer_bits: i32) -> i32 {
    saturating_rounding_multiply_by_pot(x, src_integer_bits - dst_integer_bits)
}

/// `RoundingHalfSum` for `int32`: `(a + b) / 2`, rounding half away from zero, in 64 bits.
#[inline]
pub fn rounding_half_sum(a: i32, b: i32) -> i32 {
    let sum = i64::from(a) + i64::from(b);
    let sign = if sum >= 0 { 1 } else { -1 };
    ((sum + sign) / 2) as i32
}

/// `FixedPoint<int32_t, 0>::One()`: the largest raw value (1.0 is not representable).
pub const ONE_Q0: i32 = i32::MAX;

/// `exp_on_interval_between_negative_one_quarter_and_0_excl` (Q0 in, Q0 out): a 4th-order
/// Taylor expansion of `exp` around -1/8.
pub fn exp_on_interval_between_negative_one_quarter_and_0_excl(a: i32) -> i32 {
    const CONSTANT_TERM: i32 = 1_895_147_668; // exp(-1/8)
    const CONSTANT_1_OVER_3: i32 = 715_827_883;
    let x = a.wrapping_add(1 << 28); // + 1/8 (ConstantPOT<-3>)
    let x2 = saturating_rounding_doubling_high_mul(x, x);
    let x3 = saturating_rounding_doubling_high_mul(x2, x);
    let x4 = saturating_rounding_doubling_high_mul(x2, x2);
    let x4_over_4 = saturating_rounding_multiply_by_pot(x4, -2);
    let sum = saturating_rounding_doubling_high_mul(x4_over_4.wrapping_add(x3), CONSTANT_1_OVER_3)
        .wrapping_add(x2);
    let x4_over_24_plus_x3_over_6_plus_x2_over_2 = saturating_rounding_multiply_by_pot(sum, -1);
    CONSTANT_TERM.wrapping_add(saturating_rounding_doubling_high_mul(
        CONSTANT_TERM,
        x.wrapping_add(x4_over_24_plus_x3_over_6_plus_x2_over_2),
    ))
}

/// `exp_on_negative_values`: `exp(a)` for `a <= 0` with `integer_bits` integer bits, result in
/// Q0 (raw `i32::MAX` for 1.0).
pub fn exp_on_negative_values(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        // What the end below makes of it, without the work before (a SOFTMAX row's
        // maximum: one exponential a row saved, ~100 instructions on the M4).
        return ONE_Q0;
    }
    let fractional_bits = 31 - integer_bits;
    let one_quarter: i32 = 1 << (fractional_bits - 2);
    let mask = one_quarter - 1;
    let a_mod_quarter_minus_one_quarter = (a & mask).wrapping_sub(one_quarter);
    let mut result = exp_on_interval_between_negative_one_quarter_and_0_excl(rescale(
        a_mod_quarter_minus_one_quarter,
        integer_bits,
        0,
    ));
    let remainder = a_mod_quarter_minus_one_quarter.wrapping_sub(a);

    // The barrel shifter: exp(-2^k) for every bit of the remainder.
    const BARREL: [(i32, i32); 7] = [
        (-2, 1_672_461_947), // exp(-1/4)
        (-1, 1_302_514_674), // exp(-1/2)
        (0, 790_015_084),    // exp(-1)
        (1, 290_630_308),    // exp(-2)
        (2, 39_332_535),     // exp(-4)
        (3, 720_401),        // exp(-8)
        (4, 242),            // exp(-16)
    ];
    for (exponent, multiplier) in BARREL {
        if integer_bits > exponent {
            let shift = fractional_bits + exponent;
            if remainder & (1i32 << shift) != 0 {
                result = saturating_rounding_doubling_high_mul(result, multiplier);
            }
        }
    }

    if integer_bits > 5 {
        let clamp = -(1i32 << (36 - integer_bits)); // -32.0
        if a < clamp {
            result = 0;
        }
    }
    if a == 0 {
        result = ONE_Q0;
    }
    result
}

/// The Newton-Raphson reciprocal both divisions below share: `1 / (1 + a)` of `a` in Q0 (in
/// [0, 1)), three iterations, in Q2 (gemmlowp's body of `one_over_one_plus_x_for_x_in_0_1`).
fn reciprocal_one_plus_x_q2(a: i32) -> i32 {
    const CONSTANT_48_OVER_17: i32 = 1_515_870_810; // Q2
    const CONSTANT_NEG_32_OVER_17: i32 = -1_010_580_540; // Q2
    const ONE_Q2: i32 = 1 << 29;
    let half_denominator = rounding_half_sum(a, ONE_Q0);
    let mut x = CONSTANT_48_OVER_17.wrapping_add(saturating_rounding_doubling_high_mul(
        half_denominator,
        CONSTANT_NEG_32_OVER_17,
    ));
    for _ in 0..3 {
        let half_denominator_times_x = saturating_rounding_doubling_high_mul(half_denominator, x);
        let one_minus_half_denominator_times_x = ONE_Q2.wrapping_sub(half_denominator_times_x);
        // x * (1 - d*x) is Q4; Rescale<2> brings it back to Q2.
        x = x.wrapping_add(rescale(
            saturating_rounding_doubling_high_mul(x, one_minus_half_denominator_times_x),
            4,
            2,
        ));
    }
    x
}

/// `one_over_one_plus_x_for_x_in_0_1` (Q0 in, Q0 out): Newton-Raphson division, three
/// iterations, in Q2.
pub fn one_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    // ExactMulByPot<-1> makes x a Q1 value; Rescale<0> from Q1.
    rescale(reciprocal_one_plus_x_q2(a), 1, 0)
}

/// gemmlowp's `one_minus_x_over_one_plus_x_for_x_in_0_1` (Q0 in, Q0 out): the same division
/// (`x` the half reciprocal in Q2), then `x − 1` rescaled to Q0.
pub fn one_minus_x_over_one_plus_x_for_x_in_0_1(a: i32) -> i32 {
    const ONE_Q2: i32 = 1 << 29;
    rescale(reciprocal_one_plus_x_q2(a).wrapping_sub(ONE_Q2), 2, 0)
}

/// gemmlowp's `logistic` for a value with `integer_bits` integer bits, result in Q0.
pub fn logistic(a: i32, integer_bits: i32) -> i32 {
    if a == 0 {
        return 1 << 30; // 0.5
    }
    let positive = a > 0;
    let abs_input = if positive { a } else { a.wrapping_neg() };
    let result_if_positive = one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(
        abs_input.wrapping_neg(),
        integer_bits,
    ));
    if positive {
        result_if_positive
    } else {
        ONE_Q0.wrapping_sub(result_if_positive)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// gemmlowp's formula as written there (sign-dependent nudge, division truncating toward
    /// zero), against [`saturating_rounding_doubling_high_mul`]'s single shift.
    #[test]
    fn high_mul_matches_gemmlowp() {
        fn gemmlowp(a: i32, b: i32) -> i32 {
            if a == b && a == i32::MIN {
                return i32::MAX;
            }
            let ab = i64::from(a) * i64::from(b);
            let nudge: i64 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
            ((ab + nudge) / (1i64 << 31)) as i32
        }
        let edges = [
            i32::MIN,
            i32::MIN + 1,
            -(1 << 30) - 1,
            -(1 << 30),
            -(1 << 30) + 1,
            -3,
            -2,
            -1,
            0,
            1,
            2,
            3,
            (1 << 30) - 1,
            1 << 30,
            (1 << 30) + 1,
            i32::MAX - 1,
            i32::MAX,
        ];
        for &a in &edges {
            for &b in &edges {
                assert_eq!(saturating_rounding_doubling_high_mul(a, b), gemmlowp(a, b));
            }
        }
        // Products on both sides of every rounding tie, and a pseudo-random sweep.
        let mut x: u32 = 0x1234_5678;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let a = x as i32 >> (i % 24);
            let b = (x.rotate_left(11) as i32) | (1 << 30);
            for (a, b) in [
                (a, b),
                (a, b.wrapping_neg()),
                (a.wrapping_neg(), b),
                (a, 1 << (i % 31)),
                (a.wrapping_neg(), 1 << (i % 31)),
            ] {
                assert_eq!(
                    saturating_rounding_doubling_high_mul(a, b),
                    gemmlowp(a, b),
                    "{a} {b}"
                );
            }
        }
    }

    fn to_f64(raw: i32, integer_bits: i32) -> f64 {
        f64::from(raw) / (1u64 << (31 - integer_bits)) as f64
    }

    #[test]
    fn rounding_divide_ties_away_from_zero() {
        assert_eq!(rounding_divide_by_pot(5, 1), 3);
        assert_eq!(rounding_divide_by_pot(-5, 1), -3);
        assert_eq!(rounding_divide_by_pot(4, 1), 2);
        assert_eq!(rounding_divide_by_pot(-4, 3), -1);
        assert_eq!(rounding_divide_by_pot(-3, 3), 0);
        assert_eq!(rounding_divide_by_pot(i32::MIN, 31), -1);
        assert_eq!(rounding_divide_by_pot(i32::MAX, 31), 1);
    }

    #[test]
    fn high_mul_saturates_once() {
        assert_eq!(
            saturating_rounding_doubling_high_mul(i32::MIN, i32::MIN),
            i32::MAX
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(1 << 30, 1 << 30),
            1 << 29
        );
        assert_eq!(
            saturating_rounding_doubling_high_mul(-(1 << 30), 1 << 30),
            -(1 << 29)
        );
    }

    #[test]
    fn exp_is_close_to_exp() {
        for k in 0..=64 {
            let x = -(k as f64) / 4.0;
            let raw = (x * (1u64 << 26) as f64) as i32; // Q5.26
            let got = to_f64(exp_on_negative_values(raw, 5), 0);
            let want = libm_exp(x);
            assert!((got - want).abs() < 2e-6, "exp({x}) = {got}, want {want}");
        }
    }

    #[test]
    fn reciprocal_is_close() {
        for k in 0..100 {
            let x = k as f64 / 100.0;
            let raw = (x * (1u64 << 31) as f64) as i32;
            let got = to_f64(one_over_one_plus_x_for_x_in_0_1(raw), 0);
            assert!((got - 1.0 / (1.0 + x)).abs() < 1e-7, "1/(1+{x}) = {got}");
        }
    }

    #[test]
    fn logistic_is_close() {
        for k in -60..=60 {
            let x = k as f64 / 8.0;
            let raw = (x * (1u64 << 27) as f64) as i32; // Q4.27
            let got = to_f64(logistic(raw, 4), 0);
            let want = 1.0 / (1.0 + libm_exp(-x));
            assert!(
                (got - want).abs() < 1e-6,
                "logistic({x}) = {got}, want {want}"
            );
        }
    }

    /// exp by its series, good enough for the closeness checks above (no std in this crate).
    fn libm_exp(x: f64) -> f64 {
        let (mut n, mut y) = (0, x);
        while y < -0.5 {
            y /= 2.0;
            n += 1;
        }
        let (mut term, mut sum) = (1.0, 1.0);
        for i in 1..30 {
            term *= y / i as f64;
            sum += term;
        }
        for _ in 0..n {
            sum *= sum;
        }
        sum
    }
}
