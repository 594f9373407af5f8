//! TANH (int8, int16, float32): TFLM's `micro/kernels/tanh.cc`.
//!
//! - int8 (`reference_integer_ops::Tanh`): prepared as LOGISTIC's int8 input
//!   (`LogisticParams::q4_input`: the input scaled into Q4.27 by `frexp` of
//!   `input_scale · 2^27`, saturated beyond the input radius), then gemmlowp's fixed-point
//!   `tanh` ([`tanh_q0`]), `RoundingDivideByPOT(·, 24)`, clamped to int8: an output of scale
//!   1/128 and zero point 0 (TFLM neither checks nor reads the output's quantization; nor does
//!   this kernel).
//! - int16 (`reference_integer_ops::Tanh` on int16: the interpolated sigmoid table,
//!   `tanh_i16`, the LSTM's): zero points 0 (TFLM's `TF_LITE_ENSURE_EQ`); an input scale
//!   within `2^±0.001` of a power of two with `12 + log2(scale)` of 0 or 1 takes the table's
//!   own scale (`3 << shift`), any other the multiplier `scale · 4096 · 3` doubled up to above
//!   16383.5 (refused when above 32767 or not positive: TFLM's `DCHECK`, an overflowing
//!   product); the output scale must be `2^-15` (TFLM's `CheckedLog2`: within `2^±0.001`).
//!   TFLM computes the power-of-two test with a float logarithm; here it is exact (they could
//!   differ only for a scale within about 10^-7 of the tolerance's bound).
//! - float32 (`reference_ops::Tanh`): glibc's `tanhf` ([`tanhf`]).
//!
//! Every kernel is element-wise: the output may overlap the dying input (in place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{
    exp_on_negative_values, one_minus_x_over_one_plus_x_for_x_in_0_1, rounding_divide_by_pot,
};
use crate::math::{frexp, multiply_by_quantized_multiplier};
use crate::ops::elementwise::logistic::LogisticParams;
use crate::ops::float::{tanhf, F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::recurrent::lstm::tanh_i16;
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::TANH];

const OP: &str = "TANH";

/// gemmlowp's `tanh` of a Q4.27 value, Q0 out: `−tanh(−|a|)` from `exp(2·(−|a|))` (the same
/// raw value read with 5 integer bits: `ExactMulByPot<1>`), its sign restored, 0 at 0.
pub fn tanh_q0(a: i32) -> i32 {
    if a == 0 {
        return 0;
    }
    let negative = a < 0;
    let n = if negative { a } else { a.wrapping_neg() };
    let t = one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, 5));
    if negative {
        t.wrapping_neg()
    } else {
        t
    }
}

/// A prepared int8 TANH: its input side as LOGISTIC's (`LogisticParams::q4_input`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TanhParams {
    /// Zero point, radius, Q4.27 multiplier and shift.
    pub(crate) input: LogisticParams,
}

impl TanhParams {
    /// One int8 output.
    #[inline]
    fn value(&self, x: i8) -> i8 {
        let p = &self.input;
        let v = i32::from(x) - p.input_zero_point;
        if v <= -p.input_range_radius {
            i8::MIN
        } else if v >= p.input_range_radius {
            i8::MAX
        } else {
            let in_q4 = multiply_by_quantized_multiplier(v, p.input_multiplier, p.input_left_shift);
            rounding_divide_by_pot(tanh_q0(in_q4), 31 - 7).clamp(-128, 127) as i8
        }
    }
}

i8_unary_kernel!("TANH", Tanh, TanhParams);

/// A prepared int16 TANH: the input multiplier (0: the table's own scale, `3 << shift`) and
/// right shift.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TanhI16Params {
    /// The input multiplier.
    pub(crate) multiplier: i32,
    /// Its right shift.
    pub(crate) shift: i32,
}

impl TanhI16Params {
    /// TFLM's int16 preparation for input scale `input` and output scale `output` (zero
    /// points checked by the caller).
    pub fn new(input: f32, output: f32) -> Result<Self, KernelError> {
        if checked_log2(output) != Some(-15) {
            return Err(KernelError::unsupported(OP, Unsupported::OutputScale));
        }
        if !(input.is_finite() && input > 0.0) {
            return Err(KernelError::unsupported(OP, Unsupported::InputScale));
        }
        if let Some(l) = checked_log2(input) {
            let shift = 12 + l;
            if shift == 0 || shift == 1 {
                return Ok(TanhI16Params {
                    multiplier: 0,
                    shift,
                });
            }
        }
        let mut multiplier = f64::from(input) * 4096.0 * 3.0;
        let mut shift = 0;
        while multiplier <= 32767.0 / 2.0 && shift <= 30 {
            shift += 1;
            multiplier *= 2.0;
        }
        // (TFLM's DCHECK: a larger one overflows the kernel's int32 product.)
        if !(1.0..=32767.0).contains(&multiplier) {
            return Err(KernelError::unsupported(OP, Unsupported::InputScale));
        }
        Ok(TanhI16Params {
            multiplier: multiplier as i32,
            shift,
        })
    }

    /// One int16 output.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        tanh_i16(x, self.multiplier, self.shift)
    }
}

/// TFLM's `CheckedLog2` of a scale: `round(log2(x))` if `x` is within `2^±0.001` of that power
/// of two, else `None` (computed exactly from the binary exponent).
pub(crate) fn checked_log2(x: f32) -> Option<i32> {
    if !(x.is_finite() && x > 0.0) {
        return None;
    }
    // 2^-0.001 and 2^0.001.
    const LO: f64 = 0.999_307_093_236_32;
    const HI: f64 = 1.000_693_387_462_580_7;
    let (m, e) = frexp(f64::from(x));
    if m > LO {
        Some(e)
    } else if 2.0 * m < HI {
        Some(e - 1)
    } else {
        None
    }
}

i16_unary_kernel!("TANH", TanhI16, TanhI16Params);

f32_unary_kernel!("TANH", TanhF32, tanhf);

/// Prepares TANH: input and output of one type (int8, int16 or float32) and size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        TensorType::Int16 => TensorType::Int16,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    match ty {
        TensorType::Float32 => Prepared::of::<TanhF32>(cx, ()),
        TensorType::Int16 => {
            cx.quantized(&[&x, &out])?;
            for z in [x.q.zero_point, out.q.zero_point] {
                if z != 0 {
                    return Err(cx.unsupported(Unsupported::ZeroPoint(z)));
                }
            }
            let p = TanhI16Params::new(x.q.scale, out.q.scale).map_err(|e| cx.err(e))?;
            Prepared::of::<TanhI16>(cx, p)
        }
        _ => {
            cx.quantized(&[&x])?;
            let input = LogisticParams::q4_input(OP, x.q).map_err(|e| cx.err(e))?;
            Prepared::of::<Tanh>(cx, TanhParams { input })
        }
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(TanhParams {
    input: LogisticParams
});
crate::format::codec::words!(TanhI16Params {
    multiplier: i32,
    shift: i32,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The fixed-point tanh against `tanh` (Q4.27 in, Q0 out): within a few units of 2^-31
    /// scaled error, odd, 0 at 0.
    #[test]
    fn tanh_q0_approximates_tanh() {
        for k in -200..=200 {
            let x = f64::from(k) / 16.0;
            let raw = (x * f64::from(1 << 27)) as i32;
            let got = f64::from(tanh_q0(raw)) / 2f64.powi(31);
            let want = libm_tanh(f64::from(raw) / f64::from(1 << 27));
            assert!((got - want).abs() < 1e-6, "{x}: {got} {want}");
            assert_eq!(tanh_q0(raw), tanh_q0(raw.wrapping_neg()).wrapping_neg());
        }
        assert_eq!(tanh_q0(0), 0);
    }

    fn libm_tanh(x: f64) -> f64 {
        extern crate std;
        x.tanh()
    }

    /// `checked_log2`: powers of two, near them, and far.
    #[test]
    fn log2_of_scales() {
        assert_eq!(checked_log2(1.0 / 32768.0), Some(-15));
        assert_eq!(checked_log2(1.0 / 4096.0), Some(-12));
        assert_eq!(checked_log2(0.000_244_2), Some(-12));
        assert_eq!(checked_log2(0.0003), None);
        assert_eq!(checked_log2(0.0), None);
        assert_eq!(
            TanhI16Params::new(1.0 / 4096.0, 1.0 / 32768.0).unwrap(),
            TanhI16Params {
                multiplier: 0,
                shift: 0
            }
        );
        assert!(TanhI16Params::new(1.0 / 4096.0, 1.0 / 1024.0).is_err());
    }
}
