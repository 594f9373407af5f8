//! QUANTIZE (float → int, and int → int requantization) and DEQUANTIZE (int → float).
//!
//! Mirrors `micro/kernels/quantize_common.cc`: float input uses `reference_ops::AffineQuantize`
//! (`round(x / float(scale)) + zero_point` in `float`, ties away from zero, clamped); integer
//! input uses `reference_ops::Requantize` with `QuantizeMultiplier(input_scale / output_scale)`
//! (its int8↔uint8 same-scale shortcut gives the same bytes as the general path, so it is not
//! special-cased). DEQUANTIZE mirrors `reference_ops::Dequantize`: `float(double(scale) *
//! (q - zero_point))`.
//!
//! One platform difference: a float whose quotient does not fit `int32` (or NaN) converts with
//! Rust's saturating `as`, like Arm's `VCVT`; TFLM on an x86 host gets `INT32_MIN` there.

use super::QInt;
use crate::error::KernelError;
use crate::math::{
    multiply_by_quantized_multiplier, requantization_multiplier, round_f32, QuantParams,
};

/// QUANTIZE from `f32` to an integer type `T` (int8, uint8, int16).
pub fn quantize_f32<T: QInt>(
    output_q: QuantParams,
    input: &[f32],
    output: &mut [T],
) -> Result<(), KernelError> {
    KernelError::check_len("QUANTIZE", "output", input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = quantize_value(output_q, x);
    }
    Ok(())
}

/// One QUANTIZE output from a float (shared with [`super::overlapped`]).
#[inline]
pub(crate) fn quantize_value<T: QInt>(output_q: QuantParams, x: f32) -> T {
    let q = (round_f32(x / output_q.scale) as i32).wrapping_add(output_q.zero_point);
    T::from_i32(q.clamp(T::MIN, T::MAX))
}

/// A prepared integer-to-integer QUANTIZE: made only by [`RequantizeParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequantizeParams {
    /// Multiplier of `input_scale / output_scale`.
    pub(crate) multiplier: i32,
    /// Its shift.
    pub(crate) shift: i32,
    /// Input zero point.
    pub(crate) input_zero_point: i32,
    /// Output zero point.
    pub(crate) output_zero_point: i32,
}

impl RequantizeParams {
    /// Prepares a requantization from `input` to `output` (refused: a multiplier that is not
    /// finite or over 2^31, [`crate::math::requantization_multiplier`]).
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        let (multiplier, shift) = requantization_multiplier(
            "QUANTIZE",
            f64::from(input.scale) / f64::from(output.scale),
        )?;
        Ok(RequantizeParams {
            multiplier,
            shift,
            input_zero_point: input.zero_point,
            output_zero_point: output.zero_point,
        })
    }
}

/// QUANTIZE from integer type `I` to integer type `O` (`Requantize`).
pub fn requantize<I: QInt, O: QInt>(
    p: &RequantizeParams,
    input: &[I],
    output: &mut [O],
) -> Result<(), KernelError> {
    KernelError::check_len("QUANTIZE", "output", input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = requantize_value(p, x);
    }
    Ok(())
}

/// One requantized output (shared with [`super::overlapped`]).
#[inline]
pub(crate) fn requantize_value<I: QInt, O: QInt>(p: &RequantizeParams, x: I) -> O {
    let v = x.to_i32().wrapping_sub(p.input_zero_point);
    let r = multiply_by_quantized_multiplier(v, p.multiplier, p.shift)
        .wrapping_add(p.output_zero_point);
    O::from_i32(r.clamp(O::MIN, O::MAX))
}

/// DEQUANTIZE from an integer type `T` to `f32`.
pub fn dequantize<T: QInt>(
    input_q: QuantParams,
    input: &[T],
    output: &mut [f32],
) -> Result<(), KernelError> {
    KernelError::check_len("DEQUANTIZE", "output", input.len(), output.len())?;
    let scale = f64::from(input_q.scale);
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = dequantize_value(scale, input_q.zero_point, x);
    }
    Ok(())
}

// The program's word codec of each prepared struct (`crate::program::codec`).
crate::program::codec::words!(RequantizeParams {
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
});

/// One DEQUANTIZE output, `scale` the input scale as `f64` (shared with
/// [`super::overlapped`]).
#[inline]
pub(crate) fn dequantize_value<T: QInt>(scale: f64, zero_point: i32, x: T) -> f32 {
    (scale * f64::from(x.to_i32().wrapping_sub(zero_point))) as f32
}
