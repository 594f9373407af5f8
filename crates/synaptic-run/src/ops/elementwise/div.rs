//! DIV: `reference_ops::Div` / `BroadcastDivSlow` (int8: `DivElementwise` /
//! `BroadcastDivSlowQuantized`), at every type TFLM's `div.cc` runs:
//! - int8 (quantized): both inputs offset; a negative divisor negates both; the dividend
//!   shifted left by its headroom (`CountLeadingSignBits`) times the divisor's reciprocal
//!   (`GetReciprocal(divisor, 31)`, `MultiplyByQuantizedMultiplierGreaterThanOne`), then the
//!   output multiplier of `double(s1) / (double(s2) · double(so))` (the wheel's, as its other
//!   scale products: docs/runtime.md, "Scale products in double"; exact ties of the quotient
//!   tell it from the float quotient `div.cc` writes) by
//!   `MultiplyByQuantizedMultiplierSmallerThanOneExp` with the total shift (`output_shift - recip_shift - headroom`), offset and clamped to the
//!   fused activation's range. A total shift past 31 (a small dividend over a large divisor)
//!   divides as TFLM's compiled gemmlowp does on the wheel's x86-64: its mask all ones, the
//!   shift count taken modulo 32 (checked against the wheel); a zero divisor, which TFLM only
//!   asserts against, computes what TFLM's release build computes. An output multiplier that
//!   is not finite or of shift above 21 (a positive total shift: gemmlowp's negative exponent)
//!   is refused at load.
//! - int32 (unquantized): C's truncating division then the fused activation's clamp
//!   (`CalculateActivationRange`). A division by zero is a kernel error here (TFLM's would
//!   trap), a constant divisor holding a zero refused at load; `i32::MIN / -1` wraps.
//! - float32: `x / y` (IEEE: a zero divisor gives an infinity or NaN, as TFLM's), clamped to
//!   the fused activation's range.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::fixedpoint::saturating_rounding_doubling_high_mul;
use crate::math::{
    activation_range_i8, get_reciprocal, int8_zero_point,
    multiply_by_quantized_multiplier_greater_than_one, quantize_multiplier, Activation,
    QuantParams,
};
use crate::ops::elementwise::binary::{
    self, is_float, is_i32, prepare_f32, prepare_i32, Binary, BinaryF32, BinaryI32, Broadcast,
    Elementwise, I32Params, OpF32, OpI32,
};
use crate::ops::{Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DIV];

/// Prepares DIV.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if is_float(cx) {
        return Prepared::of::<DivF32>(cx, prepare_f32(cx)?);
    }
    if cx.output_ty() == Some(TensorType::Int8) {
        let (ac, a, b, out) = binary::prepare(cx)?;
        return match &DivParams::new(ac, a.shape(), b.shape(), out.shape(), a.q, b.q, out.q) {
            Ok(p) => Prepared::of::<Div>(cx, *p),
            Err(e) => Err(cx.err(*e)),
        };
    }
    if !is_i32(cx) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Int8Int32OrFloat32,
        }));
    }
    let bc = prepare_i32(cx)?;
    // A constant divisor with a zero: every invocation would fail (TFLM's would trap), so it
    // is refused here. (An activation's zero is known only at its invocation, which it fails.)
    let divisor = cx.input(1)?;
    if divisor
        .data
        .chunks_exact(4)
        .take(divisor.bytes / 4)
        .any(|w| w == [0; 4])
    {
        return Err(cx.unsupported(Unsupported::DivisionByZero));
    }
    let ac = cx.activation(cx.op().arithmetic_activation(cx.code())?)?;
    Prepared::of::<DivI32>(cx, I32Params::new(bc, Some(ac)))
}

/// DIV on int32.
pub struct DivOp;

impl OpI32 for DivOp {
    const NAME: &'static str = "DIV";
    #[inline]
    fn value(x: i32, y: i32) -> Option<i32> {
        (y != 0).then(|| x.wrapping_div(y))
    }
}

/// The DIV kernel, int32.
pub type DivI32 = BinaryI32<DivOp>;

impl OpF32 for DivOp {
    const NAME: &'static str = "DIV";
    /// `x / y` (TFLM's reference float DIV; then the clamp).
    #[inline]
    fn value(x: f32, y: f32) -> f32 {
        x / y
    }
}

/// The DIV kernel, float32.
pub type DivF32 = BinaryF32<DivOp>;

/// A prepared int8 DIV (TFLM's `OpDataDiv`): made only by [`DivParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DivParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// The output multiplier of `s1 / (s2 · so)` (in double).
    pub(crate) multiplier: i32,
    /// Its shift (at most 21).
    pub(crate) shift: i32,
    /// The fused activation's clamp.
    pub(crate) act_min: i32,
    /// Its upper bound.
    pub(crate) act_max: i32,
}

impl DivParams {
    /// Prepares an int8 DIV (`CalculateOpDataDiv`): zero points in int8's range, the
    /// multiplier of `s1 / (s2 · so)` in double (finite, of shift at most 21), the
    /// activation's range.
    pub fn new(
        activation: Activation,
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "DIV";
        let broadcast = Broadcast::new(OP, input1_shape, input2_shape, output_shape)?;
        let real = f64::from(input1.scale) / (f64::from(input2.scale) * f64::from(output.scale));
        if !(real.is_finite() && real >= 0.0) {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        let (multiplier, shift) = quantize_multiplier(real);
        if shift > 21 {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        let (act_min, act_max) = activation_range_i8(OP, activation, output)?;
        Ok(DivParams {
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

/// `CountLeadingSignBits` of an `int32` (GCC's `__builtin_clrsb`: 31 for 0 and -1).
#[inline(always)]
fn leading_sign_bits(x: i32) -> i32 {
    let v = if x < 0 { !x } else { x };
    v.leading_zeros() as i32 - 1
}

/// gemmlowp's `RoundingDivideByPOT(x, exponent)` for any `exponent >= 0` as the wheel's
/// x86-64 build computes it: its mask `(1ll << exponent) - 1` truncated to 32 bits (all ones
/// past 31), the arithmetic shift's count modulo 32 (the `sar` instruction's).
#[inline(always)]
fn rounding_divide_by_pot_x86(x: i32, exponent: u32) -> i32 {
    let mask = if exponent < 32 {
        (1u32 << exponent).wrapping_sub(1) as i32
    } else {
        -1
    };
    let remainder = x & mask;
    let threshold = (mask >> 1) + i32::from(x < 0);
    (x >> (exponent & 31)) + i32::from(remainder > threshold)
}

impl Elementwise for DivParams {
    const NAME: &'static str = "DIV";

    fn broadcast(&self) -> &Broadcast {
        &self.broadcast
    }

    #[inline]
    fn value(&self, x: i32, y: i32) -> i8 {
        let mut a = self.input1_offset + x;
        let mut b = self.input2_offset + y;
        if b < 0 {
            a = -a;
            b = -b;
        }
        let (inverse, recip_shift) = get_reciprocal(b, 31);
        let headroom = leading_sign_bits(a);
        let unscaled = multiply_by_quantized_multiplier_greater_than_one(a, inverse, headroom);
        // At most 21 + 1 - 23 < 0: `|a| <= 255` has a headroom of 23 or more, `recip_shift`
        // is -1 (a zero divisor) or more.
        let total_shift = self.shift - recip_shift - headroom;
        let scaled = rounding_divide_by_pot_x86(
            saturating_rounding_doubling_high_mul(unscaled, self.multiplier),
            total_shift.unsigned_abs(),
        );
        let v = self.output_offset.wrapping_add(scaled);
        v.max(self.act_min).min(self.act_max) as i8
    }
}

/// The DIV kernel, int8.
pub type Div = Binary<DivParams>;

crate::format::codec::words!(DivParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
    act_min: i32,
    act_max: i32,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact ties of the quotient round as the wheel's (every pair of int8 values of five
    /// quantizations was checked against it): -1.25 / 0.1 + 2 → -11, 6.25 / 0.1 + 2 → 65.
    #[test]
    fn int8_ties_round_as_the_wheel() {
        let q = |s, z| QuantParams::new(s, z);
        let p = DivParams::new(
            Activation::None,
            &[1],
            &[1],
            &[1],
            q(0.05, 3),
            q(0.04, -7),
            q(0.1, 2),
        )
        .unwrap();
        assert_eq!(p.value(-125, 121), -11);
        assert_eq!(p.value(-117, -31), 65);
        assert_eq!(p.value(-123, -25), 90);
    }
}
