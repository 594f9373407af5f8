//! SQUARED_DIFFERENCE, with broadcasting ([`crate::ops::elementwise::binary`]), as TFLM's
//! `squared_difference.cc`:
//! - int8: both inputs offset, shifted left by 7 bits and scaled by `SmallerThanOneExp`
//!   multipliers (`scale / (2 · max_scale)`, in double), their difference squared (below
//!   2^31: `|difference| < 2^15`), then scaled by `(2 · max_scale)^2 / (2^14 · output_scale)`
//!   with the general `MultiplyByQuantizedMultiplier`, offset and clamped to int8's range (no
//!   fused activation).
//! - float32 and int32: `(x - y)^2` (int32 wrapping, as C's two's complement gives).
//! - int16 (16x8 quantization, [`SquaredDifferenceI16`]): the int8 arithmetic with a left shift
//!   of 0, zero points 0 (TFLM requires them), clamped to int16's range
//!   ([`SquaredDifferenceI16Params`]); element-wise, in place where an input has the output's
//!   shape.

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError};
use crate::math::{
    int8_zero_point, quantize_multiplier, quantize_multiplier_smaller_than_one_exp,
    requantization_multiplier, zero_point_in, QuantParams, Requantizer,
};
use crate::ops::common::Int8;
use crate::ops::elementwise::binary::{
    self, Binary, BinaryF32, BinaryI16, BinaryI32, Broadcast, Elementwise, ElementwiseI16,
    I32Params, OpF32, OpI32,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SQUARED_DIFFERENCE];

/// The left shift of int8 inputs (TFLM's `left_shift`: 255^2 · 2^14 fits in 32 bits).
const LEFT_SHIFT: i32 = 7;

/// A prepared int8 SQUARED_DIFFERENCE: made only by [`SquaredDifferenceParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquaredDifferenceParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// Input 1 multiplier and shift (`SmallerThanOneExp`).
    pub(crate) input1: (i32, i32),
    /// Input 2 multiplier and shift (`SmallerThanOneExp`).
    pub(crate) input2: (i32, i32),
    /// Output multiplier and shift (`QuantizeMultiplier`).
    pub(crate) output: (i32, i32),
}

impl SquaredDifferenceParams {
    /// Prepares an int8 SQUARED_DIFFERENCE (`PrepareQuantized`).
    pub fn new(
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "SQUARED_DIFFERENCE";
        let broadcast = Broadcast::new(OP, input1_shape, input2_shape, output_shape)?;
        let twice_max_input_scale = 2.0 * f64::from(input1.scale.max(input2.scale));
        let real1 = f64::from(input1.scale) / twice_max_input_scale;
        let real2 = f64::from(input2.scale) / twice_max_input_scale;
        // `(1 << left_shift * 2) * output_scale` in float (exact: a power of two), widened.
        let shifted_scale = ((1i32 << (LEFT_SHIFT * 2)) as f32 * output.scale) as f64;
        let real_out = twice_max_input_scale * twice_max_input_scale / shifted_scale;
        Ok(SquaredDifferenceParams {
            broadcast,
            input1_offset: -int8_zero_point(OP, input1)?,
            input2_offset: -int8_zero_point(OP, input2)?,
            output_offset: int8_zero_point(OP, output)?,
            input1: quantize_multiplier_smaller_than_one_exp(OP, real1)?,
            input2: quantize_multiplier_smaller_than_one_exp(OP, real2)?,
            output: quantize_multiplier(real_out),
        })
    }
}

impl Elementwise for SquaredDifferenceParams {
    const NAME: &'static str = "SQUARED_DIFFERENCE";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    #[inline]
    fn value(&self, x: i32, y: i32) -> i8 {
        (self.values())(x, y)
    }

    /// The three requantizers made once; per element two shifts, the difference squared
    /// and three multiplies (TFLM's `SquaredDifference<int8_t>` with `ArithmeticParams`).
    #[inline(always)]
    fn values(&self) -> impl Fn(i32, i32) -> i8 + '_ {
        let [r1, r2, ro] =
            [self.input1, self.input2, self.output].map(|(m, s)| Requantizer::new(m, s));
        let shift = 1i32 << LEFT_SHIFT;
        move |x, y| {
            let a = r1.apply((self.input1_offset + x).wrapping_mul(shift));
            let b = r2.apply((self.input2_offset + y).wrapping_mul(shift));
            let d = a.wrapping_sub(b);
            let raw = ro.apply(d.wrapping_mul(d)).wrapping_add(self.output_offset);
            raw.clamp(-128, 127) as i8
        }
    }
}

/// SQUARED_DIFFERENCE, int8 ([`crate::ops::elementwise::binary::run`]).
pub fn squared_difference<A: Int8, B: Int8>(
    p: &SquaredDifferenceParams,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    binary::run(p, in1, in2, output)
}

pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if binary::is_i16(cx) {
        return prepare_i16(cx);
    }
    let i32 = binary::is_i32(cx);
    if i32 || binary::is_float(cx) {
        return prepare_wide(cx, i32);
    }
    let (_, a, b, out) = binary::prepare(cx)?;
    match &SquaredDifferenceParams::new(a.shape(), b.shape(), out.shape(), a.q, b.q, out.q) {
        Ok(p) => Prepared::of::<SquaredDifference>(cx, *p),
        Err(e) => Err(cx.err(*e)),
    }
}

/// SQUARED_DIFFERENCE of int32 or float32 tensors, in a frame of its own (as ADD's): no
/// activation, so the full range.
#[cold]
#[inline(never)]
fn prepare_wide<'m>(cx: &Prep<'_, 'm>, i32: bool) -> Result<Prepared<'m>, LoadError> {
    if i32 {
        let bc = binary::prepare_i32(cx)?;
        return Prepared::of::<SquaredDifferenceI32>(cx, I32Params::new(bc, None));
    }
    // (No options: the activation none, the full range.)
    Prepared::of::<SquaredDifferenceF32>(cx, binary::prepare_f32(cx)?)
}

/// The SQUARED_DIFFERENCE kernel, int8.
pub type SquaredDifference = Binary<SquaredDifferenceParams>;

crate::format::codec::words!(SquaredDifferenceParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    input1: (i32, i32),
    input2: (i32, i32),
    output: (i32, i32),
});

/// SQUARED_DIFFERENCE's operation: `(x - y)^2`.
pub struct SquaredDifferenceOp;

impl OpF32 for SquaredDifferenceOp {
    const NAME: &'static str = "SQUARED_DIFFERENCE";
    /// `d * d` of `d = x - y` (TFLM's `SquaredDifference<float>`).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        let d = x - y;
        d * d
    }
}

impl OpI32 for SquaredDifferenceOp {
    const NAME: &'static str = "SQUARED_DIFFERENCE";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        let d = x.wrapping_sub(y);
        Some(d.wrapping_mul(d))
    }
}

/// The SQUARED_DIFFERENCE kernel, float32.
pub type SquaredDifferenceF32 = BinaryF32<SquaredDifferenceOp>;
/// The SQUARED_DIFFERENCE kernel, int32.
pub type SquaredDifferenceI32 = BinaryI32<SquaredDifferenceOp>;

/// A prepared int16 SQUARED_DIFFERENCE (`PrepareQuantized` with `left_shift` 0): the inputs
/// (zero points 0, TFLM requires them) scaled by `SmallerThanOneExp` multipliers
/// (`scale / (2 · max_scale)`, in double), their difference squared (at most `2^30`), scaled by
/// `(2 · max_scale)^2 / output_scale` with the general `MultiplyByQuantizedMultiplier` and
/// clamped to int16 (no fused activation). Made only by [`SquaredDifferenceI16Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SquaredDifferenceI16Params {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// Input 1 multiplier and shift (`SmallerThanOneExp`).
    pub(crate) input1: (i32, i32),
    /// Input 2 multiplier and shift (`SmallerThanOneExp`).
    pub(crate) input2: (i32, i32),
    /// Output multiplier and shift (`QuantizeMultiplier`).
    pub(crate) output: (i32, i32),
}

impl SquaredDifferenceI16Params {
    /// Prepares an int16 SQUARED_DIFFERENCE. Refused: a zero point other than 0, an output
    /// multiplier that is not finite or of a shift over 31.
    pub fn new(
        broadcast: Broadcast,
        [input1, input2, output]: [QuantParams; 3],
    ) -> Result<Self, KernelError> {
        const OP: &str = "SQUARED_DIFFERENCE";
        for q in [input1, input2, output] {
            zero_point_in(OP, q, 0, 0)?;
        }
        let twice_max_input_scale = 2.0 * f64::from(input1.scale.max(input2.scale));
        let real1 = f64::from(input1.scale) / twice_max_input_scale;
        let real2 = f64::from(input2.scale) / twice_max_input_scale;
        // `(1 << 0) * output_scale`: the output scale itself, widened.
        let real_out = twice_max_input_scale * twice_max_input_scale / f64::from(output.scale);
        Ok(SquaredDifferenceI16Params {
            broadcast,
            input1: quantize_multiplier_smaller_than_one_exp(OP, real1)?,
            input2: quantize_multiplier_smaller_than_one_exp(OP, real2)?,
            output: requantization_multiplier(OP, real_out)?,
        })
    }
}

impl ElementwiseI16 for SquaredDifferenceI16Params {
    const NAME: &'static str = "SQUARED_DIFFERENCE";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    /// TFLM's `SquaredDifference<int16_t>` with `ArithmeticParams`: the three requantizers
    /// made once.
    fn values(&self) -> impl Fn(i32, i32) -> i16 + '_ {
        let [r1, r2, ro] =
            [self.input1, self.input2, self.output].map(|(m, s)| Requantizer::new(m, s));
        move |x, y| {
            let d = r1.apply(x).wrapping_sub(r2.apply(y));
            ro.apply(d.wrapping_mul(d))
                .clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16
        }
    }
}

/// Prepares an int16 SQUARED_DIFFERENCE, in a frame of its own.
#[cold]
#[inline(never)]
fn prepare_i16<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (_, bc, q) = binary::prepare_i16(cx, false)?;
    let p = SquaredDifferenceI16Params::new(bc, q).map_err(|e| cx.err(e))?;
    Prepared::of::<SquaredDifferenceI16>(cx, p)
}

/// The SQUARED_DIFFERENCE kernel, int16.
pub type SquaredDifferenceI16 = BinaryI16<SquaredDifferenceI16Params>;

crate::format::codec::words!(SquaredDifferenceI16Params {
    broadcast: Broadcast,
    input1: (i32, i32),
    input2: (i32, i32),
    output: (i32, i32),
});
