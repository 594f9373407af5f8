//! ABS and RSQRT: TFLM's `micro/kernels/elementwise.cc` (`PrepareAbsRsqrt`, `AbsEval`,
//! `RsqrtEval`).
//!
//! - ABS float32: `std::abs` (the sign bit cleared, a NaN's too). int8 (`AbsEvalQuantized`):
//!   `|x − input_zero_point|`, requantized by `QuantizeMultiplier(double(input_scale /
//!   output_scale))` when the scales differ (else as it is), plus the output zero point,
//!   clamped to int8. int16: quantized (both zero points 0, as TFLM requires) the same way
//!   clamped to int16; not quantized, `std::abs` narrowed back (−32768 stays −32768).
//! - RSQRT float32: `1.f / std::sqrt(x)` ([`sqrtf`]). int8 (`RsqrtEvalQuantized`): `x −
//!   input_zero_point` of 0 is 127; any other `v` gives `GetInvSqrtQuantizedMultiplierExp(v)`
//!   applied to 1 with 20 more bits of shift, then requantized by `QuantizeMultiplier(1 /
//!   double(sqrtf(input_scale) · output_scale))` with 20 bits less, plus the output zero point,
//!   clamped; a value below the input zero point fails the operator, as TFLM's does
//!   ([`Unsupported::NegativeInput`]). TFLM refuses int16 RSQRT at prepare; so does this.
//!
//! Every kernel is element-wise: its output may overlap its dying input (in place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::saturating_rounding_doubling_high_mul as srdhm;
use crate::fixedpoint::saturating_rounding_multiply_by_pot as sat_shl;
use crate::math::{multiply_by_quantized_multiplier, quantize_multiplier, zero_point_in};
use crate::ops::float::{sqrtf, F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ABS, code::RSQRT];

const ABS: &str = "ABS";
const RSQRT: &str = "RSQRT";

/// A prepared quantized ABS (int8, or int16 with quantization): made only by
/// [`AbsParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsParams {
    /// Input zero point.
    pub(crate) input_offset: i32,
    /// Output zero point.
    pub(crate) output_offset: i32,
    /// Whether the scales differ (TFLM's `needs_rescale`).
    pub(crate) rescale: bool,
    /// The requantization's multiplier (input scale over output scale), if `rescale`.
    pub(crate) multiplier: i32,
    /// Its shift.
    pub(crate) shift: i32,
    /// The output type's lowest value (int8's or int16's).
    pub(crate) min: i32,
    /// Its highest.
    pub(crate) max: i32,
}

impl AbsParams {
    /// `PrepareAbsRsqrt` for ABS: zero points within the type (`min ..= max`; int16's must be
    /// 0), the multiplier of `float(input_scale / output_scale)` if the scales differ.
    pub fn new(
        input: crate::math::QuantParams,
        output: crate::math::QuantParams,
        (min, max): (i32, i32),
    ) -> Result<Self, KernelError> {
        let (lo, hi) = if min == i32::from(i16::MIN) {
            (0, 0)
        } else {
            (min, max)
        };
        let input_offset = zero_point_in(ABS, input, lo, hi)?;
        let output_offset = zero_point_in(ABS, output, lo, hi)?;
        let rescale = input.scale != output.scale;
        let (multiplier, shift) = if rescale {
            let real = f64::from(input.scale / output.scale);
            if !real.is_finite() || real <= 0.0 {
                return Err(KernelError::unsupported(ABS, Unsupported::InputScale));
            }
            quantize_multiplier(real)
        } else {
            (0, 0)
        };
        Ok(AbsParams {
            input_offset,
            output_offset,
            rescale,
            multiplier,
            shift,
            min,
            max,
        })
    }

    /// One output value (`AbsEvalQuantized`), of int8's or int16's range.
    #[inline]
    fn of(&self, x: i32) -> i32 {
        let v = x.wrapping_sub(self.input_offset).wrapping_abs();
        let v = if self.rescale {
            multiply_by_quantized_multiplier(v, self.multiplier, self.shift)
        } else {
            v
        };
        i64::from(v)
            .saturating_add(i64::from(self.output_offset))
            .clamp(i64::from(self.min), i64::from(self.max)) as i32
    }

    /// One int8 output value.
    #[inline]
    fn value(&self, x: i8) -> i8 {
        self.of(i32::from(x)) as i8
    }
}

/// A prepared int8 RSQRT: made only by [`RsqrtParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RsqrtParams {
    /// Input zero point.
    pub(crate) input_offset: i32,
    /// Output zero point.
    pub(crate) output_offset: i32,
    /// `QuantizeMultiplier(1 / double(sqrtf(input_scale) · output_scale))`.
    pub(crate) multiplier: i32,
    /// Its shift.
    pub(crate) shift: i32,
}

/// `RsqrtEvalQuantized`'s `kShift`: the bits the inverse square root keeps above its point.
const RSQRT_SHIFT: i32 = 20;

impl RsqrtParams {
    /// `PrepareAbsRsqrt` for int8 RSQRT.
    pub fn new(
        input: crate::math::QuantParams,
        output: crate::math::QuantParams,
    ) -> Result<Self, KernelError> {
        let input_offset = zero_point_in(RSQRT, input, -128, 127)?;
        let output_offset = zero_point_in(RSQRT, output, -128, 127)?;
        // `1. / static_cast<double>(std::sqrt(input_scale) * output_scale)`: the root and the
        // product in float.
        let real = 1.0 / f64::from(sqrtf(input.scale) * output.scale);
        if !real.is_finite() || real <= 0.0 {
            return Err(KernelError::unsupported(RSQRT, Unsupported::InputScale));
        }
        let (multiplier, shift) = quantize_multiplier(real);
        Ok(RsqrtParams {
            input_offset,
            output_offset,
            multiplier,
            shift,
        })
    }

    /// One output value, or the operator's failure for an input below the zero point.
    #[inline]
    fn value(&self, x: i8) -> Result<i8, KernelError> {
        let v = i32::from(x) - self.input_offset;
        if v < 0 {
            return Err(KernelError::unsupported(RSQRT, Unsupported::NegativeInput));
        }
        if v == 0 {
            return Ok(i8::MAX);
        }
        let (inv, inv_shift) = inv_sqrt_multiplier_exp(v);
        let data = multiply_by_quantized_multiplier(1, inv, inv_shift + RSQRT_SHIFT);
        let out = multiply_by_quantized_multiplier(data, self.multiplier, self.shift - RSQRT_SHIFT)
            .wrapping_add(self.output_offset);
        Ok(out.clamp(-128, 127) as i8)
    }
}

/// `GetInvSqrtQuantizedMultiplierExp(input, kReverseShift = -1)`: `1/√input` as a multiplier
/// and a (left) shift, by five Newton–Raphson steps in gemmlowp's fixed point (3 integer bits),
/// exactly as TFLM computes it; an input of at most 1 gives `(i32::MAX, 0)`.
pub(crate) fn inv_sqrt_multiplier_exp(input: i32) -> (i32, i32) {
    if input <= 1 {
        return (i32::MAX, 0);
    }
    let mut input = input;
    let mut shift = 11i32;
    while input >= 1 << 29 {
        input /= 4;
        shift += 1;
    }
    let max_left_shift_bits = (input as u32).leading_zeros() - 1;
    let left_shift_bit_pairs = max_left_shift_bits / 2 - 1;
    shift -= left_shift_bit_pairs as i32;
    input <<= 2 * left_shift_bit_pairs;
    // Fixed point with 3 integer bits (F3): raw `r` means `r / 2^28`.
    let f3_input = input >> 1;
    // `SaturatingRoundingMultiplyByPOT<-1>`: a rounding halving.
    let half_input = crate::fixedpoint::rounding_divide_by_pot(f3_input, 1);
    let half_three = (1 << 28) + (1 << 27);
    let mut x: i32 = 1 << 28; // F3::One()
    for _ in 0..5 {
        // x·x·x: F3·F3 = F6, F6·F3 = F9; `Rescale<3>` of F9 is a saturating shift left by 6.
        let x3 = sat_shl(srdhm(srdhm(x, x), x), 6);
        // (1.5·x − ½input·x³): F6 − F6, `Rescale<3>` a saturating shift left by 3.
        x = sat_shl(srdhm(half_three, x).wrapping_sub(srdhm(half_input, x3)), 3);
    }
    // Times √2/2 (F0's 1518500250): F3·F0 = F3.
    let mut inv = srdhm(x, 1_518_500_250);
    if shift < 0 {
        inv <<= -shift;
        shift = 0;
    }
    (inv, -shift)
}

/// ABS float32 (`std::abs`).
#[inline]
pub fn abs_f32(x: f32) -> f32 {
    f32::from_bits(x.to_bits() & 0x7FFF_FFFF)
}

/// RSQRT float32 (`1.f / std::sqrt(x)`).
#[inline]
pub fn rsqrt_f32(x: f32) -> f32 {
    1.0 / sqrtf(x)
}

/// A prepared int16 ABS: quantized (its requantization) or not (`std::abs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AbsI16Params {
    /// Whether the input has a quantization (TFLM's `input_quantization_type`).
    pub(crate) quantized: bool,
    /// The quantized path's parameters (unused without).
    pub(crate) q: AbsParams,
}

impl AbsI16Params {
    /// One output value.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        if self.quantized {
            self.q.of(i32::from(x)) as i16
        } else {
            x.wrapping_abs()
        }
    }
}

/// Prepares ABS or RSQRT: input and output of one type and size, of the types TFLM takes.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let abs = cx.code() == code::ABS;
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        TensorType::Int16 if abs => TensorType::Int16,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    match (ty, abs) {
        (TensorType::Float32, true) => Prepared::of::<AbsF32>(cx, ()),
        (TensorType::Float32, false) => Prepared::of::<RsqrtF32>(cx, ()),
        (TensorType::Int16, _) => {
            let quantized = x.quantized;
            let q = if quantized {
                cx.quantized(&[&out])?;
                AbsParams::new(x.q, out.q, (i32::from(i16::MIN), i32::from(i16::MAX)))
                    .map_err(|e| cx.err(e))?
            } else {
                AbsParams::new(
                    crate::math::QuantParams::new(1.0, 0),
                    crate::math::QuantParams::new(1.0, 0),
                    (i32::from(i16::MIN), i32::from(i16::MAX)),
                )
                .map_err(|e| cx.err(e))?
            };
            Prepared::of::<AbsI16>(cx, AbsI16Params { quantized, q })
        }
        (_, true) => {
            cx.quantized(&[&x, &out])?;
            let p = AbsParams::new(x.q, out.q, (-128, 127)).map_err(|e| cx.err(e))?;
            Prepared::of::<Abs>(cx, p)
        }
        (_, false) => {
            cx.quantized(&[&x, &out])?;
            Prepared::of::<Rsqrt>(cx, RsqrtParams::new(x.q, out.q).map_err(|e| cx.err(e))?)
        }
    }
}

i8_unary_kernel!("ABS", Abs, AbsParams);
f32_unary_kernel!("ABS", AbsF32, abs_f32);
f32_unary_kernel!("RSQRT", RsqrtF32, rsqrt_f32);

/// The RSQRT kernel, int8: fails at the first input below the zero point (the outputs before
/// it written, as TFLM's loop leaves them).
pub struct Rsqrt;

impl Kernel for Rsqrt {
    const NAME: &'static str = RSQRT;
    const MAX_INPUTS: usize = 1;
    type Params = RsqrtParams;

    fn run(p: &RsqrtParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        let out = io.out_i8()?;
        KernelError::check_len(RSQRT, Operand::Output, x.len(), out.len())?;
        for (&v, o) in x.iter().zip(out.iter_mut()) {
            *o = p.value(v)?;
        }
        Ok(())
    }

    fn contract(_p: &RsqrtParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
    }

    fn run_in_place(
        p: &RsqrtParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        let at = io.at;
        check(RSQRT, || Contract::elementwise(n, 1, 1), io.buf, &at)?;
        drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
            Ok([p.value(x8(buf, at.input, j))? as u8])
        })?;
        Ok(n)
    }
}

i16_unary_kernel!("ABS", AbsI16, AbsI16Params, &[code::ABS]);

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(AbsParams {
    input_offset: i32,
    output_offset: i32,
    rescale: bool,
    multiplier: i32,
    shift: i32,
    min: i32,
    max: i32,
});
crate::format::codec::words!(AbsI16Params {
    quantized: bool,
    q: AbsParams,
});
crate::format::codec::words!(RsqrtParams {
    input_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::QuantParams;

    /// The inverse square root's multiplier and shift as TFLM's for a few inputs: each
    /// multiplier times `2^shift` within 1e-5 of `1/√input` (reading it back as a real).
    #[test]
    fn inv_sqrt_reads_back() {
        for v in [2, 3, 4, 7, 100, 255, 1 << 20, (1 << 29) + 5, i32::MAX] {
            let (m, s) = inv_sqrt_multiplier_exp(v);
            let real = f64::from(m) / f64::from(1u32 << 31) * 2f64.powi(s);
            let want = 1.0 / f64::from(v).sqrt();
            assert!((real / want - 1.0).abs() < 1e-5, "{v}: {real} vs {want}");
        }
        assert_eq!(inv_sqrt_multiplier_exp(1), (i32::MAX, 0));
    }

    /// ABS int8 without a rescale is `|x − zp_in| + zp_out`, clamped; RSQRT refuses an input
    /// below its zero point and gives 127 at it.
    #[test]
    fn values() {
        let p = AbsParams::new(
            QuantParams::new(0.1, 3),
            QuantParams::new(0.1, -100),
            (-128, 127),
        )
        .unwrap();
        assert_eq!([p.value(3), p.value(-128), p.value(127)], [-100, 31, 24]);
        let r = RsqrtParams::new(QuantParams::new(0.05, -10), QuantParams::new(0.02, 0)).unwrap();
        assert!(r.value(-11).is_err());
        assert_eq!(r.value(-10).unwrap(), 127);
        assert_eq!(abs_f32(-0.0).to_bits(), 0);
        assert_eq!(rsqrt_f32(4.0), 0.5);
    }
}
