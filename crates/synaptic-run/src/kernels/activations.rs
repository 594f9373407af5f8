//! SOFTMAX and LOGISTIC, int8, in TFLM's fixed-point arithmetic.
//!
//! SOFTMAX mirrors `reference_ops::Softmax<int8_t, int8_t>` (`kernels/internal/reference/
//! softmax.h`) prepared by `CalculateSoftmaxParams` (`micro/kernels/softmax_common.cc`): the
//! input difference to the row maximum is scaled by `PreprocessSoftmaxScaling(beta,
//! input_scale, 5)` into Q5.26, exponentiated with gemmlowp's `exp_on_negative_values`, summed
//! in Q12.19, inverted with `GetReciprocal`; differences below `-CalculateInputRadius(5, shift)`
//! contribute nothing and output -128. TFLM requires an int8 output of zero point -128 and
//! scale exactly 1/256.
//!
//! LOGISTIC mirrors `reference_integer_ops::Logistic(int8)` prepared by
//! `CalculateArithmeticOpDataLogistic` (`micro/kernels/logistic_common.cc`): the input is
//! scaled into Q4.27 (`frexp` of `input_scale * 2^27`, with no renormalisation of a mantissa
//! that rounds to 2^31, exactly as TFLM), saturated beyond the input radius, and gemmlowp's
//! `logistic` gives a Q0 result scaled to 1/256 with zero point -128.

use super::size;
use crate::error::KernelError;
use crate::fixedpoint::{exp_on_negative_values, logistic as fp_logistic, rescale};
use crate::fixedpoint::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};
use crate::math::{calculate_input_radius, frexp, get_reciprocal, int8_zero_point, round_f64};
use crate::math::{
    multiply_by_quantized_multiplier, multiply_by_quantized_multiplier_greater_than_one,
    preprocess_softmax_scaling, QuantParams,
};

const SCALED_DIFF_INTEGER_BITS: i32 = 5;
const ACCUMULATION_INTEGER_BITS: i32 = 12;

/// A prepared int8 SOFTMAX: made only by [`SoftmaxParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoftmaxParams {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Row length (the last dimension).
    pub(crate) depth: usize,
    /// Q31 multiplier of the input difference (beta × input scale).
    pub(crate) input_multiplier: i32,
    /// Its left shift.
    pub(crate) input_left_shift: i32,
    /// Differences below this are treated as minus infinity.
    pub(crate) diff_min: i32,
}

impl SoftmaxParams {
    /// Prepares SOFTMAX with option `beta` over the last dimension of `shape`.
    pub fn new(
        beta: f32,
        shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        let Some(&depth) = shape.last() else {
            return Err(KernelError::shape(
                OP,
                "input must have at least 1 dimension",
            ));
        };
        if output.zero_point != -128 {
            return Err(KernelError::unsupported(
                OP,
                "int8 output zero point must be -128",
            ));
        }
        if output.scale != 1.0 / 256.0 {
            return Err(KernelError::unsupported(
                OP,
                "int8 output scale must be 1/256",
            ));
        }
        let (input_multiplier, input_left_shift) = preprocess_softmax_scaling(
            OP,
            f64::from(beta),
            f64::from(input.scale),
            SCALED_DIFF_INTEGER_BITS,
        )?;
        let radius = calculate_input_radius(SCALED_DIFF_INTEGER_BITS, input_left_shift, 31).ok_or(
            KernelError::unsupported(OP, "input scaling shift out of range"),
        )?;
        let flat = size(OP, shape)?;
        Ok(SoftmaxParams {
            outer: flat.checked_div(depth).unwrap_or(0),
            depth,
            input_multiplier,
            input_left_shift,
            diff_min: -radius,
        })
    }
}

/// SOFTMAX, int8 in, int8 out.
pub fn softmax(p: &SoftmaxParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    const OP: &str = "SOFTMAX";
    KernelError::check_len(OP, "input", p.outer * p.depth, input.len())?;
    KernelError::check_len(OP, "output", p.outer * p.depth, output.len())?;
    for (row, out) in input
        .chunks_exact(p.depth.max(1))
        .zip(output.chunks_exact_mut(p.depth.max(1)))
    {
        let r = softmax_row(p, row.iter().copied())?;
        for (&x, o) in row.iter().zip(out.iter_mut()) {
            *o = softmax_value(p, &r, x);
        }
    }
    Ok(())
}

/// What one SOFTMAX row's outputs need: the row maximum, the reciprocal of the sum of
/// exponentials and its exponent (shared with [`super::overlapped`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SoftmaxRow {
    max: i8,
    shifted_scale: i32,
    exponent: u32,
}

fn softmax_scaled(p: &SoftmaxParams, max: i8, x: i8) -> Option<i32> {
    let diff = i32::from(x) - i32::from(max);
    (diff >= p.diff_min).then(|| {
        multiply_by_quantized_multiplier_greater_than_one(
            diff,
            p.input_multiplier,
            p.input_left_shift,
        )
    })
}

/// The two passes over a row before any of its outputs: maximum, then sum of exponentials.
pub(crate) fn softmax_row(
    p: &SoftmaxParams,
    row: impl Iterator<Item = i8> + Clone,
) -> Result<SoftmaxRow, KernelError> {
    let max = row.clone().max().unwrap_or(i8::MIN);
    let mut sum_of_exps: i32 = 0; // Q12.19
    for x in row {
        if let Some(d) = softmax_scaled(p, max, x) {
            let e = exp_on_negative_values(d, SCALED_DIFF_INTEGER_BITS);
            sum_of_exps = sum_of_exps.wrapping_add(rescale(e, 0, ACCUMULATION_INTEGER_BITS));
        }
    }
    let (shifted_scale, num_bits_over_unit) =
        get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
    let exponent = num_bits_over_unit + 31 - 8;
    if !(0..=31).contains(&exponent) {
        return Err(KernelError::shape(
            "SOFTMAX",
            "sum of exponentials out of range",
        ));
    }
    Ok(SoftmaxRow {
        max,
        shifted_scale,
        exponent: exponent as u32,
    })
}

/// One SOFTMAX output of row `r` for input `x`.
#[inline]
pub(crate) fn softmax_value(p: &SoftmaxParams, r: &SoftmaxRow, x: i8) -> i8 {
    match softmax_scaled(p, r.max, x) {
        Some(d) => {
            let e = exp_on_negative_values(d, SCALED_DIFF_INTEGER_BITS);
            let unsat = rounding_divide_by_pot(
                saturating_rounding_doubling_high_mul(r.shifted_scale, e),
                r.exponent,
            );
            unsat.wrapping_add(-128).clamp(-128, 127) as i8
        }
        None => i8::MIN,
    }
}

/// A prepared int8 LOGISTIC: made only by [`LogisticParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogisticParams {
    /// Input zero point.
    pub(crate) input_zero_point: i32,
    /// Inputs at or beyond ± this saturate.
    pub(crate) input_range_radius: i32,
    /// Q31 multiplier into Q4.27.
    pub(crate) input_multiplier: i32,
    /// Its shift.
    pub(crate) input_left_shift: i32,
}

impl LogisticParams {
    /// Prepares LOGISTIC; TFLM requires the int8 output zero point to be -128 (and assumes
    /// scale 1/256).
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        const OP: &str = "LOGISTIC";
        const INPUT_INTEGER_BITS: i32 = 4;
        if output.zero_point != -128 {
            return Err(KernelError::unsupported(
                OP,
                "int8 output zero point must be -128",
            ));
        }
        let input_zero_point = int8_zero_point(OP, input)?;
        let real = f64::from(input.scale) * f64::from(1i32 << (31 - INPUT_INTEGER_BITS));
        let (q, shift) = frexp(real);
        // static_cast<int32_t>(TfLiteRound(q * 2^31)): no renormalisation here.
        let multiplier = round_f64(q * (1u64 << 31) as f64) as i64 as i32;
        // TFLM's `1LL << input_left_shift` is defined for 0..=62 only (an input scale of
        // 2^-28 or more and below 2^35).
        let radius = calculate_input_radius(INPUT_INTEGER_BITS, shift, 31)
            .filter(|_| real.is_finite() && real > 0.0)
            .ok_or(KernelError::unsupported(OP, "input scale out of range"))?;
        Ok(LogisticParams {
            input_zero_point,
            input_range_radius: radius,
            input_multiplier: multiplier,
            input_left_shift: shift,
        })
    }
}

/// LOGISTIC, int8 in, int8 out (`scale 1/256, zero point -128`).
pub fn logistic(p: &LogisticParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    KernelError::check_len("LOGISTIC", "output", input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = logistic_value(p, x);
    }
    Ok(())
}

// The program's word codec of each prepared struct (`crate::program::codec`).
crate::program::codec::words!(SoftmaxParams {
    outer: usize,
    depth: usize,
    input_multiplier: i32,
    input_left_shift: i32,
    diff_min: i32,
});

crate::program::codec::words!(LogisticParams {
    input_zero_point: i32,
    input_range_radius: i32,
    input_multiplier: i32,
    input_left_shift: i32,
});

/// One LOGISTIC output (shared with [`super::overlapped`]).
#[inline]
pub(crate) fn logistic_value(p: &LogisticParams, x: i8) -> i8 {
    let v = i32::from(x) - p.input_zero_point;
    if v <= -p.input_range_radius {
        i8::MIN
    } else if v >= p.input_range_radius {
        i8::MAX
    } else {
        let in_q4 = multiply_by_quantized_multiplier(v, p.input_multiplier, p.input_left_shift);
        let out_q0 = fp_logistic(in_q4, 4);
        let out = rounding_divide_by_pot(out_q0, 31 - 8);
        (out - 128).clamp(-128, 127) as i8
    }
}
