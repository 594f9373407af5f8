//! SUB, with broadcasting ([`crate::ops::elementwise::binary`]), as TFLM's `sub.cc`:
//! - int8: ADD's arithmetic ([`AddParams`]: both inputs shifted left by 20 bits and scaled by
//!   `SmallerThanOneExp` multipliers) with the scaled inputs subtracted (`SubElementwise`,
//!   `BroadcastQuantSubSlow`); the multipliers computed as `CalculateOpDataSub` does, in
//!   single precision before the widening (ADD's in double), so a scale pair may round to
//!   another multiplier than ADD's.
//! - float32: `x - y`, clamped to the fused activation's range.
//! - int32 (unquantized): `x - y` wrapping, clamped to the fused activation's range
//!   (`SubWithActivation`: unlike ADD int32, SUB int32 applies its activation).
//! - int16 (16x8 quantization, [`SubI16`]): int16 ADD's arithmetic ([`AddI16Params`]: a
//!   left shift of 15, the int16 clamp) with the scaled inputs subtracted, the multipliers as
//!   the int8 SUB's; input zero points 0 (TFLM asserts it). Element-wise, in place where an
//!   input has the output's shape.

use core::cell::Cell;

use synaptic_tflite::code;

use crate::error::{KernelError, LoadError, Unsupported};
use crate::math::{Activation, QuantParams};
use crate::ops::common::Int8;
use crate::ops::elementwise::add::{AddI16Params, AddParams, LEFT_SHIFT, LEFT_SHIFT_I16};
use crate::ops::elementwise::binary::{
    self, Binary, BinaryF32, BinaryI16, BinaryI32, Broadcast, Elementwise, ElementwiseI16,
    I32Params, OpI32,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SUB];

/// A prepared int8 SUB: ADD's parameters, the scaled inputs subtracted. Made only by
/// [`SubParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubParams {
    /// The offsets, multipliers and clamp (computed as `CalculateOpDataSub` does).
    pub(crate) add: AddParams,
}

impl SubParams {
    /// Prepares an int8 SUB (`input1 - input2`).
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
        // `CalculateOpDataSub`: each quotient in float, then widened.
        let twice_max_input_scale = 2.0 * input1.scale.max(input2.scale);
        let real1 = f64::from(input1.scale / twice_max_input_scale);
        let real2 = f64::from(input2.scale / twice_max_input_scale);
        let real_out =
            f64::from(twice_max_input_scale / ((1i32 << LEFT_SHIFT) as f32 * output.scale));
        let shapes = [input1_shape, input2_shape, output_shape];
        let q = [input1, input2, output];
        let add =
            AddParams::with_multipliers("SUB", activation, shapes, q, [real1, real2, real_out])?;
        Ok(SubParams { add })
    }
}

impl Elementwise for SubParams {
    const NAME: &'static str = "SUB";

    fn broadcast(&self) -> &Broadcast {
        &self.add.broadcast
    }

    #[inline]
    fn value(&self, x: i32, y: i32) -> i8 {
        (self.values())(x, y)
    }

    #[inline(always)]
    fn same<T: Int8>(
        &self,
        which: usize,
        mine: &[Cell<u8>],
        out: &[Cell<u8>],
        theirs: &[T],
        backward: bool,
    ) -> bool {
        self.add
            .same_of::<T, true>(which, mine, out, theirs, backward)
    }

    #[inline(always)]
    fn values(&self) -> impl Fn(i32, i32) -> i8 + '_ {
        self.add.values_of::<true>()
    }
}

/// SUB, int8 ([`crate::ops::elementwise::binary::run`]).
pub fn sub<A: Int8, B: Int8>(
    p: &SubParams,
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
    let (ac, a, b, out) = binary::prepare(cx)?;
    match &SubParams::new(ac, a.shape(), b.shape(), out.shape(), a.q, b.q, out.q) {
        Ok(p) => Prepared::of::<Sub>(cx, *p),
        Err(e) => Err(cx.err(*e)),
    }
}

/// SUB of int32 or float32 tensors, in a frame of its own (as ADD's).
#[cold]
#[inline(never)]
fn prepare_wide<'m>(cx: &Prep<'_, 'm>, i32: bool) -> Result<Prepared<'m>, LoadError> {
    if i32 {
        let bc = binary::prepare_i32(cx)?;
        let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
        return Prepared::of::<SubI32>(cx, I32Params::new(bc, Some(ac)));
    }
    Prepared::of::<SubF32>(cx, binary::prepare_f32(cx)?)
}

/// The SUB kernel, int8.
pub type Sub = Binary<SubParams>;

crate::format::codec::words!(SubParams { add: AddParams });

impl crate::ops::elementwise::binary::OpF32 for SubOp {
    const NAME: &'static str = "SUB";
    /// `x - y` (TFLM's reference float SUB; then the clamp).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        x - y
    }
}

/// The SUB kernel, float32.
pub type SubF32 = BinaryF32<SubOp>;

/// SUB int32 (unquantized): `reference_ops::SubWithActivation` on `int32_t`, wrapping.
pub struct SubOp;

impl OpI32 for SubOp {
    const NAME: &'static str = "SUB";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        Some(x.wrapping_sub(y))
    }
}

/// The SUB kernel, int32.
pub type SubI32 = BinaryI32<SubOp>;

/// A prepared int16 SUB: int16 ADD's parameters ([`AddI16Params`]), the scaled inputs
/// subtracted. Made only by [`SubI16Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubI16Params {
    /// The offsets (0), multipliers and clamp (computed as `CalculateOpDataSub` does).
    pub(crate) add: AddI16Params,
}

impl SubI16Params {
    /// Prepares an int16 SUB (`input1 - input2`): the multipliers in single precision before
    /// the widening, as the int8 SUB's. Refused: an input zero point other than 0 (TFLM's
    /// int16 `Sub` asserts both input offsets 0), an output zero point outside int16.
    pub fn new(
        activation: Activation,
        broadcast: Broadcast,
        [input1, input2, output]: [QuantParams; 3],
    ) -> Result<Self, KernelError> {
        for q in [input1, input2] {
            if q.zero_point != 0 {
                return Err(KernelError::unsupported(
                    "SUB",
                    Unsupported::ZeroPoint(q.zero_point),
                ));
            }
        }
        let twice_max_input_scale = 2.0 * input1.scale.max(input2.scale);
        let real1 = f64::from(input1.scale / twice_max_input_scale);
        let real2 = f64::from(input2.scale / twice_max_input_scale);
        let real_out =
            f64::from(twice_max_input_scale / ((1i32 << LEFT_SHIFT_I16) as f32 * output.scale));
        let reals = [real1, real2, real_out];
        let add =
            AddI16Params::with_multipliers("SUB", activation, broadcast, [0, 0], output, reals)?;
        Ok(SubI16Params { add })
    }
}

impl ElementwiseI16 for SubI16Params {
    const NAME: &'static str = "SUB";

    fn broadcast(&self) -> &Broadcast {
        &self.add.broadcast
    }

    fn values(&self) -> impl Fn(i32, i32) -> i16 + '_ {
        self.add.values_of::<true>()
    }
}

/// Prepares an int16 SUB, in a frame of its own.
#[cold]
#[inline(never)]
fn prepare_i16<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (ac, bc, q) = binary::prepare_i16(cx, true)?;
    Prepared::of::<SubI16>(cx, SubI16Params::new(ac, bc, q).map_err(|e| cx.err(e))?)
}

/// The SUB kernel, int16.
pub type SubI16 = BinaryI16<SubI16Params>;

crate::format::codec::words!(SubI16Params { add: AddI16Params });
