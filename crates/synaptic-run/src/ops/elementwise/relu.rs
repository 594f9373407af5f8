//! RELU and RELU6, int8, int16 and float32: TFLM's `micro/kernels/activations.cc`.
//!
//! - RELU int8 (`ReluQuantized<int8_t>`, prepared by `CalculateReluOpData<int8_t>`): each
//!   value requantized from the input's scale to the output's (`MultiplyByQuantizedMultiplier`
//!   of `x - input_zero_point` by `QuantizeMultiplier(double(input_scale / output_scale))`, the
//!   quotient in `float` first, exactly as TFLM), plus the output zero point, clamped to
//!   `[max(-128, output_zero_point), 127]`.
//! - RELU6 int8 (`Relu6Quantized<int8_t>`): no requantization — TFLM clamps the input's own
//!   values to `[zero, six]`, `zero` the input zero point and `six` =
//!   `FloatToQuantizedType<int8_t>(6.0f, input_scale, input_zero_point)` (`round(6.0f /
//!   scale) + zero_point`, clamped to int8), in TFLM's order of tests (`x > six` first).
//! - float32 (`ReluFloat`, `Relu6Float`): `x < 0 ? 0 : x`, `x > 6 ? 6 : x < 0 ? 0 : x` (a NaN
//!   and −0 pass through, as there).
//!
//! - RELU int16 ([`ReluI16`], `ReluQuantized<int16_t>`): RELU int8's requantization with both
//!   zero points 0 (TFLM's `ReluPrepare` requires them), clamped to `[0, 32767]`.
//! - RELU6 int16 ([`Relu6I16`], `Relu6Quantized<int16_t>`): RELU6 int8's clamp, `six` =
//!   `FloatToQuantizedType<int16_t>(6.0f, ...)` clamped to int16, the zero point any int16.
//!
//! Every kernel is element-wise: its output may overlap its dying input (in place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::{
    int8_zero_point, multiply_by_quantized_multiplier, quantize_multiplier, zero_point_in,
};
use crate::math::{round_f64, QuantParams};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::RELU, code::RELU6];

const RELU: &str = "RELU";
const RELU6: &str = "RELU6";

/// A prepared int8 RELU: made only by [`ReluParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReluParams {
    /// Input zero point.
    pub(crate) input_offset: i32,
    /// Output zero point.
    pub(crate) output_offset: i32,
    /// The requantization's multiplier (input scale over output scale).
    pub(crate) multiplier: i32,
    /// Its shift.
    pub(crate) shift: i32,
    /// The clamp's low end: `max(-128, output_zero_point)`.
    pub(crate) act_min: i32,
}

impl ReluParams {
    /// Prepares an int8 RELU from its input and output quantizations (`CalculateReluOpData`).
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        let input_offset = int8_zero_point(RELU, input)?;
        let output_offset = int8_zero_point(RELU, output)?;
        // `static_cast<double>(input->params.scale / output->params.scale)`: the quotient
        // in float, then widened.
        let real = f64::from(input.scale / output.scale);
        if !real.is_finite() || real <= 0.0 {
            return Err(KernelError::unsupported(RELU, Unsupported::InputScale));
        }
        let (multiplier, shift) = quantize_multiplier(real);
        // `output_zero_point + roundf(0.0f / output_scale)`: the zero point itself.
        Ok(ReluParams {
            input_offset,
            output_offset,
            multiplier,
            shift,
            act_min: output_offset.max(i32::from(i8::MIN)),
        })
    }

    /// One output value.
    #[inline]
    fn value(&self, x: i8) -> i8 {
        let v = self
            .output_offset
            .wrapping_add(multiply_by_quantized_multiplier(
                i32::from(x) - self.input_offset,
                self.multiplier,
                self.shift,
            ));
        v.max(self.act_min).min(i32::from(i8::MAX)) as i8
    }
}

/// A prepared int8 RELU6: the input's own values clamped to `[zero, six]`; made only by
/// [`Relu6Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Relu6Params {
    /// The input zero point (TFLM's `zero`).
    pub(crate) zero: i32,
    /// 6.0 in the input's quantization, clamped to int8 (TFLM's `six`).
    pub(crate) six: i32,
}

impl Relu6Params {
    /// Prepares an int8 RELU6 from its input quantization (`Relu6Prepare`).
    pub fn new(input: QuantParams) -> Result<Self, KernelError> {
        let zero = int8_zero_point(RELU6, input)?;
        // `FloatToQuantizedType<int8_t>`: `round(6.0f / scale)` (the quotient in float,
        // rounded half away from zero) plus the zero point, clamped to int8.
        let q = 6.0f32 / input.scale;
        if !q.is_finite() || input.scale <= 0.0 {
            return Err(KernelError::unsupported(RELU6, Unsupported::InputScale));
        }
        let six = (round_f64(f64::from(q)) as i64)
            .saturating_add(i64::from(zero))
            .clamp(i64::from(i8::MIN), i64::from(i8::MAX)) as i32;
        Ok(Relu6Params { zero, six })
    }

    /// One output value: `x > six ? six : x < zero ? zero : x`.
    #[inline]
    fn value(&self, x: i8) -> i8 {
        let v = i32::from(x);
        (if v > self.six {
            self.six
        } else if v < self.zero {
            self.zero
        } else {
            v
        }) as i8
    }
}

impl ReluParams {
    /// Prepares an int16 RELU (`CalculateReluOpData<int16_t>`): both zero points 0, so the
    /// clamp's low end is 0 (`max(-32768, 0 + roundf(0.0f / scale))`).
    pub fn new_i16(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        for q in [input, output] {
            zero_point_in(RELU, q, 0, 0)?;
        }
        let real = f64::from(input.scale / output.scale);
        if !real.is_finite() || real <= 0.0 {
            return Err(KernelError::unsupported(RELU, Unsupported::InputScale));
        }
        let (multiplier, shift) = quantize_multiplier(real);
        Ok(ReluParams {
            input_offset: 0,
            output_offset: 0,
            multiplier,
            shift,
            act_min: 0,
        })
    }

    /// One int16 output value: `ReluQuantized<int16_t>`, clamped to `[act_min, 32767]`.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        let v = self
            .output_offset
            .wrapping_add(multiply_by_quantized_multiplier(
                i32::from(x) - self.input_offset,
                self.multiplier,
                self.shift,
            ));
        v.max(self.act_min).min(i32::from(i16::MAX)) as i16
    }
}

impl Relu6Params {
    /// Prepares an int16 RELU6 (`Relu6Prepare`): `six` = `round(6.0f / scale)` plus the zero
    /// point, clamped to int16; the zero point any int16.
    pub fn new_i16(input: QuantParams) -> Result<Self, KernelError> {
        let zero = zero_point_in(RELU6, input, i32::from(i16::MIN), i32::from(i16::MAX))?;
        let q = 6.0f32 / input.scale;
        if !q.is_finite() || input.scale <= 0.0 {
            return Err(KernelError::unsupported(RELU6, Unsupported::InputScale));
        }
        let six = (round_f64(f64::from(q)) as i64)
            .saturating_add(i64::from(zero))
            .clamp(i64::from(i16::MIN), i64::from(i16::MAX)) as i32;
        Ok(Relu6Params { zero, six })
    }

    /// One int16 output value: `x > six ? six : x < zero ? zero : x`.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        let v = i32::from(x);
        (if v > self.six {
            self.six
        } else if v < self.zero {
            self.zero
        } else {
            v
        }) as i16
    }
}

/// RELU, int8 in and out.
pub fn relu(p: &ReluParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    KernelError::check_len(RELU, Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = p.value(x);
    }
    Ok(())
}

/// RELU6, int8 in and out.
pub fn relu6(p: &Relu6Params, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    KernelError::check_len(RELU6, Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = p.value(x);
    }
    Ok(())
}

/// One float32 RELU output (`ReluFloat`).
#[inline]
pub fn relu_f32_value(x: f32) -> f32 {
    if x < 0.0 {
        0.0
    } else {
        x
    }
}

/// One float32 RELU6 output (`Relu6Float`), its tests in TFLM's order.
#[inline]
#[allow(clippy::manual_clamp)]
pub fn relu6_f32_value(x: f32) -> f32 {
    if x > 6.0 {
        6.0
    } else if x < 0.0 {
        0.0
    } else {
        x
    }
}

/// Prepares RELU or RELU6.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let six = cx.code() == code::RELU6;
    if crate::ops::float::BUILT && x.ty == TensorType::Float32 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
        cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
        if x.bytes != out.bytes {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        return if six {
            Prepared::of::<Relu6F32>(cx, ())
        } else {
            Prepared::of::<ReluF32>(cx, ())
        };
    }
    if x.ty == TensorType::Int16 {
        return prepare_i16(cx, six);
    }
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if six {
        cx.quantized(&[&x])?;
        Prepared::of::<Relu6>(cx, Relu6Params::new(x.q).map_err(|e| cx.err(e))?)
    } else {
        cx.quantized(&[&x, &out])?;
        Prepared::of::<Relu>(cx, ReluParams::new(x.q, out.q).map_err(|e| cx.err(e))?)
    }
}

/// Prepares RELU or RELU6 (`six`), int16, in a frame of its own.
#[cold]
#[inline(never)]
fn prepare_i16<'m>(cx: &Prep<'_, 'm>, six: bool) -> Result<Prepared<'m>, LoadError> {
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if six {
        cx.quantized(&[&x])?;
        Prepared::of::<Relu6I16>(cx, Relu6Params::new_i16(x.q).map_err(|e| cx.err(e))?)
    } else {
        cx.quantized(&[&x, &out])?;
        Prepared::of::<ReluI16>(cx, ReluParams::new_i16(x.q, out.q).map_err(|e| cx.err(e))?)
    }
}

i8_unary_kernel!("RELU", Relu, ReluParams);
i16_unary_kernel!("RELU", ReluI16, ReluParams, &[code::RELU]);
i16_unary_kernel!("RELU6", Relu6I16, Relu6Params, &[code::RELU6]);
i8_unary_kernel!("RELU6", Relu6, Relu6Params);
f32_unary_kernel!("RELU", ReluF32, relu_f32_value);
f32_unary_kernel!("RELU6", Relu6F32, relu6_f32_value);

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ReluParams {
    input_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
    act_min: i32,
});
crate::format::codec::words!(Relu6Params {
    zero: i32,
    six: i32
});

#[cfg(test)]
mod tests {
    use super::*;

    /// RELU6's `six` as TFLM's `FloatToQuantizedType`: rounded half away from zero, plus the
    /// zero point, clamped to int8.
    #[test]
    fn six_is_tflm_float_to_quantized() {
        let p = Relu6Params::new(QuantParams::new(0.05, -10)).unwrap();
        assert_eq!((p.zero, p.six), (-10, 110));
        let p = Relu6Params::new(QuantParams::new(0.024, 100)).unwrap();
        assert_eq!(p.six, 127); // 250 + 100, clamped
                                // 6 / 0.48 = 12.5 (in float): half away from zero.
        let p = Relu6Params::new(QuantParams::new(0.48, 0)).unwrap();
        assert_eq!(p.six, 13);
        // Order of the tests: a zero point above six clamps everything above six to six.
        let p = Relu6Params { zero: 20, six: 10 };
        assert_eq!([p.value(30), p.value(15), p.value(5)], [10, 10, 20]);
    }

    /// RELU int8 with equal scales is a clamp at the output zero point; float RELU keeps −0
    /// and NaN, as TFLM's.
    #[test]
    fn relu_values() {
        let p = ReluParams::new(QuantParams::new(0.1, 3), QuantParams::new(0.1, 3)).unwrap();
        let x = [-128i8, -1, 2, 3, 4, 127];
        let mut o = [0i8; 6];
        relu(&p, &x, &mut o).unwrap();
        assert_eq!(o, [3, 3, 3, 3, 4, 127]);
        assert!(relu_f32_value(-0.0).is_sign_negative());
        assert!(relu_f32_value(f32::NAN).is_nan());
        assert_eq!(relu6_f32_value(7.5), 6.0);
    }

    /// int16 RELU: zero points 0 (else refused), clamped to `[0, 32767]`; RELU6: any zero
    /// point, six clamped to int16.
    #[test]
    fn int16_relu() {
        let q = |zp| QuantParams::new(0.001, zp);
        assert!(ReluParams::new_i16(q(1), q(0)).is_err());
        assert!(ReluParams::new_i16(q(0), q(-1)).is_err());
        let p = ReluParams::new_i16(q(0), QuantParams::new(0.0005, 0)).unwrap();
        assert_eq!(
            [p.value_i16(-5), p.value_i16(7), p.value_i16(20000)],
            [0, 14, 32767]
        );
        let p = Relu6Params::new_i16(QuantParams::new(0.0001, -100)).unwrap();
        assert_eq!((p.zero, p.six), (-100, 32767));
        assert_eq!([p.value_i16(-101), p.value_i16(5)], [-100, 5]);
        let p = Relu6Params::new_i16(QuantParams::new(0.001, 0)).unwrap();
        assert_eq!([p.six, i32::from(p.value_i16(i16::MAX))], [6000, 6000]);
    }
}
