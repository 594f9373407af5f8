//! LOG_SOFTMAX (int8, float32): TFLM's `micro/kernels/log_softmax.cc`,
//! `reference_ops::LogSoftmax` over rows of the last dimension (input and output of one
//! shape).
//!
//! - float32: the row's maximum (`std::max` from `lowest()`), `sum = Σ exp(x − max)` in order
//!   (glibc's `expf`, [`expf`]), `log_sum = log(sum)` (glibc's `logf`, [`logf`]), each output
//!   `(x − max) − log_sum`; single precision.
//! - int8 (`LogSoftmaxQuantized`): the output's scale must be 16/256 and its zero point 127
//!   (TFLM's `TF_LITE_ENSURE`); `PreprocessLogSoftmaxScalingExp(1, input_scale, 5)` (the
//!   multiplier into Q5.26 as SOFTMAX's, and its reverse, refused unless that reverse is in
//!   `(0, 1)`: TFLM's `TFLITE_CHECK`); per row the sum of gemmlowp's `exp_on_negative_values`
//!   in Q12, TFLM's fixed-point `log_x_for_x_greater_than_or_equal_to_1` of it in Q5
//!   ([`log_x_ge_1`]), the adjusted cut-off, and each output
//!   `RoundingDivideByPOT(x_q5 − log_sum, 22) + 127` clamped (or −128 below the cut-off).
//!   Rows longer than 4096 are refused at load: TFLM's Q12 sum is only "safe from overflowing
//!   in 2^12 steps".
//!
//! The output may overlap the input (in place, forward): a row's first element reads the
//! whole row, the others their own element.

use synaptic_tflite::code;

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{
    exp_on_negative_values, one_over_one_plus_x_for_x_in_0_1, rescale, rounding_divide_by_pot,
    rounding_half_sum, saturating_rounding_doubling_high_mul as srdhm,
};
use crate::math::{
    calculate_input_radius, multiply_by_quantized_multiplier,
    quantize_multiplier_smaller_than_one_exp, softmax_scaling,
};
use crate::ops::float::{expf, logf, F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::LOG_SOFTMAX];

const OP: &str = "LOG_SOFTMAX";

/// The longest int8 row (TFLM's Q12 sum of exponentials holds 2^12 of them).
const MAX_DEPTH_I8: usize = 4096;

/// `SaturatingRoundingMultiplyByPOTParam` for `0 <= exponent <= 31` (a left shift that
/// saturates); any other exponent leaves `x` (never reached for a prepared operator).
fn srmbpot_param(x: i32, exponent: i32) -> i32 {
    if !(1..=31).contains(&exponent) {
        return x;
    }
    let threshold = (1i32 << (31 - exponent)) - 1;
    if x > threshold {
        i32::MAX
    } else if x < -threshold {
        i32::MIN
    } else {
        x.wrapping_shl(exponent as u32)
    }
}

/// TFLM's `log_x_for_x_greater_than_or_equal_to_1_impl<output_bits, input_bits>`
/// (`kernels/internal/common.h`): `log x` of a value with `input_bits` integer bits, with
/// `output_bits` integer bits, in its fixed-point order of operations.
pub fn log_x_ge_1(input: i32, input_bits: i32, output_bits: i32) -> i32 {
    const LOG_2: i32 = 1_488_522_236;
    const SQRT_SQRT_HALF: i32 = 1_805_811_301;
    const SQRT_HALF: i32 = 1_518_500_250;
    const ONE_QUARTER: i32 = 536_870_912;
    const ALPHA_N: i32 = 117_049_297;
    const ALPHA_D: i32 = 127_690_142;
    const ALPHA_I: i32 = 1_057_819_769;
    const ALPHA_F: i32 = 638_450_708;
    let accum_bits = output_bits + 1;
    let shifted_quarter = rescale(ONE_QUARTER, 0, accum_bits);
    let sat = |v: i64| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32;
    let z_a = input;
    let z_a_headroom_plus_1 = (z_a as u32).leading_zeros() as i32;
    let r_a_tmp = srmbpot_param(z_a, z_a_headroom_plus_1 - 1);
    let r_a_raw = srmbpot_param(srdhm(r_a_tmp, SQRT_HALF), 1);
    let z_a_pow_2_adj = sat(i64::from(srmbpot_param(
        input_bits - z_a_headroom_plus_1,
        31 - accum_bits,
    )) + i64::from(shifted_quarter));
    let z_b = srdhm(z_a, SQRT_HALF);
    let z_b_headroom = (z_b as u32).leading_zeros() as i32 - 1;
    let r_b_raw = srmbpot_param(z_a, z_b_headroom);
    let z_b_pow_2_adj = sat(
        i64::from(srmbpot_param(input_bits - z_b_headroom, 31 - accum_bits))
            - i64::from(shifted_quarter),
    );
    let r = r_a_raw.min(r_b_raw);
    let z_pow_2_adj = z_a_pow_2_adj.max(z_b_pow_2_adj);
    let p = rounding_half_sum(r, SQRT_SQRT_HALF);
    let q = r.wrapping_sub(SQRT_SQRT_HALF);
    let q = q.wrapping_add(q);
    let common_sq = srdhm(q, q);
    let num = srdhm(q, r).wrapping_add(srdhm(srdhm(q, common_sq), ALPHA_N));
    let denom_minus_one_0 = srdhm(
        p,
        ALPHA_I
            .wrapping_add(q)
            .wrapping_add(srdhm(ALPHA_D, common_sq)),
    )
    .wrapping_add(srdhm(ALPHA_F, q));
    let recip_denom = one_over_one_plus_x_for_x_in_0_1(denom_minus_one_0);
    let num_scaled = rescale(num, 0, accum_bits);
    rescale(
        srdhm(z_pow_2_adj, LOG_2).wrapping_add(srdhm(num_scaled, recip_denom)),
        accum_bits,
        output_bits,
    )
}

/// A prepared LOG_SOFTMAX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogSoftmaxParams {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Elements per row (the last dimension).
    pub(crate) depth: usize,
    /// float32 (else int8).
    pub(crate) float: bool,
    /// The multiplier into Q5.26 and its left shift (int8).
    pub(crate) input: [i32; 2],
    /// The reverse scaling divisor and its (left, non-positive) shift (int8).
    pub(crate) reverse: [i32; 2],
    /// The smallest difference from the row's maximum that counts (int8).
    pub(crate) diff_min: i32,
}

/// An int8 row's constants: its maximum, `log_sum_of_exps` in Q5 and the adjusted cut-off.
#[derive(Clone, Copy)]
struct RowI8 {
    max: i32,
    log_sum: i32,
    cut: i32,
}

impl LogSoftmaxParams {
    /// The difference `d` from the row's maximum in Q5.26.
    #[inline]
    fn q5(&self, d: i32) -> i32 {
        multiply_by_quantized_multiplier(d, self.input[0], self.input[1])
    }

    /// An int8 row's constants from its values (`row` twice: the maximum, then the sum).
    fn row_i8<I: Iterator<Item = i8>>(&self, row: impl Fn() -> I) -> RowI8 {
        let max = row().fold(i8::MIN, |m, x| m.max(x));
        let max = i32::from(max);
        let mut sum = 0i32;
        for x in row() {
            let d = i32::from(x) - max;
            if d >= self.diff_min {
                let e = exp_on_negative_values(self.q5(d), 5);
                sum = sum.wrapping_add(rescale(e, 0, 12));
            }
        }
        let log_sum = log_x_ge_1(sum, 12, 5);
        let shifted = log_sum.wrapping_add(i32::MIN);
        let cut = (self.diff_min - 1).max(multiply_by_quantized_multiplier(
            shifted,
            self.reverse[0],
            self.reverse[1],
        ));
        RowI8 { max, log_sum, cut }
    }

    /// One int8 output of a row.
    #[inline]
    fn value_i8(&self, r: &RowI8, x: i8) -> i8 {
        let d = i32::from(x) - r.max;
        if d > r.cut {
            let v = rounding_divide_by_pot(self.q5(d).wrapping_sub(r.log_sum), 31 - 5 - 4);
            v.wrapping_add(127).clamp(-128, 127) as i8
        } else {
            i8::MIN
        }
    }
}

/// A float row's maximum and `log(Σ exp(x − max))`.
fn row_f32<I: Iterator<Item = f32>>(row: impl Fn() -> I) -> (f32, f32) {
    let max = row().fold(f32::MIN, |m, x| if m < x { x } else { m });
    let mut sum = 0.0f32;
    for x in row() {
        sum += expf(x - max);
    }
    (max, logf(sum))
}

/// The access contract (rows of `depth`).
fn contract(p: &LogSoftmaxParams) -> Contract {
    Contract::row_then_element(p.outer, p.depth, if p.float { 4 } else { 1 })
}

/// The LOG_SOFTMAX kernel, int8 and float32.
pub struct LogSoftmax;

impl Kernel for LogSoftmax {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 1;
    type Params = LogSoftmaxParams;
    const FORWARD_ONLY: bool = true;

    fn run(p: &LogSoftmaxParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (d, n) = (p.depth.max(1), p.outer * p.depth);
        if crate::ops::float::BUILT && p.float {
            let x = io.f32(0)?;
            let out = io.out_f32()?;
            KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
                let (max, log_sum) = row_f32(|| xr.iter().copied());
                for (o, &v) in or.iter_mut().zip(xr) {
                    *o = v - max - log_sum;
                }
            }
        } else {
            let x = io.i8(0)?;
            let out = io.out_i8()?;
            KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
                let r = p.row_i8(|| xr.iter().copied());
                for (o, &v) in or.iter_mut().zip(xr) {
                    *o = p.value_i8(&r, v);
                }
            }
        }
        Ok(())
    }

    fn contract(p: &LogSoftmaxParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &LogSoftmaxParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let at = io.at;
        if at.direction == Direction::Backward {
            return Err(KernelError::unsupported(OP, Unsupported::BackwardExecution));
        }
        check(OP, || contract(p), io.buf, &at)?;
        let (d, n) = (p.depth.max(1), p.outer * p.depth);
        if crate::ops::float::BUILT && p.float {
            let mut row = (0.0f32, 0.0f32);
            drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
                let x = LeF32(&buf[at.input..]);
                if j % d == 0 {
                    row = row_f32(|| (j..j + d).map(|i| x.at(i)));
                }
                Ok((x.at(j) - row.0 - row.1).to_le_bytes())
            })?;
            Ok(4 * n)
        } else {
            let mut row = RowI8 {
                max: 0,
                log_sum: 0,
                cut: 0,
            };
            drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
                if j % d == 0 {
                    let s = at.input + j;
                    let r = &buf[s..s + d];
                    row = p.row_i8(|| r.iter().map(|&b| b as i8));
                }
                Ok([p.value_i8(&row, x8(buf, at.input, j)) as u8])
            })?;
            Ok(n)
        }
    }
}

/// Prepares LOG_SOFTMAX: input and output of one type (int8 or float32) and shape; int8's
/// output quantization TFLM's, its scaling.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, out, float) = cx.unary_int8_or_f32()?;
    if x.rank == 0 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    if x.shape() != out.shape() {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let depth = x.shape()[x.rank - 1];
    let mut p = LogSoftmaxParams {
        outer: x.shape()[..x.rank - 1].iter().product(),
        depth,
        float,
        input: [0; 2],
        reverse: [0; 2],
        diff_min: 0,
    };
    if !float {
        cx.quantized(&[&x, &out])?;
        if out.q.scale != 16.0 / 256.0 {
            return Err(cx.unsupported(Unsupported::OutputScale));
        }
        if out.q.zero_point != 127 {
            return Err(cx.unsupported(Unsupported::OutputZeroPoint(out.q.zero_point)));
        }
        if depth > MAX_DEPTH_I8 {
            return Err(cx.shape(ShapeFault::Overflow));
        }
        crate::math::int8_zero_point(OP, x.q).map_err(|e| cx.err(e))?;
        let (m, shift) = softmax_scaling(OP, 1.0, x.q.scale, 5).map_err(|e| cx.err(e))?;
        let real = f64::from(1i32 << (31 - shift)) / f64::from(m);
        let (rm, rs) = quantize_multiplier_smaller_than_one_exp(OP, real)
            .ok()
            .filter(|&(_, s)| s <= 0)
            .ok_or(cx.unsupported(Unsupported::Multiplier))?;
        let radius =
            calculate_input_radius(5, shift, 31).ok_or(cx.unsupported(Unsupported::InputScale))?;
        p.input = [m, shift];
        p.reverse = [rm, rs];
        p.diff_min = -radius;
    }
    Prepared::of::<LogSoftmax>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(LogSoftmaxParams {
    outer: usize,
    depth: usize,
    float: bool,
    input: [i32; 2],
    reverse: [i32; 2],
    diff_min: i32,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// The fixed-point log of Q12 values against `ln`: within 2^-20.
    #[test]
    fn log_x_ge_1_approximates_ln() {
        for k in 0..2000 {
            let raw = (1 << 19) + k * 1_000_003;
            let x = f64::from(raw) / f64::from(1 << 19);
            let got = f64::from(log_x_ge_1(raw, 12, 5)) / f64::from(1 << 26);
            assert!((got - x.ln()).abs() < 1e-6, "{x}: {got} {}", x.ln());
        }
    }
}
