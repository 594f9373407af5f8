//! MUL, int8, with broadcasting ([`crate::ops::elementwise::binary`]): `reference_integer_ops::MulElementwise` /
//! `BroadcastMul6DSlow` prepared by `CalculateOpDataMul`: one multiplier
//! `input1_scale * input2_scale / output_scale`. Float32: [`MulF32`] (`x · y`, clamped).
//! int32 (unquantized): [`MulI32`] (wrapping, clamped). int16 (16x8 quantization, zero points
//! 0): [`MulI16`] ([`MulI16Params`]), its own kernel, element-wise in place where an input
//! has the output's shape.

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError};
use crate::math::{
    activation_range, activation_range_i8, int8_zero_point, multiply_by_quantized_multiplier,
    requantization_multiplier, zero_point_in, Activation, QuantParams, Requantizer,
};
use crate::ops::common::Int8;
use crate::ops::elementwise::binary::I32Params;
use crate::ops::elementwise::binary::{
    Binary, BinaryF32, BinaryI16, Broadcast, Elementwise, ElementwiseI16,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MUL];

/// A prepared int8 MUL: made only by [`MulParams::new`], as [`AddParams`](crate::ops::elementwise::add::AddParams).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MulParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// Output multiplier.
    pub(crate) multiplier: i32,
    /// Output shift.
    pub(crate) shift: i32,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl MulParams {
    /// Prepares an int8 MUL.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        activation: Activation,
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "MUL";
        let broadcast = Broadcast::new(OP, input1_shape, input2_shape, output_shape)?;
        let (act_min, act_max) = activation_range_i8(OP, activation, output)?;
        let real = f64::from(input1.scale) * f64::from(input2.scale) / f64::from(output.scale);
        let (multiplier, shift) = requantization_multiplier(OP, real)?;
        Ok(MulParams {
            broadcast,
            input1_offset: -int8_zero_point(OP, input1)?,
            input2_offset: -int8_zero_point(OP, input2)?,
            output_offset: int8_zero_point(OP, output)?,
            multiplier,
            shift,
            act_min,
            act_max,
        })
    }
}

/// MUL, int8 ([`crate::ops::elementwise::binary::run`]).
pub fn mul<A: Int8, B: Int8>(
    p: &MulParams,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    crate::ops::elementwise::binary::run(p, in1, in2, output)
}

impl Elementwise for MulParams {
    const NAME: &'static str = "MUL";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    #[inline]
    fn value(&self, x: i32, y: i32) -> i8 {
        let a = self.input1_offset + x;
        let b = self.input2_offset + y;
        let v = self
            .output_offset
            .wrapping_add(multiply_by_quantized_multiplier(
                a.wrapping_mul(b),
                self.multiplier,
                self.shift,
            ));
        v.max(self.act_min).min(self.act_max) as i8
    }
}

/// Prepares MUL.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if crate::ops::elementwise::binary::is_i16(cx) {
        return prepare_i16(cx);
    }
    if crate::ops::elementwise::binary::is_i32(cx) {
        let bc = crate::ops::elementwise::binary::prepare_i32(cx)?;
        let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
        return Prepared::of::<MulI32>(cx, I32Params::new(bc, Some(ac)));
    }
    if crate::ops::elementwise::binary::is_float(cx) {
        return Prepared::of::<MulF32>(cx, crate::ops::elementwise::binary::prepare_f32(cx)?);
    }
    let (ac, a, b, out) = crate::ops::elementwise::binary::prepare(cx)?;
    // Read where it was returned (not moved out).
    match &MulParams::new(ac, a.shape(), b.shape(), out.shape(), a.q, b.q, out.q) {
        Ok(p) => Prepared::of::<Mul>(cx, *p),
        Err(e) => Err(cx.err(*e)),
    }
}

/// The MUL kernel, int8.
pub type Mul = Binary<MulParams>;

crate::format::codec::words!(MulParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
    act_min: i32,
    act_max: i32,
});

impl crate::ops::elementwise::binary::OpF32 for MulOp {
    const NAME: &'static str = "MUL";
    /// `x * y` (TFLM's reference float MUL; then the clamp).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        x * y
    }
}

/// The MUL kernel, float32.
pub type MulF32 = BinaryF32<MulOp>;

/// MUL int32 (unquantized): `reference_ops::Mul` on `int32_t`, wrapping.
pub struct MulOp;

impl crate::ops::elementwise::binary::OpI32 for MulOp {
    const NAME: &'static str = "MUL";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(x.wrapping_mul(y))
    }
}

/// The MUL kernel, int32.
pub type MulI32 = crate::ops::elementwise::binary::BinaryI32<MulOp>;

/// A prepared int16 MUL (TFLM's 16x8 quantization): `reference_integer_ops::MulElementwise`
/// / `BroadcastMul6DSlow` on `int16_t`: `MultiplyByQuantizedMultiplier(x · y)` (the product in
/// `int32`, the multiplier `input1_scale · input2_scale / output_scale` in double), clamped
/// to the activation's int16 range. Every zero point 0 (TFLM's `CalculateOpDataMul` requires
/// it). Made only by [`MulI16Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MulI16Params {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// Output multiplier.
    pub(crate) multiplier: i32,
    /// Output shift.
    pub(crate) shift: i32,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl MulI16Params {
    /// Prepares an int16 MUL. Refused: a zero point other than 0, a multiplier that is not
    /// finite and non-negative or of a shift over 31.
    pub fn new(
        activation: Activation,
        broadcast: Broadcast,
        [input1, input2, output]: [QuantParams; 3],
    ) -> Result<Self, KernelError> {
        const OP: &str = "MUL";
        for q in [input1, input2, output] {
            zero_point_in(OP, q, 0, 0)?;
        }
        let (act_min, act_max) = activation_range(
            OP,
            activation,
            output,
            i32::from(i16::MIN),
            i32::from(i16::MAX),
        )?;
        let real = f64::from(input1.scale) * f64::from(input2.scale) / f64::from(output.scale);
        let (multiplier, shift) = requantization_multiplier(OP, real)?;
        Ok(MulI16Params {
            broadcast,
            multiplier,
            shift,
            act_min,
            act_max,
        })
    }
}

impl ElementwiseI16 for MulI16Params {
    const NAME: &'static str = "MUL";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    fn values(&self) -> impl Fn(i32, i32) -> i16 + '_ {
        let r = Requantizer::new(self.multiplier, self.shift);
        // `|x · y| ≤ 2^30`: the product fits an `int32`.
        move |x, y| r.apply(x * y).clamp(self.act_min, self.act_max) as i16
    }
}

/// Prepares an int16 MUL, in a frame of its own.
#[cold]
#[inline(never)]
fn prepare_i16<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (ac, bc, q) = crate::ops::elementwise::binary::prepare_i16(cx, true)?;
    Prepared::of::<MulI16>(cx, MulI16Params::new(ac, bc, q).map_err(|e| cx.err(e))?)
}

/// The MUL kernel, int16.
pub type MulI16 = BinaryI16<MulI16Params>;

crate::format::codec::words!(MulI16Params {
    broadcast: Broadcast,
    multiplier: i32,
    shift: i32,
    act_min: i32,
    act_max: i32,
});
