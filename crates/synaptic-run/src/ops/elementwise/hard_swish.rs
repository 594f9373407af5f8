//! HARD_SWISH (int8, float32): TFLM's `micro/kernels/hard_swish.cc` and
//! `hard_swish_common.cc`, `reference_ops::HardSwish`.
//!
//! - float32: `x · min(6, max(0, x + 3)) / 6` in single precision, in that order (C++'s
//!   `std::max(0, NaN)` is 0).
//! - int8: TFLM's 16-bit fixed-point path exactly: the input minus its zero point on a
//!   "hi-res" scale (`· 2^7`), its value on the output scale by gemmlowp's 16-bit
//!   `SaturatingRoundingDoublingHighMul` ([`srdhm_i16`]), the "relu-ish" factor in `[0, 1]`
//!   from a second multiplier with TFLM's saturating shifts, their product by the
//!   truncating `SaturatingDoublingHighMul`, gemmlowp's `RoundingDivideByPOT` on `int16`
//!   ([`rounding_divide_by_pot_i16`]), the output zero point added in `int16`, clamped to
//!   int8. The two multipliers are `QuantizeMultiplier` of `double(input_scale / 128 /
//!   output_scale)` and of `double(input_scale / 128 / (3 / 32768))` (float quotients first,
//!   as TFLM), each rounded to 16 bits by `DownScaleInt32ToInt16Multiplier`.
//!
//! Refused at load, where TFLM asserts or its arithmetic is undefined: zero points outside
//! int8, a negative or non-finite multiplier, an output multiplier of 1 or more (TFLM's
//! `output_multiplier_exponent <= 0`), and a relu-ish exponent outside `[-31, 31]`
//! (gemmlowp's shift bound). Both kernels are element-wise (in place).

use synaptic_tflite::code;

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::{int8_zero_point, quantize_multiplier, QuantParams};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::HARD_SWISH];

const OP: &str = "HARD_SWISH";

/// gemmlowp's `SaturatingRoundingDoublingHighMul` on `int16`: `(a·b + nudge) / 2^15`
/// truncated (`nudge` `2^14`, or `1 − 2^14` for a negative product), `MIN · MIN` saturated.
#[inline]
pub fn srdhm_i16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    let ab = i32::from(a) * i32::from(b);
    let nudge = if ab >= 0 { 1 << 14 } else { 1 - (1 << 14) };
    ((ab + nudge) / (1 << 15)) as i16
}

/// `reference_ops::SaturatingDoublingHighMul`: `a·b / 2^15` truncated toward zero, `MIN · MIN`
/// saturated.
#[inline]
fn sdhm_i16(a: i16, b: i16) -> i16 {
    if a == b && a == i16::MIN {
        return i16::MAX;
    }
    ((i32::from(a) * i32::from(b)) / (1 << 15)) as i16
}

/// `reference_ops::SaturatingLeftShift`: `value · 2^amount` clamped to `int16`
/// (`0 <= amount <= 30`).
#[inline]
fn saturating_left_shift(value: i16, amount: i32) -> i16 {
    (i64::from(value) << amount.clamp(0, 30)).clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i16
}

/// gemmlowp's `RoundingDivideByPOT` instantiated on `int16` (`0 <= exponent <= 31`): its
/// mask, threshold and sums in `int16` as the template computes them (an exponent of 16 or
/// more truncates its mask to all ones).
#[inline]
pub fn rounding_divide_by_pot_i16(x: i16, exponent: i32) -> i16 {
    // (Prepared exponents are in range; any other is held there, never a shift overflow.)
    let exponent = exponent.clamp(0, 31);
    let mask = ((1i64 << exponent) - 1) as i16;
    let remainder = x & mask;
    let threshold = (mask >> 1).wrapping_add(i16::from(x < 0));
    ((i32::from(x) >> exponent) as i16).wrapping_add(i16::from(remainder > threshold))
}

/// `DownScaleInt32ToInt16Multiplier` of a non-negative Q31 multiplier.
fn down_scale(m: i32) -> i32 {
    const ROUNDING: i32 = 1 << 15;
    if m >= i32::MAX - ROUNDING {
        i32::from(i16::MAX)
    } else {
        (m + ROUNDING) >> 16
    }
}

/// A prepared int8 HARD_SWISH (TFLM's `HardSwishParams`): made only by
/// [`HardSwishParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HardSwishParams {
    /// Input zero point.
    pub(crate) input_zero_point: i32,
    /// Output zero point.
    pub(crate) output_zero_point: i32,
    /// The output multiplier, 16-bit.
    pub(crate) output_multiplier: i32,
    /// Its exponent (`-31..=0`).
    pub(crate) output_exponent: i32,
    /// The relu-ish multiplier, 16-bit.
    pub(crate) reluish_multiplier: i32,
    /// Its exponent (`-31..=31`).
    pub(crate) reluish_exponent: i32,
}

impl HardSwishParams {
    /// `HardSwishPrepare` for int8 input and output quantizations.
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        let input_zero_point = int8_zero_point(OP, input)?;
        let output_zero_point = int8_zero_point(OP, output)?;
        let hires_input_scale = (1.0f32 / 128.0) * input.scale;
        let reluish_scale = 3.0f32 / 32768.0;
        let reals = [
            f64::from(hires_input_scale / output.scale),
            f64::from(hires_input_scale / reluish_scale),
        ];
        if reals.iter().any(|r| !(r.is_finite() && *r >= 0.0)) {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        let (om, oe) = quantize_multiplier(reals[0]);
        let (rm, re) = quantize_multiplier(reals[1]);
        if !(-31..=0).contains(&oe) || !(-31..=31).contains(&re) {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        Ok(HardSwishParams {
            input_zero_point,
            output_zero_point,
            output_multiplier: down_scale(om),
            output_exponent: oe,
            reluish_multiplier: down_scale(rm),
            reluish_exponent: re,
        })
    }

    /// One output value (`reference_ops::HardSwish<int8_t>`).
    #[inline]
    fn value(&self, x: i8) -> i8 {
        let input_value = (i32::from(x) - self.input_zero_point) as i16;
        let hires = input_value.wrapping_mul(1 << 7);
        let preshift_output = srdhm_i16(hires, self.output_multiplier as i16);
        let mut reluish = hires;
        let e = self.reluish_exponent;
        if e > 0 {
            reluish = saturating_left_shift(reluish, e - 1);
        }
        reluish = srdhm_i16(reluish, self.reluish_multiplier as i16);
        if e > 0 {
            reluish = saturating_left_shift(reluish, 1);
        }
        if e < 0 {
            reluish = rounding_divide_by_pot_i16(reluish, -e);
        }
        let reluish = ((i32::from(reluish) + (1 << 15)) >> 1) as i16;
        let preshift_output_value = sdhm_i16(reluish, preshift_output);
        let out = rounding_divide_by_pot_i16(preshift_output_value, -self.output_exponent);
        let out = (i32::from(out) + self.output_zero_point) as i16;
        out.clamp(-128, 127) as i8
    }
}

i8_unary_kernel!("HARD_SWISH", HardSwish, HardSwishParams);

/// One float32 HARD_SWISH output (`reference_ops::HardSwish<float>`).
#[inline]
pub fn hard_swish_f32_value(x: f32) -> f32 {
    let y = x + 3.0;
    // std::max(0, y): `0 < y ? y : 0`; std::min(6, m): `m < 6 ? m : 6`.
    let m = if 0.0 < y { y } else { 0.0 };
    let m = if m < 6.0 { m } else { 6.0 };
    x * m / 6.0
}

f32_unary_kernel!("HARD_SWISH", HardSwishF32, hard_swish_f32_value);

/// Prepares HARD_SWISH: input and output of one type (int8 or float32) and size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, out, float) = cx.unary_int8_or_f32()?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if float {
        return Prepared::of::<HardSwishF32>(cx, ());
    }
    cx.quantized(&[&x, &out])?;
    Prepared::of::<HardSwish>(cx, HardSwishParams::new(x.q, out.q).map_err(|e| cx.err(e))?)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(HardSwishParams {
    input_zero_point: i32,
    output_zero_point: i32,
    output_multiplier: i32,
    output_exponent: i32,
    reluish_multiplier: i32,
    reluish_exponent: i32,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The int16 rounding division equals the exact rounding (ties away from zero) for
    /// shifts below 16, and the 16-bit products saturate only at `MIN · MIN`.
    #[test]
    fn int16_helpers() {
        for x in [-32768i16, -32767, -3, -2, -1, 0, 1, 2, 3, 100, 32767] {
            for e in 0..15 {
                let d = f64::from(x) / f64::from(1 << e);
                let want = if d >= 0.0 {
                    (d + 0.5).floor()
                } else {
                    -((-d) + 0.5).floor()
                };
                assert_eq!(f64::from(rounding_divide_by_pot_i16(x, e)), want, "{x} {e}");
            }
        }
        assert_eq!(srdhm_i16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(sdhm_i16(i16::MIN, i16::MIN), i16::MAX);
        assert_eq!(srdhm_i16(16384, 16384), 8192);
        assert_eq!(down_scale(i32::MAX), 32767);
        assert_eq!(down_scale(1 << 30), 16384);
    }

    /// The float kernel: 0 below −3, `x` above 3, NaN-free in between.
    #[test]
    fn float_values() {
        assert_eq!(hard_swish_f32_value(-4.0), -0.0);
        assert_eq!(hard_swish_f32_value(4.0), 4.0);
        assert_eq!(hard_swish_f32_value(0.0), 0.0);
        assert_eq!(hard_swish_f32_value(1.5), 1.5 * 4.5 / 6.0);
    }
}
