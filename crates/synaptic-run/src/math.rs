//! The quantization math: multipliers from float scales, requantization, activation ranges.
//!
//! Mirrors `tensorflow/lite/kernels/internal/quantization_util.cc` (`QuantizeMultiplier`,
//! `PreprocessSoftmaxScaling`, `CalculateInputRadius`), `kernels/internal/common.{h,cc}`
//! (`MultiplyByQuantizedMultiplier` and its `SmallerThanOneExp` / `GreaterThanOne` forms,
//! `GetReciprocal`), `kernels/kernel_util.cc` (`CalculateActivationRangeQuantized`) and
//! `kernels/padding.h`. `frexp`, `round` and `floor` are implemented on the IEEE-754 bits
//! (`no_std` has no libm); they are exact, like the C library functions they replace.
//!
//! The multiplier derivation is the only place the kernels use floating point, in `f64` and in
//! TFLM's order of operations, because a different order can change the last bit of a
//! multiplier and so an output.

use crate::error::{KernelError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{
    one_over_one_plus_x_for_x_in_0_1, rounding_divide_by_pot, saturating_rounding_doubling_high_mul,
};

/// A tensor's per-tensor affine quantization: `real = scale * (q - zero_point)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantParams {
    /// The scale, as stored in the model (`float`).
    pub scale: f32,
    /// The zero point.
    pub zero_point: i32,
}

impl QuantParams {
    /// A quantization from its scale and zero point.
    pub const fn new(scale: f32, zero_point: i32) -> Self {
        QuantParams { scale, zero_point }
    }
}

/// The fused activation of an operator (TFLite `ActivationFunctionType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Activation {
    /// `NONE`
    None,
    /// `RELU`
    Relu,
    /// `RELU_N1_TO_1`
    ReluN1To1,
    /// `RELU6`
    Relu6,
}

impl Activation {
    /// From the schema's `ActivationFunctionType` value; `TANH` (4) and `SIGN_BIT` (5) are not
    /// supported as fused activations of quantized operators (TFLM refuses them too).
    pub fn from_tflite(op: &'static str, value: i8) -> Result<Self, KernelError> {
        match value {
            0 => Ok(Activation::None),
            1 => Ok(Activation::Relu),
            2 => Ok(Activation::ReluN1To1),
            3 => Ok(Activation::Relu6),
            _ => Err(KernelError::unsupported(
                op,
                Unsupported::FusedActivation(value),
            )),
        }
    }

    /// The schema's `ActivationFunctionType` value.
    pub(crate) const fn to_tflite(self) -> i8 {
        match self {
            Activation::None => 0,
            Activation::Relu => 1,
            Activation::ReluN1To1 => 2,
            Activation::Relu6 => 3,
        }
    }
}

/// The padding scheme of a convolution or pooling (TFLite `Padding`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padding {
    /// `SAME` (0): output size `ceil(in / stride)`, zero padding split with the extra cell after.
    Same,
    /// `VALID` (1): no padding.
    Valid,
}

impl Padding {
    /// From the schema's `Padding` value.
    pub fn from_tflite(op: &'static str, value: i8) -> Result<Self, KernelError> {
        match value {
            0 => Ok(Padding::Same),
            1 => Ok(Padding::Valid),
            _ => Err(KernelError::unsupported(op, Unsupported::Padding(value))),
        }
    }
}

/// `frexp`: `x = m * 2^e` with `0.5 <= |m| < 1`; `(x, 0)` for zero, infinities and NaN.
pub fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 || x.is_nan() || x.is_infinite() {
        return (x, 0);
    }
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    if biased == 0 {
        // Subnormal: scale by 2^64 (exact) and correct the exponent.
        let (m, e) = frexp(x * f64::from_bits(0x43f0_0000_0000_0000));
        return (m, e - 64);
    }
    let mantissa = (bits & !(0x7ffu64 << 52)) | (1022u64 << 52);
    (f64::from_bits(mantissa), biased - 1022)
}

/// `trunc` for `f64`, exact.
pub fn trunc_f64(x: f64) -> f64 {
    let bits = x.to_bits();
    let e = ((bits >> 52) & 0x7ff) as i32 - 1023;
    if e >= 52 {
        x // integral, infinite or NaN
    } else if e < 0 {
        f64::from_bits(bits & (1u64 << 63)) // ±0
    } else {
        f64::from_bits(bits & !((1u64 << (52 - e)) - 1))
    }
}

/// `std::round` for `f64` (`TfLiteRound(double)`): to nearest, ties away from zero, exact.
pub fn round_f64(x: f64) -> f64 {
    let t = trunc_f64(x);
    let frac = x - t; // exact
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// `std::floor` for `f64`, exact.
pub fn floor_f64(x: f64) -> f64 {
    let t = trunc_f64(x);
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `trunc` for `f32`, exact.
pub fn trunc_f32(x: f32) -> f32 {
    let bits = x.to_bits();
    let e = ((bits >> 23) & 0xff) as i32 - 127;
    if e >= 23 {
        x
    } else if e < 0 {
        f32::from_bits(bits & (1u32 << 31))
    } else {
        f32::from_bits(bits & !((1u32 << (23 - e)) - 1))
    }
}

/// `std::round` for `f32` (`TfLiteRound(float)`): to nearest, ties away from zero, exact.
pub fn round_f32(x: f32) -> f32 {
    let t = trunc_f32(x);
    let frac = x - t;
    if frac >= 0.5 {
        t + 1.0
    } else if frac <= -0.5 {
        t - 1.0
    } else {
        t
    }
}

/// `QuantizeMultiplier`: a real multiplier as a Q31 `multiplier` in `[2^30, 2^31)` (or 0) and
/// a power-of-two `shift` (positive: left), `real ≈ multiplier * 2^(shift - 31)`.
pub fn quantize_multiplier(real: f64) -> (i32, i32) {
    if real == 0.0 {
        return (0, 0);
    }
    let (q, mut shift) = frexp(real);
    let mut q_fixed = q31(q);
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        shift = 0;
        q_fixed = 0;
    }
    (q_fixed as i32, shift)
}

/// `TfLiteRound(q * (1 << 31))` of a `frexp` fraction `q`, as an integer. A finite positive
/// `q = M·2^-53` in `[0.5, 1)` (`M` its 53-bit mantissa) gives `(M + 2^21) >> 22`: `q·2^31` and
/// its rounding half away from zero are exact, so this is the float sequence's value without a
/// float operation (soft double on a Cortex-M4: most of a load's per-channel work). Any other
/// `q` takes the float sequence.
fn q31(q: f64) -> i64 {
    let bits = q.to_bits();
    if q > 0.0 && (bits >> 52) & 0x7ff == 1022 {
        let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
        ((m + (1 << 21)) >> 22) as i64
    } else {
        round_f64(q * (1u64 << 31) as f64) as i64
    }
}

/// [`quantize_multiplier`] for a multiplier the kernels apply with
/// [`multiply_by_quantized_multiplier`]: refused if it is not finite and non-negative or its
/// shift is over 31 (a real multiplier of 2^31 or more: TFLM's `x * (1 << shift)` would be
/// undefined, and no model's scales give one).
pub fn requantization_multiplier(op: &'static str, real: f64) -> Result<(i32, i32), KernelError> {
    let (m, s) = quantize_multiplier(real);
    if !(real.is_finite() && real >= 0.0) || s > 31 {
        return Err(KernelError::unsupported(op, Unsupported::Multiplier));
    }
    Ok((m, s))
}

/// `QuantizeMultiplierSmallerThanOneExp`: [`quantize_multiplier`] for `0 < real < 1`.
pub fn quantize_multiplier_smaller_than_one_exp(
    op: &'static str,
    real: f64,
) -> Result<(i32, i32), KernelError> {
    if !(real > 0.0 && real < 1.0) {
        return Err(KernelError::unsupported(op, Unsupported::Multiplier));
    }
    Ok(quantize_multiplier(real))
}

/// `QuantizeMultiplierGreaterThanOne`: [`quantize_multiplier`] for `real > 1`.
pub fn quantize_multiplier_greater_than_one(
    op: &'static str,
    real: f64,
) -> Result<(i32, i32), KernelError> {
    if real.is_nan() || real <= 1.0 {
        return Err(KernelError::unsupported(op, Unsupported::InputScale));
    }
    Ok(quantize_multiplier(real))
}

/// `MultiplyByQuantizedMultiplier(int32_t x, ...)` (TFLM's default, double rounding):
/// `x * multiplier * 2^(shift - 31)`, rounded.
#[inline]
pub fn multiply_by_quantized_multiplier(x: i32, multiplier: i32, shift: i32) -> i32 {
    Requantizer::new(multiplier, shift).apply(x)
}

/// [`multiply_by_quantized_multiplier`] with everything that depends only on the multiplier
/// and shift computed once (the left-shift factor, the right shift and its rounding
/// constants), for kernels that requantize many values by the same entry. The results are
/// exactly TFLM's (`tests::requantizer_matches_tflm`).
#[derive(Debug, Clone, Copy)]
pub struct Requantizer {
    multiplier: i32,
    /// `2^left_shift` (wrapping, as TFLM's `x * (1 << left_shift)`).
    left: i32,
    /// The right shift of [`rounding_divide_by_pot`] (at most 31 for every multiplier
    /// [`quantize_multiplier`] derives; a larger one is taken modulo 32).
    right: u32,
    /// `2^right - 1`: the bits the right shift drops.
    mask: i32,
}

impl Requantizer {
    /// The requantization by `multiplier` and `shift`.
    #[inline(always)]
    pub fn new(multiplier: i32, shift: i32) -> Self {
        let left_shift = if shift > 0 { shift } else { 0 };
        let right = if shift > 0 { 0 } else { shift.wrapping_neg() } as u32 & 31;
        Requantizer {
            multiplier,
            left: 1i32.wrapping_shl(left_shift as u32),
            right,
            mask: ((1u32 << right) - 1) as i32,
        }
    }

    /// `MultiplyByQuantizedMultiplier(x, multiplier, shift)`.
    #[inline(always)]
    pub fn apply(&self, x: i32) -> i32 {
        let v = saturating_rounding_doubling_high_mul(x.wrapping_mul(self.left), self.multiplier);
        self.divide(v)
    }

    /// Whether the high multiply can saturate: only a multiplier of `i32::MIN` (never one
    /// [`quantize_multiplier`] derives) times `i32::MIN` does.
    #[inline(always)]
    pub fn can_saturate(&self) -> bool {
        Self::saturates(self.multiplier)
    }

    /// [`Self::can_saturate`] of the requantizer by `multiplier` (any shift), before making it.
    #[inline(always)]
    pub fn saturates(multiplier: i32) -> bool {
        multiplier == i32::MIN
    }

    /// [`Self::apply`] for a requantizer that cannot saturate ([`Self::can_saturate`] is
    /// false; the loops that call it check once): the same result, without the per-value
    /// test of the saturating case.
    #[inline(always)]
    pub fn apply_unsaturated(&self, x: i32) -> i32 {
        debug_assert!(!self.can_saturate());
        let v = ((i64::from(x.wrapping_mul(self.left)) * i64::from(self.multiplier) + (1 << 30))
            >> 31) as i32;
        // Its sign from `v` itself, not from a second multiply (`hint::opaque`).
        self.divide(crate::hint::opaque(v))
    }

    /// The rounding divide of [`Self::apply`].
    /// [`Requantizer::apply_unsaturated`] of `v` given `v2` = `2 · v · 2^left` (the caller's
    /// bound: it fits in 32 bits): the doubling high multiply as the rounded high word of
    /// `v2 · multiplier`, `(v2 · m + 2^31) >> 32`, which is `(v · 2^left · m + 2^30) >> 31`
    /// exactly (`SMMULR` on the DSP extension), then the same rounding divide.
    #[inline(always)]
    pub fn apply_doubled(&self, v2: i32) -> i32 {
        debug_assert!(!self.can_saturate());
        #[cfg(synaptic_dsp)]
        let v = crate::dsp::smmulr(v2, self.multiplier);
        #[cfg(not(synaptic_dsp))]
        let v = crate::hint::opaque(
            ((i64::from(v2) * i64::from(self.multiplier) + (1 << 31)) >> 32) as i32,
        );
        self.divide(v)
    }

    /// [`Self::apply_doubled`] with its rounding constants made once ([`Doubled`]; its
    /// values those of a requantizer that cannot saturate).
    #[inline(always)]
    pub fn doubled(&self) -> Doubled {
        Doubled {
            multiplier: self.multiplier,
            neg: -i32::from(self.right != 0),
            half: ((1u32 << self.right) >> 1) as i32,
            right: self.right,
        }
    }

    /// The factor `2^left` of [`Requantizer::apply`]'s left shift.
    #[inline(always)]
    pub fn left(&self) -> i32 {
        self.left
    }

    #[inline(always)]
    fn divide(&self, v: i32) -> i32 {
        // RoundingDivideByPOT(v, right) as TFLM writes it, the mask made once: the dropped
        // bits against half the mask (one more for a negative value), the sign bit a shift.
        let remainder = v & self.mask;
        let threshold = (self.mask >> 1) + ((v as u32) >> 31) as i32;
        (v >> self.right) + i32::from(remainder > threshold)
    }
}

/// [`Requantizer::apply_doubled`] of a requantizer that cannot saturate, its rounding divide
/// as one add of the sign (none for no shift), one of `2^(right − 1)` and a shift:
/// `(v − (v < 0 ∧ right > 0) + ⌊2^(right − 1)⌋) >> right`, which rounds half away from zero as
/// TFLM's mask and threshold do. No sum wraps: the high word `v` of a `v2` other than
/// `i32::MIN` times a multiplier other than `i32::MIN` is within ±2^30 (exclusive), so
/// `v + 2^30` stays below 2^31. Per value three fewer instructions than the mask's compare.
/// The results are [`Requantizer::apply_doubled`]'s (`tests::doubled_matches`).
#[derive(Debug, Clone, Copy)]
pub struct Doubled {
    multiplier: i32,
    /// −1 with a right shift, else 0: what a negative value's sign takes off.
    neg: i32,
    /// `2^(right − 1)`, 0 for no shift.
    half: i32,
    right: u32,
}

impl Doubled {
    /// `MultiplyByQuantizedMultiplier(v, ...)` given `v2` = `2 · v · 2^left` (the caller's
    /// bound: it fits in 32 bits and is not `i32::MIN`; that one value, wrong, never a panic).
    #[inline(always)]
    pub fn apply(&self, v2: i32) -> i32 {
        #[cfg(synaptic_dsp)]
        let v = crate::dsp::smmulr(v2, self.multiplier);
        #[cfg(not(synaptic_dsp))]
        let v = crate::hint::opaque(
            ((i64::from(v2) * i64::from(self.multiplier) + (1 << 31)) >> 32) as i32,
        );
        v.wrapping_add((v >> 31) & self.neg).wrapping_add(self.half) >> self.right
    }

    /// Whether [`Self::apply`] of a multiple of 4 is that value over 4, exactly: the
    /// multiplier `2^30` (one half, TFLM's scale of ADD's input of the larger scale) and no
    /// right shift (`round(v2 · 2^30 / 2^32)`, `v2 / 4` with no remainder).
    #[inline(always)]
    pub fn quarter(&self) -> bool {
        self.multiplier == 1 << 30 && self.right == 0
    }

    /// This requantizer with `zp` added to every result in its rounding constant
    /// (`zp · 2^right`, a multiple of what the shift divides by: `apply(v2) + zp` exactly),
    /// when the sum before the shift stays within 32 bits: the high word is within ±2^30,
    /// so the constant is kept below 2^30 − 1 in magnitude. `None` otherwise.
    pub fn plus(self, zp: i32) -> Option<Self> {
        let half = i64::from(self.half) + (i64::from(zp) << self.right);
        (half.abs() < (1 << 30) - 1).then_some(Doubled {
            half: half as i32,
            ..self
        })
    }
}

/// [`Requantizer::apply`] for a right shift of 1 to 31 (no left shift: a scale below one
/// half, every convolution's usual case) of values within ±2^30 (the caller's bound): the
/// doubling high multiply as the rounded high word of `2x · multiplier` (`SMMULR` on the DSP
/// extension), then TFLM's rounding divide as one add and a shift,
/// `(v - (v < 0 ? 1 : 0) + 2^(r-1)) >> r`, which rounds half away from zero exactly as its
/// mask and threshold do. Neither sum can wrap: `|v| ≤ |x| + 1`. The results are
/// [`Requantizer::apply`]'s (`tests::right_requantizer_matches`).
#[derive(Debug, Clone, Copy)]
pub struct RightRequantizer {
    multiplier: i32,
    /// `2^(right - 1)`.
    half: i32,
    right: u32,
}

impl RightRequantizer {
    /// The largest magnitude (exclusive) of a value [`RightRequantizer::apply`] takes.
    pub const BOUND: i64 = 1 << 30;

    /// The requantization by `multiplier` and `shift`, or `None` when `shift` is not in
    /// `-31..=-1` or the multiplier is negative (never one [`quantize_multiplier`] derives;
    /// `i32::MIN` is the one that can saturate, and [`Self::try_apply`] of `-2^30` needs a
    /// multiplier of at least 0).
    #[inline(always)]
    pub fn new(multiplier: i32, shift: i32) -> Option<Self> {
        if !(-31..=-1).contains(&shift) || multiplier < 0 {
            return None;
        }
        Some(Self::new_checked(multiplier, shift))
    }

    /// [`Self::new`] for the accumulators of a convolution: `bias` plus `taps` products of an
    /// offset int8 input (within ±255) and an int8 weight (within ±128), every one of which
    /// is then within ±[`Self::BOUND`]; `None` too when some could be outside it.
    #[inline(always)]
    pub fn for_accumulator(multiplier: i32, shift: i32, bias: i32, taps: usize) -> Option<Self> {
        let reach = (taps as i64)
            .saturating_mul(255 * 128)
            .saturating_add(i64::from(bias.unsigned_abs()));
        if reach >= Self::BOUND {
            return None;
        }
        Self::new(multiplier, shift)
    }

    /// [`Self::new`] without its checks, for a caller that made them for every entry of a
    /// table once (a loop that then builds one an entry): the same requantizer when
    /// [`Self::new`] gives one; otherwise a wrong one, never a panic.
    #[inline(always)]
    pub fn new_checked(multiplier: i32, shift: i32) -> Self {
        let right = shift.unsigned_abs() & 31;
        RightRequantizer {
            multiplier,
            half: ((1u32 << right) >> 1) as i32,
            right,
        }
    }

    /// The multiplier, `2^(right − 1)` and the right shift (`right` < 32): what
    /// [`Self::apply`] computes with, for a block that applies it itself.
    #[cfg(any(synaptic_dsp, synaptic_mla))]
    #[inline(always)]
    pub(crate) fn parts(&self) -> [i32; 3] {
        [self.multiplier, self.half, self.right as i32]
    }

    /// `MultiplyByQuantizedMultiplier(x, multiplier, shift)` of `x` within ±[`Self::BOUND`].
    #[inline(always)]
    pub fn apply(&self, x: i32) -> i32 {
        debug_assert!(i64::from(x).abs() < Self::BOUND);
        self.of_double(x.wrapping_mul(2))
    }

    /// [`Self::apply`] of any `x` whose double fits in 32 bits (`-2^30 ≤ x < 2^30`, what the
    /// doubling needs: one add whose overflow flag is the test), `None` for another; the
    /// results are [`Requantizer::apply`]'s for a requantizer [`Self::new`] made
    /// (`tests::right_requantizer_matches`; a negative multiplier's, of `-2^30`, is wrong,
    /// never a panic).
    #[inline(always)]
    pub fn try_apply(&self, x: i32) -> Option<i32> {
        let (x2, wide) = x.overflowing_add(x);
        (!wide).then(|| self.of_double(x2))
    }

    /// The requantization of `x` given `x2 = 2x` (in 32 bits): the high word of
    /// `x2 · multiplier`, rounded (`SMMULR` on the DSP extension), then the rounding divide.
    /// One body for [`Self::apply`] and [`Self::try_apply`].
    #[inline(always)]
    fn of_double(&self, x2: i32) -> i32 {
        #[cfg(synaptic_dsp)]
        let v = crate::dsp::smmulr(x2, self.multiplier);
        #[cfg(not(synaptic_dsp))]
        let v = crate::hint::opaque(
            ((i64::from(x2) * i64::from(self.multiplier) + (1 << 31)) >> 32) as i32,
        );
        (v.wrapping_add(v >> 31).wrapping_add(self.half)) >> self.right
    }
}

/// `MultiplyByQuantizedMultiplier(int64_t x, ...)`: the 64-bit-input form (16-bit-activation
/// kernels), which rounds the multiplier to 16 bits.
#[inline]
pub fn multiply_by_quantized_multiplier_i64(x: i64, multiplier: i32, shift: i32) -> i32 {
    let reduced: i64 = if multiplier < 0x7FFF_0000 {
        i64::from((multiplier + (1 << 15)) >> 16)
    } else {
        0x7FFF
    };
    let total_shift = 15 - shift;
    let x = x
        .wrapping_mul(reduced)
        .wrapping_add(1i64 << (total_shift - 1));
    (x >> total_shift) as i32
}

/// `MultiplyByQuantizedMultiplierSmallerThanOneExp` (`left_shift <= 0`).
#[inline]
pub fn multiply_by_quantized_multiplier_smaller_than_one_exp(
    x: i32,
    multiplier: i32,
    left_shift: i32,
) -> i32 {
    rounding_divide_by_pot(
        saturating_rounding_doubling_high_mul(x, multiplier),
        (-left_shift) as u32,
    )
}

/// `MultiplyByQuantizedMultiplierGreaterThanOne` (`left_shift >= 0`).
#[inline]
pub fn multiply_by_quantized_multiplier_greater_than_one(
    x: i32,
    multiplier: i32,
    left_shift: i32,
) -> i32 {
    saturating_rounding_doubling_high_mul(
        x.wrapping_mul(1i32.wrapping_shl(left_shift as u32)),
        multiplier,
    )
}

/// The per-channel (or per-tensor, broadcast to every channel) requantization of a
/// convolution: `PopulateConvolutionQuantizationParams`. For every output channel `i`,
/// `effective = double(input_scale) * double(filter_scale[i]) / double(output_scale)`, then
/// [`quantize_multiplier`]. `filter_scales` has one entry (per-tensor) or `multipliers.len()`.
pub fn per_channel_multipliers(
    op: &'static str,
    input_scale: f32,
    filter_scales: &[f32],
    output_scale: f32,
    multipliers: &mut [i32],
    shifts: &mut [i32],
) -> Result<(), KernelError> {
    let channels = multipliers.len();
    KernelError::check_len(op, Operand::Shifts, channels, shifts.len())?;
    if filter_scales.len() != 1 && filter_scales.len() != channels {
        return Err(KernelError::unsupported(op, Unsupported::FilterScales));
    }
    for i in 0..channels {
        let scale = if filter_scales.len() == 1 {
            filter_scales[0]
        } else {
            filter_scales[i]
        };
        (multipliers[i], shifts[i]) = channel_multiplier(op, input_scale, scale, output_scale)?;
    }
    Ok(())
}

/// One channel of [`per_channel_multipliers`]: the multiplier and shift of
/// `double(input_scale) * double(filter_scale) / double(output_scale)` (a program compiler
/// derives one entry at a time).
#[inline]
pub fn channel_multiplier(
    op: &'static str,
    input_scale: f32,
    filter_scale: f32,
    output_scale: f32,
) -> Result<(i32, i32), KernelError> {
    ratio_requantization_multiplier(op, input_scale, filter_scale, output_scale)
}

/// [`requantization_multiplier`] of `double(a) * double(b) / double(c)`, for any three floats,
/// in integers (no soft double in an image): IEEE's special cases first (a NaN, an infinite
/// or a negative product or quotient is refused, a zero one is `(0, 0)`), then
/// [`product_ratio_multiplier`] of the magnitudes, a subnormal float normalised first (the
/// double sequence computes it exactly too: every f32 is a normal double). A property test
/// holds it equal to the double sequence on random, edge and special triples.
pub fn ratio_requantization_multiplier(
    op: &'static str,
    a: f32,
    b: f32,
    c: f32,
) -> Result<(i32, i32), KernelError> {
    let refuse = || KernelError::unsupported(op, Unsupported::Multiplier);
    let (ba, bb, bc) = (a.to_bits(), b.to_bits(), c.to_bits());
    // Normal and positive (a sign bit makes the biased exponent 256 or more).
    let normal = |x: u32| (1..255).contains(&(x >> 23));
    let unit = |x: u32| ((x & 0x7F_FFFF) | 0x80_0000, (x >> 23) as i32 - 150);
    let (x, y, z) = if normal(ba) && normal(bb) && normal(bc) {
        (unit(ba), unit(bb), unit(bc))
    } else {
        match special_parts(ba, bb, bc) {
            Ok(p) => p,
            Err(true) => return Ok((0, 0)),
            Err(false) => return Err(refuse()),
        }
    };
    match quotient_multiplier(x, y, z) {
        (m, s) if s <= 31 => Ok((m, s)),
        _ => Err(refuse()),
    }
}

/// [`ratio_requantization_multiplier`] of floats not all normal and positive: IEEE's
/// special cases (`Err(true)`: a zero quotient, `(0, 0)`; `Err(false)`: a NaN, an infinite
/// or a negative one, refused), else the three magnitudes as `m · 2^e` with `m` in
/// `[2^23, 2^24)`, a subnormal one normalised.
#[cold]
#[inline(never)]
#[allow(clippy::type_complexity)]
fn special_parts(ba: u32, bb: u32, bc: u32) -> Result<((u32, i32), (u32, i32), (u32, i32)), bool> {
    let nan = |x: u32| x & 0x7FFF_FFFF > 0x7F80_0000;
    let inf = |x: u32| x & 0x7FFF_FFFF == 0x7F80_0000;
    let zero = |x: u32| x & 0x7FFF_FFFF == 0;
    // NaN in, an infinite product (infinite or NaN, either way not finite), a zero divisor
    // (an infinite or NaN quotient): refused.
    if nan(ba) || nan(bb) || nan(bc) || inf(ba) || inf(bb) || zero(bc) {
        return Err(false);
    }
    // A zero product (finite divisor) or an infinite divisor (finite product): ±0, which
    // `real >= 0.0` accepts.
    if zero(ba) || zero(bb) || inf(bc) {
        return Err(true);
    }
    if (ba ^ bb ^ bc) >> 31 != 0 {
        return Err(false);
    }
    Ok((float_parts(ba), float_parts(bb), float_parts(bc)))
}

/// A finite, non-zero positive float's bits `x` as `(m, e)`, `x = m · 2^e`, the significand `m`
/// with its leading one at bit 23 (a subnormal's moved up there, its exponent lowered to match).
fn float_parts(x: u32) -> (u32, i32) {
    let biased = (x >> 23) & 0xFF;
    let frac = x & 0x7F_FFFF;
    if biased == 0 {
        // Subnormal: `frac · 2^-149`, its leading one moved to bit 23.
        let k = frac.leading_zeros() - 8;
        (frac << k, -149 - k as i32)
    } else {
        (frac | 0x80_0000, biased as i32 - 150)
    }
}

/// `quantize_multiplier(double(a) * double(b) / double(c))` of three normal positive floats,
/// in integers: `None` for any other input (the float sequence then). A convolution computes
/// this once per output channel at load, and on a Cortex-M without a double-precision FPU the
/// float sequence is soft-float calls (a third of person_detect's load once).
///
/// Why it is the same value: the product of two 24-bit mantissas `P` is exact in a double, so
/// the double is `P / mc` (times a power of two) rounded to 53 bits, to nearest, ties to even.
/// Here `Q = ⌊P · 2^32 / mc⌋` (55 to 57 bits, by eight hardware 32-bit divisions) and its
/// remainder give those 53 bits and what lies below them: the same rounding, done exactly;
/// [`quantize_multiplier`]'s Q31 rounding of that mantissa and `frexp`'s exponent follow. The
/// quotient is normal for any normal floats (between 2^-380 and 2^382), so no double on the
/// way is subnormal or infinite. A property test holds it equal to the float sequence, and
/// the double itself bit for bit, on random and edge triples.
pub fn product_ratio_multiplier(a: f32, b: f32, c: f32) -> Option<(i32, i32)> {
    let p = normal_parts;
    Some(quotient_multiplier(p(a)?, p(b)?, p(c)?))
}

/// A normal positive float `x` as `(m, e)`, `x = m · 2^e`, its mantissa `m` with the leading
/// one (in `[2^23, 2^24)`); `None` for zero, a subnormal, an infinity, a NaN or a negative.
fn normal_parts(x: f32) -> Option<(u32, i32)> {
    let bits = x.to_bits();
    let biased = (bits >> 23) as i32;
    (1..255)
        .contains(&biased)
        .then_some(((bits & 0x7F_FFFF) | 0x80_0000, biased - 150))
}

/// `double(a) * double(b) / double(c)` as `frexp` splits it, `(m, e)` with the value
/// `m / 2^53 · 2^e` (`m` its 53-bit mantissa), for normal positive floats (`None` otherwise).
#[cfg(test)]
fn product_ratio(a: f32, b: f32, c: f32) -> Option<(u64, i32)> {
    let p = normal_parts;
    Some(quotient((p(a)?, p(b)?, p(c)?)))
}

/// [`product_ratio_multiplier`] of three positive values `m · 2^e` (`m` in `[2^23, 2^24)`).
#[inline(always)]
fn quotient_multiplier(a: (u32, i32), b: (u32, i32), c: (u32, i32)) -> (i32, i32) {
    let (m, mut shift) = quotient((a, b, c));
    // `q31` of `m / 2^53`, then `quantize_multiplier`'s edges.
    let mut q_fixed = ((m + (1 << 21)) >> 22) as i64;
    if q_fixed == 1i64 << 31 {
        q_fixed /= 2;
        shift += 1;
    }
    if shift < -31 {
        return (0, 0);
    }
    (q_fixed as i32, shift)
}

/// [`product_ratio`] of three positive values `m · 2^e` (`m` in `[2^23, 2^24)`).
#[inline(always)]
fn quotient(((ma, ea), (mb, eb), (mc, ec)): ((u32, i32), (u32, i32), (u32, i32))) -> (u64, i32) {
    let p = u64::from(ma) * u64::from(mb); // [2^46, 2^48)
                                           // Long division of `p · 2^32` by `mc` (< 2^24): a remainder below 2^24 and one more byte
                                           // make a dividend below 2^32, one `udiv` each.
    let mut r = (p >> 24) as u32;
    let mut q = u64::from(r / mc);
    r %= mc;
    for k in (0..7).rev() {
        let byte = if k >= 4 {
            (p >> (8 * (k - 4))) as u32 & 0xFF
        } else {
            0
        };
        let t = (r << 8) | byte;
        q = (q << 8) | u64::from(t / mc);
        r = t % mc;
    }
    // `q` in [2^54, 2^57): keep its top 53 bits, rounded to nearest by the `low` bits below
    // them and the remainder. No tie can occur: an exact quotient has at most 48 significant
    // bits (it is `p` times a power of two over an odd factor of `p`), and an inexact one
    // has an odd factor in its denominator, so it is never halfway between two doubles.
    let k = 64 - q.leading_zeros() as i32 - 53;
    let mut m = q >> k;
    let low = q & ((1u64 << k) - 1);
    let half = 1u64 << (k - 1);
    if low > half || (low == half && r != 0) {
        m += 1;
    }
    // The double is `m · 2^(k - 32 + ea + eb - ec)`, `frexp`'s exponent 53 more.
    let mut e = k - 32 + ea + eb - ec + 53;
    if m == 1u64 << 53 {
        m = 1u64 << 52;
        e += 1;
    }
    (m, e)
}

/// `Quantize` of `kernel_util.cc`: `zero_point + (int)round(f / scale)` in `float`; refused
/// where TFLM's `int` arithmetic would overflow.
fn quantize_value(op: &'static str, q: QuantParams, f: f32) -> Result<i32, KernelError> {
    let overflow = KernelError::unsupported(op, Unsupported::ActivationOverflow);
    let tmp = round_f32(f / q.scale);
    // `i32::MAX as f32` is 2^31, which does not fit either.
    if !(tmp >= i32::MIN as f32 && tmp < i32::MAX as f32) {
        return Err(overflow);
    }
    q.zero_point.checked_add(tmp as i32).ok_or(overflow)
}

/// `CalculateActivationRangeQuantized`: the clamp `[min, max]` of a fused activation for an
/// output of integer range `[qmin, qmax]` and quantization `output`. Refused if the range is
/// empty (`min > max`: a zero point or scale outside what the type can represent), so that
/// every clamp a kernel applies with it is well formed.
pub fn activation_range(
    op: &'static str,
    activation: Activation,
    output: QuantParams,
    qmin: i32,
    qmax: i32,
) -> Result<(i32, i32), KernelError> {
    let (min, max) = match activation {
        Activation::None => (qmin, qmax),
        Activation::Relu => (qmin.max(quantize_value(op, output, 0.0)?), qmax),
        Activation::Relu6 => (
            qmin.max(quantize_value(op, output, 0.0)?),
            qmax.min(quantize_value(op, output, 6.0)?),
        ),
        Activation::ReluN1To1 => (
            qmin.max(quantize_value(op, output, -1.0)?),
            qmax.min(quantize_value(op, output, 1.0)?),
        ),
    };
    if min > max {
        return Err(KernelError::unsupported(
            op,
            Unsupported::EmptyActivationRange,
        ));
    }
    Ok((min, max))
}

/// A quantized operand's zero point as the kernels take it: inside the range `min..=max` of its
/// type (so `-zero_point` and the offsets added to it cannot overflow `int32`).
pub fn zero_point_in(
    op: &'static str,
    q: QuantParams,
    min: i32,
    max: i32,
) -> Result<i32, KernelError> {
    if (min..=max).contains(&q.zero_point) {
        Ok(q.zero_point)
    } else {
        Err(KernelError::unsupported(
            op,
            Unsupported::ZeroPoint(q.zero_point),
        ))
    }
}

/// [`zero_point_in`] for an int8 operand.
pub fn int8_zero_point(op: &'static str, q: QuantParams) -> Result<i32, KernelError> {
    zero_point_in(op, q, -128, 127)
}

/// [`activation_range`] for an int8 output.
// Load-time code called from many operators: one copy (flash), not one per caller.
#[inline(never)]
pub fn activation_range_i8(
    op: &'static str,
    activation: Activation,
    output: QuantParams,
) -> Result<(i32, i32), KernelError> {
    activation_range(op, activation, output, -128, 127)
}

/// `PreprocessSoftmaxScaling` (double path): `min(beta * input_scale * 2^(31 - bits),
/// 2^31 - 1)` as a multiplier greater than one and its left shift.
pub fn preprocess_softmax_scaling(
    op: &'static str,
    beta: f64,
    input_scale: f64,
    input_integer_bits: i32,
) -> Result<(i32, i32), KernelError> {
    let max_real_multiplier = ((1i64 << 31) - 1) as f64;
    let scaled = beta * input_scale * f64::from(1i32 << (31 - input_integer_bits));
    // std::min<double>(a, b) returns b only when b < a.
    let real = if max_real_multiplier < scaled {
        max_real_multiplier
    } else {
        scaled
    };
    quantize_multiplier_greater_than_one(op, real)
}

/// [`preprocess_softmax_scaling`] of `f64::from(beta)` and `f64::from(input_scale)`, in
/// integers (no soft double in an image): the product of two floats is exact in a double and
/// so is its power of two, so the minimum with `2^31 − 1` and [`quantize_multiplier`]'s
/// Q31 rounding are done on the exact product. A NaN, a product of zero and infinity, one of
/// at most 1.0 are refused as the double sequence refuses them; an infinite one is
/// `2^31 − 1`. For `input_integer_bits` in `1..=30` (SOFTMAX: 5); a property test holds it
/// equal to the double sequence.
pub fn softmax_scaling(
    op: &'static str,
    beta: f32,
    input_scale: f32,
    input_integer_bits: i32,
) -> Result<(i32, i32), KernelError> {
    let refuse = || KernelError::unsupported(op, Unsupported::InputScale);
    let (ba, bb) = (beta.to_bits(), input_scale.to_bits());
    let abs = |x: u32| x & 0x7FFF_FFFF;
    // NaN, zero (`0` or `0 · ∞`, NaN) or negative: at most 1.0 or NaN, refused.
    if abs(ba) > 0x7F80_0000
        || abs(bb) > 0x7F80_0000
        || abs(ba) == 0
        || abs(bb) == 0
        || (ba ^ bb) >> 31 != 0
    {
        return Err(refuse());
    }
    let max = (i32::MAX, 31);
    if abs(ba) == 0x7F80_0000 || abs(bb) == 0x7F80_0000 {
        return Ok(max);
    }
    let ((ma, ea), (mb, eb)) = (float_parts(ba), float_parts(bb));
    // The value `p · 2^e`, in [2^(exp − 1), 2^exp).
    let p = u64::from(ma) * u64::from(mb);
    let len = 64 - p.leading_zeros() as i32;
    let exp = len + ea + eb + (31 - input_integer_bits);
    // Above 2^31 − 1: that (std::min).
    if exp > 31 || (exp == 31 && p > ((1u64 << 31) - 1) << (len - 31)) {
        return Ok(max);
    }
    // At most 1.0: refused.
    if exp < 1 || (exp == 1 && p == 1u64 << (len - 1)) {
        return Err(refuse());
    }
    // `quantize_multiplier`: the Q31 rounding of the 53-bit mantissa (exact: `len <= 48`).
    let m53 = p << (53 - len);
    let mut q = (m53 + (1 << 21)) >> 22;
    let mut shift = exp;
    if q == 1u64 << 31 {
        q /= 2;
        shift += 1;
    }
    Ok((q as i32, shift))
}

/// `CalculateInputRadius` (double path): the largest input difference, in input units, that
/// the fixed-point exp/logistic can take before it saturates. `None` where TFLM's shifts are
/// undefined: `input_left_shift` outside `0..=62`, or integer bits outside
/// `0..total_signed_bits <= 62`.
pub fn calculate_input_radius(
    input_integer_bits: i32,
    input_left_shift: i32,
    total_signed_bits: i32,
) -> Option<i32> {
    if !(0..=62).contains(&input_left_shift)
        || !(0..=62).contains(&total_signed_bits)
        || !(0..total_signed_bits.min(31)).contains(&input_integer_bits)
    {
        return None;
    }
    // `floor(((2^bits − 1) · 2^(total − bits)) / 2^shift)` saturated to `int`: every step of
    // the double sequence is exact (fewer than 63 significant bits, powers of two), so it is
    // this shift (no soft double in an image).
    let max_input_rescaled = (((1u64 << input_integer_bits) - 1)
        << (total_signed_bits - input_integer_bits))
        >> input_left_shift;
    Some(max_input_rescaled.min(i32::MAX as u64) as i32)
}

/// `GetReciprocal`: `1 / x` for a positive `x` with `x_integer_digits` integer bits, as a Q0
/// scale and the number of bits of `x` above 1.0 (`(scale, num_bits_over_unit)`).
pub fn get_reciprocal(x: i32, x_integer_digits: i32) -> (i32, i32) {
    let headroom_plus_one = (x as u32).leading_zeros();
    let num_bits_over_unit = x_integer_digits - headroom_plus_one as i32;
    let shifted_sum_minus_one =
        ((x as u32).wrapping_shl(headroom_plus_one)).wrapping_sub(1u32 << 31) as i32;
    (
        one_over_one_plus_x_for_x_in_0_1(shifted_sum_minus_one),
        num_bits_over_unit,
    )
}

/// `ComputePaddingHeightWidth` for one dimension: `(output size, padding before)`.
///
/// `SAME`: `out = ceil(in / stride)`, `VALID`: `out = (in - effective_filter) / stride + 1`;
/// the padding is `max(0, (out - 1) * stride + effective_filter - in) / 2` (the odd cell goes
/// after, which the kernels' bounds checks handle). TFLM computes all of it in `int`: sizes,
/// strides, dilations and filters for which `(out - 1) * stride + effective_filter` (the
/// input extent the windows span) exceeds `2^31 - 1` are refused, so every window coordinate
/// a kernel forms (`o * stride - pad + f * dilation`) fits `i32` and a 32-bit `isize`.
// Load-time code called from many operators: one copy (flash), not one per caller.
#[inline(never)]
pub fn compute_padding(
    op: &'static str,
    padding: Padding,
    in_size: usize,
    filter_size: usize,
    stride: usize,
    dilation: usize,
) -> Result<(usize, usize), KernelError> {
    if filter_size == 0 || stride == 0 || dilation == 0 {
        return Err(KernelError::unsupported(op, Unsupported::WindowNotPositive));
    }
    const INT_MAX: i64 = i32::MAX as i64;
    let too_large = KernelError::unsupported(op, Unsupported::WindowExtent);
    let as_int = |v: usize| i64::try_from(v).ok().filter(|&v| v <= INT_MAX);
    let (Some(in_size_i), Some(f), Some(stride_i), Some(d)) = (
        as_int(in_size),
        as_int(filter_size),
        as_int(stride),
        as_int(dilation),
    ) else {
        return Err(too_large);
    };
    let effective = (f - 1) * d + 1;
    if effective > INT_MAX {
        return Err(too_large);
    }
    // The quotients in `usize` (a 64-bit division is a call on a 32-bit core): every operand
    // is at most 2^31 - 1, so `in_size + stride` fits.
    // (Armv6-M divides in calls either way: the 64-bit quotients are smaller there.)
    #[cfg(synaptic_v6m)]
    let out = match padding {
        Padding::Same => (in_size_i + stride_i - 1) / stride_i,
        Padding::Valid => (in_size_i + stride_i - effective) / stride_i,
    };
    #[cfg(not(synaptic_v6m))]
    let out = match padding {
        Padding::Same => in_size.div_ceil(stride) as i64,
        Padding::Valid => match (in_size + stride).checked_sub(effective as usize) {
            Some(n) => (n / stride) as i64,
            // A negative numerator, its quotient truncated toward zero: 0 above -stride.
            None if effective as usize - (in_size + stride) < stride => 0,
            None => -1,
        },
    };
    if out < 0 {
        return Err(KernelError::shape(op, ShapeFault::FilterLargerThanInput));
    }
    if (out - 1).max(0) * stride_i + effective > INT_MAX {
        return Err(too_large);
    }
    let total = ((out - 1) * stride_i + effective - in_size_i).max(0);
    Ok((out as usize, (total / 2) as usize))
}

#[cfg(test)]
mod tests {
    #[test]
    fn product_ratio_multiplier_is_the_double_sequence() {
        use super::{product_ratio_multiplier, quantize_multiplier};
        let double = |a: f32, b: f32, c: f32| {
            quantize_multiplier(f64::from(a) * f64::from(b) / f64::from(c))
        };
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // Random normal floats over the whole exponent range, then scales as models have
        // them (exponents near 2^-8), then edge mantissas (all ones, one, halfway patterns).
        let normal = |bits: u32| {
            let f = f32::from_bits(bits & 0x7FFF_FFFF);
            f.is_normal().then_some(f)
        };
        let near = |w: u32| f32::from_bits((w & 0x007F_FFFF) | ((110 + (w >> 28)) << 23));
        let edges = [0x007F_FFFFu32, 0, 1, 0x0040_0000, 0x003F_FFFF, 0x0055_5555];
        let edge = |w: u64| {
            let m = edges[(w % edges.len() as u64) as usize];
            f32::from_bits(m | ((100 + ((w >> 8) % 50) as u32) << 23))
        };
        let mut checked = 0;
        for i in 0..400_000u32 {
            let r = next();
            let (a, b, c) = match i % 3 {
                0 => (
                    normal(r as u32),
                    normal((r >> 32) as u32),
                    normal(next() as u32),
                ),
                1 => (
                    Some(near(r as u32)),
                    Some(near((r >> 32) as u32)),
                    Some(near(next() as u32)),
                ),
                _ => (Some(edge(r)), Some(edge(r >> 16)), Some(edge(r >> 32))),
            };
            let (Some(a), Some(b), Some(c)) = (a, b, c) else {
                continue;
            };
            assert_eq!(
                product_ratio_multiplier(a, b, c),
                Some(double(a, b, c)),
                "{a:e} {b:e} {c:e}"
            );
            // The double itself, bit for bit (its rounding decides the multiplier only near
            // a Q31 rounding edge: this is what holds it everywhere).
            let d = f64::from(a) * f64::from(b) / f64::from(c);
            let (m, e) = super::product_ratio(a, b, c).unwrap();
            assert_eq!(
                super::frexp(d),
                (m as f64 / (1u64 << 53) as f64, e),
                "{a:e} {b:e} {c:e}"
            );
            checked += 1;
        }
        assert!(checked > 300_000);
        // Not normal: the float sequence's business.
        let min = f32::MIN_POSITIVE / 2.0;
        for (a, b, c) in [
            (0.0, 1.0, 1.0),
            (1.0, min, 1.0),
            (1.0, 1.0, f32::INFINITY),
            (f32::NAN, 1.0, 1.0),
            (-1.0, 1.0, 1.0),
        ] {
            assert_eq!(product_ratio_multiplier(a, b, c), None);
        }
    }

    /// The integer `ratio_requantization_multiplier` is the double sequence
    /// (`requantization_multiplier` of `double(a) * double(b) / double(c)`) for any floats:
    /// random bit patterns (every sign, NaNs, infinities, subnormals), subnormal and zero
    /// triples, scales as models have them, and the special values crossed.
    #[test]
    fn ratio_requantization_is_the_double_sequence() {
        use super::{ratio_requantization_multiplier, requantization_multiplier};
        let double = |a: f32, b: f32, c: f32| {
            requantization_multiplier("T", f64::from(a) * f64::from(b) / f64::from(c)).ok()
        };
        let ints = |a: f32, b: f32, c: f32| ratio_requantization_multiplier("T", a, b, c).ok();
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let specials = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::MIN_POSITIVE / 2.0,
            f32::from_bits(1),
            f32::from_bits(0x007F_FFFF),
            f32::MAX,
            -f32::from_bits(3),
            3.0e-3,
        ];
        for &a in &specials {
            for &b in &specials {
                for &c in &specials {
                    assert_eq!(ints(a, b, c), double(a, b, c), "{a:e} {b:e} {c:e}");
                }
            }
        }
        let mut accepted = 0;
        for i in 0..400_000u32 {
            let r = next();
            let (a, b, c) = match i % 4 {
                // Any bits.
                0 => (
                    f32::from_bits(r as u32),
                    f32::from_bits((r >> 32) as u32),
                    f32::from_bits(next() as u32),
                ),
                // Subnormal or tiny factors, normal divisors.
                1 => (
                    f32::from_bits(r as u32 & 0x00FF_FFFF),
                    f32::from_bits((r >> 32) as u32 & 0x0FFF_FFFF),
                    f32::from_bits(next() as u32 & 0x00FF_FFFF),
                ),
                // Subnormal divisors (large quotients: refused or not, as the double).
                2 => (
                    f32::from_bits(r as u32 & 0x3FFF_FFFF),
                    f32::from_bits((r >> 32) as u32 & 0x3FFF_FFFF),
                    f32::from_bits(next() as u32 & 0x007F_FFFF),
                ),
                // Scales as models have them.
                _ => {
                    let near =
                        |w: u32| f32::from_bits((w & 0x007F_FFFF) | ((110 + (w >> 28)) << 23));
                    (near(r as u32), near((r >> 32) as u32), near(next() as u32))
                }
            };
            let d = double(a, b, c);
            assert_eq!(ints(a, b, c), d, "{a:e} {b:e} {c:e}");
            accepted += usize::from(d.is_some_and(|(m, _)| m != 0));
        }
        assert!(accepted > 100_000, "{accepted}");
    }

    /// `calculate_input_radius` in integers is the double sequence on every valid input.
    #[test]
    fn input_radius_is_the_double_sequence() {
        for shift in -1..=63 {
            for total in -1..=63 {
                for bits in -1..32 {
                    let double = ((0..=62).contains(&shift)
                        && (0..=62).contains(&total)
                        && (0..total.min(31)).contains(&bits))
                    .then(|| {
                        let r =
                            1.0 * f64::from((1i32 << bits) - 1) * (1i64 << (total - bits)) as f64
                                / (1i64 << shift) as f64;
                        floor_f64(r) as i32
                    });
                    assert_eq!(super::calculate_input_radius(bits, shift, total), double);
                }
            }
        }
    }

    /// `softmax_scaling` in integers is `preprocess_softmax_scaling` of the doubles for any
    /// floats: special values crossed, random bit patterns, scales as models have them.
    #[test]
    fn softmax_scaling_is_the_double_sequence() {
        let double = |a: f32, b: f32, bits: i32| {
            super::preprocess_softmax_scaling("T", f64::from(a), f64::from(b), bits)
        };
        let ints = |a: f32, b: f32, bits: i32| super::softmax_scaling("T", a, b, bits);
        let specials = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            2.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            f32::from_bits(0x007F_FFFF),
            f32::MAX,
            1.0 / 256.0,
            1.0 / 64.0,
            // 2^31 − 1 and its neighbours over 2^26 (5 integer bits).
            2147483647.0 / 67108864.0,
            f32::from_bits((2147483647.0f32 / 67108864.0).to_bits() - 1),
            f32::from_bits((2147483647.0f32 / 67108864.0).to_bits() + 1),
            1.0 / 67108864.0,
            f32::from_bits((1.0f32 / 67108864.0).to_bits() + 1),
            f32::from_bits((1.0f32 / 67108864.0).to_bits() - 1),
        ];
        for bits in [1, 5, 12, 30] {
            for &a in &specials {
                for &b in &specials {
                    assert_eq!(ints(a, b, bits), double(a, b, bits), "{a:e} {b:e} {bits}");
                }
            }
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let mut accepted = 0;
        for i in 0..400_000u32 {
            let r = next();
            let (a, b) = match i % 3 {
                0 => (f32::from_bits(r as u32), f32::from_bits((r >> 32) as u32)),
                // Around the bounds: products near 2^-26 and 2^5.
                1 => (
                    f32::from_bits((r as u32 & 0x00FF_FFFF) | (100 + (r >> 60) as u32) << 23),
                    f32::from_bits(
                        ((r >> 32) as u32 & 0x00FF_FFFF) | (100 + (r >> 56) as u32 % 16) << 23,
                    ),
                ),
                // beta 1.0 and input scales as models have them.
                _ => (
                    1.0,
                    f32::from_bits(
                        (r as u32 & 0x007F_FFFF) | ((110 + ((r >> 40) as u32 % 20)) << 23),
                    ),
                ),
            };
            let d = double(a, b, 5);
            assert_eq!(ints(a, b, 5), d, "{a:e} {b:e}");
            accepted += usize::from(d.is_ok());
        }
        assert!(accepted > 100_000, "{accepted}");
    }

    use super::*;

    #[test]
    fn frexp_matches_definition() {
        for &x in &[
            1.0,
            0.5,
            0.75,
            3.0,
            1e-10,
            123456.789,
            -2.5,
            f64::MIN_POSITIVE / 8.0,
        ] {
            let (m, e) = frexp(x);
            assert!((0.5..1.0).contains(&m.abs()), "{x}: {m}");
            let back = m * 2f64.powi(e + 64) / 2f64.powi(64);
            assert_eq!(back, x);
        }
    }

    #[test]
    fn round_ties_away() {
        assert_eq!(round_f64(0.5), 1.0);
        assert_eq!(round_f64(-0.5), -1.0);
        assert_eq!(round_f64(2.4999999999999996), 2.0);
        assert_eq!(round_f64(1.5), 2.0);
        assert_eq!(round_f64(2.5), 3.0);
        assert_eq!(round_f32(-2.5), -3.0);
        assert_eq!(round_f32(0.49999997), 0.0);
        assert_eq!(round_f64(4503599627370497.0), 4503599627370497.0);
        assert_eq!(floor_f64(-0.5), -1.0);
        assert_eq!(floor_f64(2.0), 2.0);
    }

    #[test]
    fn quantize_multiplier_known_values() {
        assert_eq!(quantize_multiplier(0.5), (1 << 30, 0));
        assert_eq!(quantize_multiplier(1.0), (1 << 30, 1));
        assert_eq!(quantize_multiplier(0.25), (1 << 30, -1));
        // A mantissa that rounds up to 2^31 is renormalised.
        assert_eq!(quantize_multiplier(0.99999999999), (1 << 30, 1));
        // Below 2^-31 becomes zero.
        assert_eq!(quantize_multiplier(1e-12), (0, 0));
    }

    /// The integer rounding of [`quantize_multiplier`] ([`q31`]) against TFLM's float sequence
    /// (`frexp`, `q * (1 << 31)`, `TfLiteRound`) on every mantissa edge and 2^20 pseudo-random
    /// doubles of every sign and exponent.
    #[test]
    fn quantize_multiplier_equals_the_float_sequence() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let check = |bits: u64| {
            let r = f64::from_bits(bits);
            if r.is_finite() {
                let (q, _) = frexp(r);
                let float = round_f64(q * (1u64 << 31) as f64) as i64;
                assert_eq!(q31(q), float, "{r:e} ({bits:#x})");
            }
        };
        for m in [
            0u64,
            1,
            (1 << 21) - 1,
            1 << 21,
            (1 << 21) + 1,
            (1 << 22) - 1,
            (1 << 52) - 1,
        ] {
            for e in [1u64, 500, 1000, 1022, 1023, 1050, 2046] {
                check(e << 52 | m);
                check(e << 52 | ((1 << 52) - 1 - m));
            }
        }
        for _ in 0..1 << 20 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            check(x);
        }
    }

    #[test]
    fn multiply_by_quantized_multiplier_examples() {
        let (m, s) = quantize_multiplier(0.5);
        assert_eq!(multiply_by_quantized_multiplier(100, m, s), 50);
        assert_eq!(multiply_by_quantized_multiplier(-3, m, s), -1); // VQRDMULH rounds -1.5 up
        let (m, s) = quantize_multiplier(3.0);
        assert_eq!(multiply_by_quantized_multiplier(7, m, s), 21);
    }

    /// [`Requantizer::apply`] against TFLM's `MultiplyByQuantizedMultiplier` as written there
    /// (`SaturatingRoundingDoublingHighMul`, then `RoundingDivideByPOT` with its mask and
    /// threshold), every shift TFLM derives, edge and pseudo-random values.
    #[test]
    fn requantizer_matches_tflm() {
        fn tflm(x: i32, multiplier: i32, shift: i32) -> i32 {
            let left = if shift > 0 { shift } else { 0 };
            let right = if shift > 0 { 0 } else { -shift };
            let v = saturating_rounding_doubling_high_mul(x.wrapping_mul(1 << left), multiplier);
            let mask = ((1i64 << right) - 1) as i32;
            let remainder = v & mask;
            let threshold = (mask >> 1) + i32::from(v < 0);
            (v >> right) + i32::from(remainder > threshold)
        }
        let mut r: u32 = 0x9E37_79B9;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            r
        };
        let xs = [
            i32::MIN,
            i32::MIN + 1,
            -65536,
            -3,
            -2,
            -1,
            0,
            1,
            2,
            3,
            65535,
            i32::MAX,
        ];
        for shift in -31..=30 {
            for m in [0, 1, 1 << 30, (1 << 30) + 1, i32::MAX, 1_518_500_250] {
                let q = Requantizer::new(m, shift);
                for &x in &xs {
                    assert_eq!(q.apply(x), tflm(x, m, shift), "{x} {m} {shift}");
                    assert_eq!(q.apply_unsaturated(x), q.apply(x), "{x} {m} {shift}");
                }
                for _ in 0..2_000 {
                    let x = (next() as i32) >> (next() % 32);
                    assert_eq!(q.apply(x), tflm(x, m, shift), "{x} {m} {shift}");
                    assert_eq!(q.apply_unsaturated(x), q.apply(x), "{x} {m} {shift}");
                }
            }
            let m = (next() >> 1) as i32 | (1 << 30);
            let q = Requantizer::new(m, shift);
            for _ in 0..2_000 {
                let x = (next() as i32) >> (next() % 32);
                assert_eq!(q.apply(x), tflm(x, m, shift), "{x} {m} {shift}");
            }
        }
    }

    /// [`Doubled::apply`] equals [`Requantizer::apply_doubled`] for every shift, edge and
    /// pseudo-random multipliers (both signs) and any 32-bit doubled value but `i32::MIN`.
    #[test]
    fn doubled_matches() {
        let mut r: u32 = 0x9E37_79B9;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            r
        };
        for shift in -31..=0 {
            let ms = [
                0,
                1,
                -1,
                1 << 30,
                i32::MAX,
                i32::MIN + 1,
                1_518_500_250,
                (next() >> 1) as i32 | (1 << 30),
            ];
            for m in ms {
                let q = Requantizer::new(m, shift);
                let d = q.doubled();
                for v2 in [i32::MIN + 1, i32::MIN + 2, -3, -2, -1, 0, 1, 2, 3, i32::MAX] {
                    assert_eq!(d.apply(v2), q.apply_doubled(v2), "{v2} {m} {shift}");
                }
                for _ in 0..3_000 {
                    let v2 = ((next() as i32) >> (next() % 31)).max(i32::MIN + 1);
                    assert_eq!(d.apply(v2), q.apply_doubled(v2), "{v2} {m} {shift}");
                }
            }
        }
    }

    /// [`Doubled::plus`] adds its zero point to every result, or is refused when the sum
    /// before the shift could leave 32 bits; [`Doubled::quarter`] is a division by 4 of
    /// multiples of 4, exactly.
    #[test]
    fn doubled_plus_and_quarter() {
        for shift in -31..=0 {
            for m in [1 << 30, i32::MAX, 1_518_500_250, 1_073_741_825] {
                let d = Requantizer::new(m, shift).doubled();
                for zp in [-128, -1, 0, 1, 127] {
                    let Some(z) = d.plus(zp) else {
                        let half = (1i64 << -shift) >> 1;
                        let folded = half + (i64::from(zp) << -shift);
                        assert!(folded.abs() >= (1 << 30) - 1, "{shift} {zp}");
                        continue;
                    };
                    for v2 in [
                        i32::MIN + 1,
                        -(1 << 29) - 7,
                        -3,
                        -1,
                        0,
                        1,
                        5,
                        1 << 28,
                        i32::MAX,
                    ] {
                        assert_eq!(z.apply(v2), d.apply(v2) + zp, "{v2} {m} {shift} {zp}");
                    }
                }
                assert_eq!(d.quarter(), m == 1 << 30 && shift == 0);
                if d.quarter() {
                    for t in -256..=256 {
                        assert_eq!(d.apply(t << 21), t << 19);
                    }
                }
            }
        }
    }

    /// [`RightRequantizer::apply`] equals [`Requantizer::apply`] for every right shift, edge
    /// and pseudo-random multipliers, and values up to its bound.
    #[test]
    fn right_requantizer_matches() {
        let mut r: u32 = 0x2545_F491;
        let mut next = || {
            r ^= r << 13;
            r ^= r >> 17;
            r ^= r << 5;
            r
        };
        let edge = (1 << 30) - 1;
        for shift in -31..=-1 {
            for m in [0, 1, -1, 1 << 30, i32::MAX, i32::MIN + 1, 1_518_500_250, -7] {
                let (q, f) = (
                    Requantizer::new(m, shift),
                    RightRequantizer::new_checked(m, shift),
                );
                assert_eq!(RightRequantizer::new(m, shift).is_some(), m >= 0);
                for x in [
                    -edge,
                    -edge + 1,
                    -65536,
                    -3,
                    -2,
                    -1,
                    0,
                    1,
                    2,
                    3,
                    65535,
                    edge,
                ] {
                    assert_eq!(f.apply(x), q.apply(x), "{x} {m} {shift}");
                    assert_eq!(f.try_apply(x), Some(q.apply(x)), "{x} {m} {shift}");
                }
                for x in [-(1 << 30), i32::MIN, (1 << 30), i32::MAX, -(1 << 30) - 1] {
                    let inside = x == -(1 << 30);
                    if m < 0 && inside {
                        continue;
                    }
                    assert_eq!(
                        f.try_apply(x),
                        inside.then(|| q.apply(x)),
                        "{x} {m} {shift}"
                    );
                }
                for _ in 0..2_000 {
                    let x = (next() as i32) >> (2 + next() % 30);
                    assert_eq!(f.apply(x), q.apply(x), "{x} {m} {shift}");
                }
            }
            let m = (next() >> 1) as i32 | (1 << 30);
            let (q, f) = (
                Requantizer::new(m, shift),
                RightRequantizer::new(m, shift).unwrap(),
            );
            for _ in 0..5_000 {
                let x = (next() as i32) >> (2 + next() % 30);
                assert_eq!(f.apply(x), q.apply(x), "{x} {m} {shift}");
            }
        }
        for shift in [0, 1, 5, -32, i32::MIN] {
            assert!(RightRequantizer::new(1 << 30, shift).is_none());
        }
        assert!(RightRequantizer::new(i32::MIN, -5).is_none());
    }

    #[test]
    fn softmax_radius() {
        // TFLM's tests: beta 1, scale 0.1 → multiplier/shift, radius.
        let (m, s) = preprocess_softmax_scaling("SOFTMAX", 1.0, 0.1, 5).unwrap();
        assert!(m >= 1 << 30);
        assert_eq!(s, 23);
        assert_eq!(calculate_input_radius(5, s, 31), Some(248));
        assert_eq!(calculate_input_radius(4, -1, 31), None);
        assert_eq!(calculate_input_radius(4, 63, 31), None);
    }

    #[test]
    fn padding_same_and_valid() {
        assert_eq!(
            compute_padding("T", Padding::Same, 96, 3, 2, 1).unwrap(),
            (48, 0)
        );
        assert_eq!(
            compute_padding("T", Padding::Same, 5, 3, 1, 1).unwrap(),
            (5, 1)
        );
        assert_eq!(
            compute_padding("T", Padding::Valid, 49, 10, 2, 1).unwrap(),
            (20, 0)
        );
        assert_eq!(
            compute_padding("T", Padding::Same, 7, 3, 1, 2).unwrap(),
            (7, 2)
        );
    }

    /// The output size in `usize` quotients is the `int` (here `i64`) one TFLM computes, for
    /// every operand up to 2^31 - 1, a VALID window longer than the input included.
    #[test]
    fn padding_quotients_are_the_64_bit_ones() {
        let reference = |padding, in_size: i64, f: i64, stride: i64, d: i64| {
            let effective = (f - 1) * d + 1;
            match padding {
                Padding::Same => (in_size + stride - 1) / stride,
                Padding::Valid => (in_size + stride - effective) / stride,
            }
        };
        let max = i32::MAX as usize;
        let values = [1, 2, 3, 4, 5, 7, 8, 9, 17, 1 << 20, max / 2, max - 1, max];
        for padding in [Padding::Same, Padding::Valid] {
            for &n in &values {
                for &f in &values[..9] {
                    for &s in &values {
                        for &d in &values[..6] {
                            let r = reference(padding, n as i64, f as i64, s as i64, d as i64);
                            match compute_padding("T", padding, n, f, s, d) {
                                Ok((out, _)) => assert_eq!(out as i64, r, "{n} {f} {s} {d}"),
                                Err(KernelError::Shape { reason, .. }) => {
                                    assert_eq!(reason, ShapeFault::FilterLargerThanInput);
                                    assert!(r < 0, "{n} {f} {s} {d}");
                                }
                                Err(_) => {}
                            }
                        }
                    }
                }
            }
        }
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(QuantParams {
    scale: f32,
    zero_point: i32,
});
