//! LOGISTIC: int8 and int16 in TFLM's fixed-point arithmetic; and float32 ([`LogisticF32`]).
//!
//! LOGISTIC mirrors `reference_integer_ops::Logistic(int8)` prepared by
//! `CalculateArithmeticOpDataLogistic` (`micro/kernels/logistic_common.cc`): the input is
//! scaled into Q4.27 (`frexp` of `input_scale * 2^27`, with no renormalisation of a mantissa
//! that rounds to 2^31, exactly as TFLM), saturated beyond the input radius, and gemmlowp's
//! `logistic` gives a Q0 result scaled to 1/256 with zero point -128.
//!
//! The int16 kernel ([`LogisticI16`]) mirrors `reference_integer_ops::Logistic(int16)`: the
//! input times a multiplier, rounded right by a shift, into the scale `1/(3·4096)`, then the
//! 256-entry sigmoid table (the LSTM's, `lstm::SIGMOID_TABLE`) interpolated over the low 9
//! bits, out in Q0.15. TFLM's preparation is followed exactly: zero points 0 (its
//! `TF_LITE_ENSURE_EQ`); an input scale within `2^±0.001` of `2^-12` (its `CheckedLog2`) takes
//! the table's own scale (multiplier 3, no shift), any other the multiplier `scale · 4096 · 3`
//! doubled (at most 31 times) up to above 16383.5 and truncated; refused when that is above
//! 32767 or below 1 (TFLM's `DCHECK`: its int32 product would overflow, or its kernel would
//! take the multiplier 0 for the power-of-two case and shift 3 by 31); the output scale must
//! be `2^-15` (`CheckedLog2`). Both are element-wise: the output may overlap the dying input.
use synaptic_tflite::{code, TensorType};

use crate::ops::float::{expf, F32s, LeF32};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{logistic as fp_logistic, rounding_divide_by_pot};
use crate::math::{calculate_input_radius, frexp, int8_zero_point, round_f64};
use crate::math::{multiply_by_quantized_multiplier, QuantParams};
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

use crate::ops::elementwise::tanh::checked_log2;
use crate::ops::recurrent::lstm::interpolate;

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::LOGISTIC];

/// A prepared int8 LOGISTIC: made only by [`LogisticParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogisticParams {
    /// Input zero point.
    pub(crate) input_zero_point: i32,
    /// Inputs at or beyond ± this saturate.
    pub(crate) input_range_radius: i32,
    /// Q31 multiplier into Q4.27.
    pub(crate) input_multiplier: i32,
    /// Its shift.
    pub(crate) input_left_shift: i32,
}

impl LogisticParams {
    /// Prepares LOGISTIC; TFLM requires the int8 output zero point to be -128 (and assumes
    /// scale 1/256).
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        const OP: &str = "LOGISTIC";
        if output.zero_point != -128 {
            return Err(KernelError::unsupported(
                OP,
                Unsupported::OutputZeroPoint(output.zero_point),
            ));
        }
        Self::q4_input(OP, input)
    }

    /// The int8 input side alone, as TANH's int8 preparation shares it (operator `op`):
    /// the zero point (int8), and `frexp` of `input_scale · 2^27` as the Q31 multiplier and
    /// shift into Q4.27 with the radius beyond which the input saturates.
    pub(crate) fn q4_input(op: &'static str, input: QuantParams) -> Result<Self, KernelError> {
        const INPUT_INTEGER_BITS: i32 = 4;
        let input_zero_point = int8_zero_point(op, input)?;
        let real = f64::from(input.scale) * f64::from(1i32 << (31 - INPUT_INTEGER_BITS));
        let (q, shift) = frexp(real);
        // static_cast<int32_t>(TfLiteRound(q * 2^31)): no renormalisation here.
        let multiplier = round_f64(q * (1u64 << 31) as f64) as i64 as i32;
        // TFLM's `1LL << input_left_shift` is defined for 0..=62 only (an input scale of
        // 2^-28 or more and below 2^35).
        let radius = calculate_input_radius(INPUT_INTEGER_BITS, shift, 31)
            .filter(|_| real.is_finite() && real > 0.0)
            .ok_or(KernelError::unsupported(op, Unsupported::InputScale))?;
        Ok(LogisticParams {
            input_zero_point,
            input_range_radius: radius,
            input_multiplier: multiplier,
            input_left_shift: shift,
        })
    }
}

/// LOGISTIC, int8 in, int8 out (`scale 1/256, zero point -128`).
pub fn logistic(p: &LogisticParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    KernelError::check_len("LOGISTIC", Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = logistic_value(p, x);
    }
    Ok(())
}

/// One LOGISTIC output (shared by the plain and in-place kernels).
#[inline]
pub(crate) fn logistic_value(p: &LogisticParams, x: i8) -> i8 {
    let v = i32::from(x) - p.input_zero_point;
    if v <= -p.input_range_radius {
        i8::MIN
    } else if v >= p.input_range_radius {
        i8::MAX
    } else {
        let in_q4 = multiply_by_quantized_multiplier(v, p.input_multiplier, p.input_left_shift);
        let out_q0 = fp_logistic(in_q4, 4);
        let out = rounding_divide_by_pot(out_q0, 31 - 8);
        (out - 128).clamp(-128, 127) as i8
    }
}
/// LOGISTIC ([`logistic`]) of `elems` elements with input and output in `buf`.
pub fn logistic_in_place(
    p: &LogisticParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("LOGISTIC", || Contract::elementwise(elems, 1, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        Ok([logistic_value(p, x8(buf, at.input, j)) as u8])
    })
}

/// Prepares LOGISTIC.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if crate::ops::float::BUILT && x.ty == TensorType::Float32 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
        cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
        if x.shape() != out.shape() {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        return Prepared::of::<LogisticF32>(cx, ());
    }
    if x.ty == TensorType::Int16 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
        cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
        if x.bytes != out.bytes {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        cx.quantized(&[&x, &out])?;
        for z in [x.q.zero_point, out.q.zero_point] {
            if z != 0 {
                return Err(cx.unsupported(Unsupported::ZeroPoint(z)));
            }
        }
        let p = LogisticI16Params::new(x.q.scale, out.q.scale).map_err(|e| cx.err(e))?;
        return Prepared::of::<LogisticI16>(cx, p);
    }
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    cx.quantized(&[&x, &out])?;
    Prepared::of::<Logistic>(cx, LogisticParams::new(x.q, out.q).map_err(|e| cx.err(e))?)
}

/// The LOGISTIC kernel, int8.
pub struct Logistic;

impl Kernel for Logistic {
    const NAME: &'static str = "LOGISTIC";
    const MAX_INPUTS: usize = 1;
    type Params = LogisticParams;

    #[inline]
    fn run(p: &LogisticParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        logistic(p, x, io.out_i8()?)
    }

    fn contract(_p: &LogisticParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
    }

    fn run_in_place(
        p: &LogisticParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        logistic_in_place(p, n, io.buf, io.at)?;
        Ok(n)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(LogisticParams {
    input_zero_point: i32,
    input_range_radius: i32,
    input_multiplier: i32,
    input_left_shift: i32,
});

/// A prepared int16 LOGISTIC: made only by [`LogisticI16Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogisticI16Params {
    /// The input multiplier into the table's scale `1/(3·4096)` (1..=32767).
    pub(crate) multiplier: i32,
    /// Its rounding right shift (0..=31).
    pub(crate) shift: i32,
}

impl LogisticI16Params {
    /// TFLM's int16 preparation for input scale `input` and output scale `output` (zero
    /// points checked by the caller). The power-of-two case (TFLM's multiplier 0, which its
    /// kernel turns into `3 << 0`) is kept as multiplier 3 and shift 0.
    pub fn new(input: f32, output: f32) -> Result<Self, KernelError> {
        const OP: &str = "LOGISTIC";
        if checked_log2(output) != Some(-15) {
            return Err(KernelError::unsupported(OP, Unsupported::OutputScale));
        }
        if !(input.is_finite() && input > 0.0) {
            return Err(KernelError::unsupported(OP, Unsupported::InputScale));
        }
        if checked_log2(input) == Some(-12) {
            return Ok(LogisticI16Params {
                multiplier: 3,
                shift: 0,
            });
        }
        let mut multiplier = f64::from(input) * 4096.0 * 3.0;
        let mut shift = 0;
        while multiplier <= 32767.0 / 2.0 && shift <= 30 {
            shift += 1;
            multiplier *= 2.0;
        }
        if !(1.0..=32767.0).contains(&multiplier) {
            return Err(KernelError::unsupported(OP, Unsupported::InputScale));
        }
        Ok(LogisticI16Params {
            multiplier: multiplier as i32,
            shift,
        })
    }

    /// One int16 output.
    #[inline]
    fn value_i16(&self, x: i16) -> i16 {
        logistic_i16(x, self.multiplier, self.shift)
    }
}

/// TFLM's int16 LOGISTIC of `x` with input `multiplier` (1..=32767) and rounding right
/// `shift` (0..=31), Q0.15 out: `(x·multiplier + round) >> shift`, the sigmoid table
/// interpolated at its magnitude over the low 9 bits (saturated past the table), mirrored for a
/// negative input.
#[inline]
pub fn logistic_i16(x: i16, multiplier: i32, shift: i32) -> i16 {
    // The prepared range computes without overflow (|x·multiplier| + round < 2^31); the
    // wrapping forms only keep any other value from panicking.
    let s = shift.clamp(0, 31) as u32;
    let round = if s > 0 { 1i32 << (s - 1) } else { 0 };
    let v = i32::from(x).wrapping_mul(multiplier).wrapping_add(round) >> s;
    let r = interpolate(v.unsigned_abs(), 9, 0x7FFF << 10);
    let r = if v >= 0 {
        r.wrapping_add(1 << 9)
    } else {
        (1u32 << 25).wrapping_sub(r).wrapping_add((1 << 9) - 1)
    };
    (r >> 10) as i16
}

i16_unary_kernel!("LOGISTIC", LogisticI16, LogisticI16Params);

crate::format::codec::words!(LogisticI16Params {
    multiplier: i32,
    shift: i32,
});

/// One float32 LOGISTIC output, as `reference_ops::Logistic` (float): `1` above
/// 16.619047164916992188, `exp(x)` below −9, else `1 / (1 + exp(−x))` (glibc's `expf`,
/// [`expf`]).
#[inline]
pub fn logistic_f32_value(x: f32) -> f32 {
    // TFLM writes it with more digits than a float holds; this is the same float.
    const CUTOFF_UPPER: f32 = 16.619_047;
    const CUTOFF_LOWER: f32 = -9.0;
    if x > CUTOFF_UPPER {
        1.0
    } else if x < CUTOFF_LOWER {
        expf(x)
    } else {
        1.0 / (1.0 + expf(-x))
    }
}

f32_unary_kernel!("LOGISTIC", LogisticF32, logistic_f32_value);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::recurrent::lstm::sigmoid_i16;

    /// The power-of-two preparation is the LSTM's sigmoid; other scales take TFLM's doubled
    /// multiplier; out-of-range scales are refused.
    #[test]
    fn int16_preparation() {
        let out = 1.0 / 32768.0;
        let p = LogisticI16Params::new(1.0 / 4096.0, out).unwrap();
        assert_eq!((p.multiplier, p.shift), (3, 0));
        for x in [i16::MIN, -4097, -1, 0, 1, 300, 4096, i16::MAX] {
            assert_eq!(p.value_i16(x), sigmoid_i16(x));
        }
        // 2^-11: not the table's scale; 2^-11 · 12288 = 6 doubled 12 times: 24576.
        let p = LogisticI16Params::new(1.0 / 2048.0, out).unwrap();
        assert_eq!((p.multiplier, p.shift), (24576, 12));
        assert_eq!(p.value_i16(0), 16384);
        assert!(LogisticI16Params::new(4.0, out).is_err());
        assert!(LogisticI16Params::new(1e-15, out).is_err());
        assert!(LogisticI16Params::new(1.0 / 4096.0, 1.0 / 256.0).is_err());
    }
}
