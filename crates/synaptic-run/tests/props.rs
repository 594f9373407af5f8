//! Property tests of the no_std float helpers against the standard library (the multiplier
//! derivation must be exact, so `frexp`/`round`/`floor` must equal libm's), and of the integer
//! math against wide-integer definitions.

use proptest::prelude::*;
use synaptic_run::fixedpoint::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};
use synaptic_run::math::{
    floor_f64, frexp, multiply_by_quantized_multiplier, quantize_multiplier, round_f32, round_f64,
    trunc_f64,
};

fn any_finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>()
            .prop_map(f64::from_bits)
            .prop_filter("finite", |x| x.is_finite()),
        (-1e6f64..1e6),
        (-4i64..4).prop_map(|k| k as f64 + 0.5),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn round_trunc_floor_match_std(x in any_finite_f64()) {
        prop_assert_eq!(round_f64(x).to_bits(), x.round().to_bits());
        prop_assert_eq!(trunc_f64(x).to_bits(), x.trunc().to_bits());
        prop_assert_eq!(floor_f64(x).to_bits(), x.floor().to_bits());
    }

    #[test]
    fn round_f32_matches_std(bits in any::<u32>()) {
        let x = f32::from_bits(bits);
        prop_assume!(x.is_finite());
        prop_assert_eq!(round_f32(x).to_bits(), x.round().to_bits());
    }

    #[test]
    fn frexp_reconstructs(x in any_finite_f64()) {
        prop_assume!(x != 0.0);
        let (m, e) = frexp(x);
        prop_assert!((0.5..1.0).contains(&m.abs()));
        // m * 2^e == x, computed in two exact steps to stay clear of overflow/underflow.
        let half = e / 2;
        prop_assert_eq!(m * 2f64.powi(half) * 2f64.powi(e - half), x);
    }

    #[test]
    fn quantized_multiplier_is_within_half_a_unit(real in 1e-9f64..1e9) {
        let (m, s) = quantize_multiplier(real);
        prop_assert!((1 << 30..=i32::MAX).contains(&m));
        let back = m as f64 * 2f64.powi(s - 31);
        prop_assert!((back - real).abs() <= 2f64.powi(s - 32) * 1.0000001);
    }

    #[test]
    fn high_mul_is_rounded_product(a in any::<i32>(), b in any::<i32>()) {
        let got = saturating_rounding_doubling_high_mul(a, b);
        if a == i32::MIN && b == i32::MIN {
            prop_assert_eq!(got, i32::MAX);
        } else {
            // (2ab + 2^31) >> 32 with round-half-away-from-zero on the magnitude's sign.
            let ab = a as i128 * b as i128;
            let nudge: i128 = if ab >= 0 { 1 << 30 } else { 1 - (1 << 30) };
            prop_assert_eq!(got as i128, (ab + nudge) / (1i128 << 31));
        }
    }

    #[test]
    fn rounding_divide_is_nearest_ties_away(x in any::<i32>(), e in 0u32..32) {
        let got = rounding_divide_by_pot(x, e) as i128;
        let exact = x as f64 / 2f64.powi(e as i32);
        prop_assert_eq!(got as f64, exact.round());
    }

    #[test]
    fn requantization_is_close_to_real(x in -(1i32 << 20)..(1 << 20), real in 1e-4f64..0.99) {
        let (m, s) = quantize_multiplier(real);
        let got = multiply_by_quantized_multiplier(x, m, s) as f64;
        prop_assert!((got - x as f64 * real).abs() <= 1.0, "{} vs {}", got, x as f64 * real);
    }
}
