//! LOGISTIC, int8, in TFLM's fixed-point arithmetic; and float32 ([`LogisticF32`]).
//!
//! LOGISTIC mirrors `reference_integer_ops::Logistic(int8)` prepared by
//! `CalculateArithmeticOpDataLogistic` (`micro/kernels/logistic_common.cc`): the input is
//! scaled into Q4.27 (`frexp` of `input_scale * 2^27`, with no renormalisation of a mantissa
//! that rounds to 2^31, exactly as TFLM), saturated beyond the input radius, and gemmlowp's
//! `logistic` gives a Q0 result scaled to 1/256 with zero point -128.

use synaptic_tflite::{code, TensorType};

use crate::ops::float::{expf, F32s, LeF32};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{logistic as fp_logistic, rounding_divide_by_pot};
use crate::math::{calculate_input_radius, frexp, int8_zero_point, round_f64};
use crate::math::{multiply_by_quantized_multiplier, QuantParams};
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

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
