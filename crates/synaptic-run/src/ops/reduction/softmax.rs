//! SOFTMAX, int8, in TFLM's fixed-point arithmetic; and float32 ([`SoftmaxF32`]).
//!
//! SOFTMAX mirrors `reference_ops::Softmax<int8_t, int8_t>` (`kernels/internal/reference/
//! softmax.h`) prepared by `CalculateSoftmaxParams` (`micro/kernels/softmax_common.cc`): the
//! input difference to the row maximum is scaled by `PreprocessSoftmaxScaling(beta,
//! input_scale, 5)` into Q5.26, exponentiated with gemmlowp's `exp_on_negative_values`, summed
//! in Q12.19, inverted with `GetReciprocal`; differences below `-CalculateInputRadius(5, shift)`
//! contribute nothing and output -128. TFLM requires an int8 output of zero point -128 and
//! scale exactly 1/256.
//!

use synaptic_tflite::{code, TensorType};

use crate::ops::common::QInt;
use crate::ops::float::expf;

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{exp_on_negative_values, rescale};
use crate::fixedpoint::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};
use crate::limits::size;
use crate::math::{calculate_input_radius, get_reciprocal};
use crate::math::{
    multiply_by_quantized_multiplier_greater_than_one, softmax_scaling, QuantParams,
};
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SOFTMAX];

const SCALED_DIFF_INTEGER_BITS: i32 = 5;
const ACCUMULATION_INTEGER_BITS: i32 = 12;

/// A prepared int8 SOFTMAX: made only by [`SoftmaxParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoftmaxParams {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Row length (the last dimension).
    pub(crate) depth: usize,
    /// Q31 multiplier of the input difference (beta × input scale).
    pub(crate) input_multiplier: i32,
    /// Its left shift.
    pub(crate) input_left_shift: i32,
    /// Differences below this are treated as minus infinity.
    pub(crate) diff_min: i32,
}

impl SoftmaxParams {
    /// Prepares SOFTMAX with option `beta` over the last dimension of `shape`, int8 output.
    pub fn new(
        beta: f32,
        shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        if output.zero_point != -128 {
            return Err(KernelError::unsupported(
                OP,
                Unsupported::OutputZeroPoint(output.zero_point),
            ));
        }
        if output.scale != 1.0 / 256.0 {
            return Err(KernelError::unsupported(OP, Unsupported::OutputScale));
        }
        Self::scaled(beta, shape, input)
    }

    /// Prepares SOFTMAX int8 → int16 (`CalculateSoftmaxParams`: output zero point -32768,
    /// scale 1/65536 within 0.1 %, in `float`).
    pub fn new_i16(
        beta: f32,
        shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        if output.zero_point != -32768 {
            return Err(KernelError::unsupported(
                OP,
                Unsupported::OutputZeroPoint(output.zero_point),
            ));
        }
        let want = 1.0f32 / 65536.0;
        if (output.scale - want).abs() > 0.001f32 * want || output.scale.is_nan() {
            return Err(KernelError::unsupported(OP, Unsupported::OutputScale));
        }
        Self::scaled(beta, shape, input)
    }

    fn scaled(beta: f32, shape: &[usize], input: QuantParams) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        let Some(&depth) = shape.last() else {
            return Err(KernelError::shape(
                OP,
                ShapeFault::TooFewDimensions {
                    operand: Operand::Input(0),
                    min: 1,
                },
            ));
        };
        let (input_multiplier, input_left_shift) =
            softmax_scaling(OP, beta, input.scale, SCALED_DIFF_INTEGER_BITS)?;
        let radius = calculate_input_radius(SCALED_DIFF_INTEGER_BITS, input_left_shift, 31)
            .ok_or(KernelError::unsupported(OP, Unsupported::InputScale))?;
        let flat = size(OP, shape)?;
        Ok(SoftmaxParams {
            outer: flat.checked_div(depth).unwrap_or(0),
            depth,
            input_multiplier,
            input_left_shift,
            diff_min: -radius,
        })
    }
}

/// SOFTMAX, int8 in, int8 out.
pub fn softmax(p: &SoftmaxParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    softmax_into::<i8, 8>(p, input, output)
}

/// SOFTMAX, int8 in, int16 out (`Softmax<int8_t, int16_t>`).
pub fn softmax_i16(p: &SoftmaxParams, input: &[i8], output: &mut [i16]) -> Result<(), KernelError> {
    softmax_into::<i16, 16>(p, input, output)
}

/// SOFTMAX, int8 in, `BITS`-bit `T` out: the two passes of a row, then its outputs.
fn softmax_into<T: QInt, const BITS: i32>(
    p: &SoftmaxParams,
    input: &[i8],
    output: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "SOFTMAX";
    KernelError::check_len(OP, Operand::Input(0), p.outer * p.depth, input.len())?;
    KernelError::check_len(OP, Operand::Output, p.outer * p.depth, output.len())?;
    let mut exps = Exps::new();
    for (row, out) in input
        .chunks_exact(p.depth.max(1))
        .zip(output.chunks_exact_mut(p.depth.max(1)))
    {
        let r = softmax_row::<BITS>(p, row.iter().copied(), &mut exps)?;
        for (j, (&x, o)) in row.iter().zip(out.iter_mut()).enumerate() {
            *o = T::from_i32(softmax_out::<BITS>(p, &r, &exps, j, x));
        }
    }
    Ok(())
}

/// What one SOFTMAX row's outputs need: the row maximum, the reciprocal of the sum of
/// exponentials and its exponent (shared by the plain and in-place kernels).
#[derive(Debug, Clone, Copy)]
pub(crate) struct SoftmaxRow {
    max: i8,
    shifted_scale: i32,
    exponent: u32,
}

/// The exponentials of a row's first [`EXPS`] elements, kept by its sum's pass for its
/// outputs' (each computed once, not twice: some hundred instructions an element; a
/// classifier's row is all of them: ten or twelve classes). `NONE` for an element below
/// the row's `diff_min` (no exponential: the output is the least value).
pub(crate) struct Exps([i32; EXPS]);

/// The elements of a row whose exponentials [`Exps`] keeps (64 bytes of stack).
const EXPS: usize = 16;

impl Exps {
    /// Not an exponential (they are at least 0). Not a repeated byte: the array is made by
    /// sixteen stores, not a call to `memset` (person_detect's SOFTMAX 26 instructions fewer
    /// on the M4).
    const NONE: i32 = -0x0102_0304;

    /// Nothing kept yet (a row's sum pass writes each entry before its outputs read it).
    pub(crate) fn new() -> Self {
        Exps([Self::NONE; EXPS])
    }

    /// The exponential of element `j` (of input `x`, row maximum `max`): kept, or computed.
    #[inline(always)]
    fn get(&self, p: &SoftmaxParams, max: i8, j: usize, x: i8) -> Option<i32> {
        match self.0.get(j) {
            Some(&e) => (e != Self::NONE).then_some(e),
            None => softmax_exp(p, max, x),
        }
    }
}

/// `exp(x − max)` of an element at or above the row's `diff_min`, in Q0.
#[inline(always)]
fn softmax_exp(p: &SoftmaxParams, max: i8, x: i8) -> Option<i32> {
    let diff = i32::from(x) - i32::from(max);
    (diff >= p.diff_min).then(|| {
        exp_on_negative_values(
            multiply_by_quantized_multiplier_greater_than_one(
                diff,
                p.input_multiplier,
                p.input_left_shift,
            ),
            SCALED_DIFF_INTEGER_BITS,
        )
    })
}

/// The two passes over a row before any of its outputs: maximum, then sum of exponentials
/// (the reciprocal's exponent for an output of `BITS` bits), the first [`EXPS`] kept in
/// `exps`.
pub(crate) fn softmax_row<const BITS: i32>(
    p: &SoftmaxParams,
    row: impl Iterator<Item = i8> + Clone,
    exps: &mut Exps,
) -> Result<SoftmaxRow, KernelError> {
    let max = row.clone().max().unwrap_or(i8::MIN);
    let mut sum_of_exps: i32 = 0; // Q12.19
    for (j, x) in row.enumerate() {
        let e = softmax_exp(p, max, x);
        if let Some(k) = exps.0.get_mut(j) {
            *k = e.unwrap_or(Exps::NONE);
        }
        if let Some(e) = e {
            sum_of_exps = sum_of_exps.wrapping_add(rescale(e, 0, ACCUMULATION_INTEGER_BITS));
        }
    }
    let (shifted_scale, num_bits_over_unit) =
        get_reciprocal(sum_of_exps, ACCUMULATION_INTEGER_BITS);
    let exponent = num_bits_over_unit + 31 - BITS;
    if !(0..=31).contains(&exponent) {
        return Err(KernelError::shape("SOFTMAX", ShapeFault::ExpSum));
    }
    Ok(SoftmaxRow {
        max,
        shifted_scale,
        exponent: exponent as u32,
    })
}

/// One int8 SOFTMAX output of row `r` (its exponentials `exps`) for element `j`, input `x`.
#[inline]
pub(crate) fn softmax_value(p: &SoftmaxParams, r: &SoftmaxRow, exps: &Exps, j: usize, x: i8) -> i8 {
    softmax_out::<8>(p, r, exps, j, x) as i8
}

/// One SOFTMAX output of `BITS` bits (8 or 16) of row `r` (made by `softmax_row::<BITS>`,
/// with `exps`) for element `j`, input `x`, within the output type's range.
#[inline]
fn softmax_out<const BITS: i32>(
    p: &SoftmaxParams,
    r: &SoftmaxRow,
    exps: &Exps,
    j: usize,
    x: i8,
) -> i32 {
    let min = -(1i32 << (BITS - 1));
    match exps.get(p, r.max, j, x) {
        Some(e) => {
            let unsat = rounding_divide_by_pot(
                saturating_rounding_doubling_high_mul(r.shifted_scale, e),
                r.exponent,
            );
            unsat.wrapping_add(min).clamp(min, -min - 1)
        }
        None => min,
    }
}

/// SOFTMAX ([`softmax`]) with input and output in `buf`: forward only (a row is read twice
/// before its first output is written).
pub fn softmax_in_place(p: &SoftmaxParams, buf: &mut [u8], at: InPlace) -> Result<(), KernelError> {
    if at.direction == Direction::Backward {
        return Err(KernelError::unsupported(
            "SOFTMAX",
            Unsupported::BackwardExecution,
        ));
    }
    check("SOFTMAX", || contract(p), buf, &at)?;
    let depth = p.depth.max(1);
    let mut row = None;
    let mut exps = Exps::new();
    drive::<1>(buf, at.output, p.outer * p.depth, at.direction, |buf, j| {
        if j % depth == 0 {
            let start = at.input + j;
            row = Some(softmax_row::<8>(
                p,
                buf[start..start + depth].iter().map(|&b| b as i8),
                &mut exps,
            )?);
        }
        // Forward (checked above): the row was prepared at its first element.
        let r = row.as_ref().ok_or(KernelError::unsupported(
            "SOFTMAX",
            Unsupported::BackwardExecution,
        ))?;
        Ok([softmax_value(p, r, &exps, j % depth, x8(buf, at.input, j)) as u8])
    })
}

/// SOFTMAX's access contract: the first element of a row reads the whole row, the others
/// their own element (forward only).
pub fn contract(p: &SoftmaxParams) -> Contract {
    Contract::row_then_element(p.outer, p.depth, 1)
}

/// Prepares SOFTMAX.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if crate::ops::float::BUILT && x.ty == TensorType::Float32 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
        cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
        if x.shape() != out.shape() {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        let beta = cx.op().softmax_beta()?;
        let p = SoftmaxF32Params::new(beta, x.shape()).map_err(|e| cx.err(e))?;
        return Prepared::of::<SoftmaxF32>(cx, p);
    }
    cx.int8_activation(&x, Operand::Input(0))?;
    if out.ty == TensorType::Int16 {
        // int8 → int16 (the keyword models' last SOFTMAX).
        cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
        if 2 * x.bytes != out.bytes {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        cx.quantized(&[&x, &out])?;
        let beta = cx.op().softmax_beta()?;
        let p = SoftmaxParams::new_i16(beta, x.shape(), x.q, out.q).map_err(|e| cx.err(e))?;
        return Prepared::of::<SoftmaxI16>(cx, p);
    }
    cx.int8_activation(&out, Operand::Output)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    cx.quantized(&[&x, &out])?;
    let beta = cx.op().softmax_beta()?;
    let p = SoftmaxParams::new(beta, x.shape(), x.q, out.q).map_err(|e| cx.err(e))?;
    Prepared::of::<Softmax>(cx, p)
}

/// The SOFTMAX kernel, int8 in, int16 out.
pub struct SoftmaxI16;

impl Kernel for SoftmaxI16 {
    const NAME: &'static str = "SOFTMAX";
    const MAX_INPUTS: usize = 1;
    type Params = SoftmaxParams;

    #[inline]
    fn run(p: &SoftmaxParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        softmax_i16(p, x, io.out_i16()?)
    }
}

/// The SOFTMAX kernel, int8.
pub struct Softmax;

impl Kernel for Softmax {
    const NAME: &'static str = "SOFTMAX";
    const MAX_INPUTS: usize = 1;
    type Params = SoftmaxParams;
    const FORWARD_ONLY: bool = true;

    #[inline]
    fn run(p: &SoftmaxParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        softmax(p, x, io.out_i8()?)
    }

    fn contract(p: &SoftmaxParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &SoftmaxParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        softmax_in_place(p, io.buf, io.at)?;
        Ok(p.outer * p.depth)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(SoftmaxParams {
    outer: usize,
    depth: usize,
    input_multiplier: i32,
    input_left_shift: i32,
    diff_min: i32,
});

/// A prepared float32 SOFTMAX: rows of the last dimension, and `beta`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SoftmaxF32Params {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Elements per row (the last dimension).
    pub(crate) depth: usize,
    /// `beta`.
    pub(crate) beta: f32,
}

impl SoftmaxF32Params {
    /// Prepares a float32 SOFTMAX over the last dimension of `shape`.
    pub fn new(beta: f32, shape: &[usize]) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        let elems = size(OP, shape)?;
        let depth = shape.last().copied().unwrap_or(1);
        Ok(SoftmaxF32Params {
            outer: elems.checked_div(depth).unwrap_or(0),
            depth,
            beta,
        })
    }
}

/// SOFTMAX, float32, as `reference_ops::Softmax` (float) computes it: per row, the maximum
/// (`std::max` from `f32::MIN`), then `e = exp((x − max) · beta)` (glibc's `expf`,
/// [`expf`]) written and summed in order, then every output divided by the sum.
pub fn softmax_f32(
    p: &SoftmaxF32Params,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    const OP: &str = "SOFTMAX";
    let n = p.outer * p.depth;
    KernelError::check_len(OP, Operand::Input(0), n, input.len())?;
    KernelError::check_len(OP, Operand::Output, n, output.len())?;
    if p.depth == 0 {
        return Ok(());
    }
    for (x, o) in input
        .chunks_exact(p.depth)
        .zip(output.chunks_exact_mut(p.depth))
    {
        let mut max = f32::MIN;
        for &v in x {
            if max < v {
                max = v;
            }
        }
        let mut sum = 0.0f32;
        for (o, &v) in o.iter_mut().zip(x) {
            let e = expf((v - max) * p.beta);
            *o = e;
            sum += e;
        }
        for o in o.iter_mut() {
            *o /= sum;
        }
    }
    Ok(())
}

/// The SOFTMAX kernel, float32.
pub struct SoftmaxF32;

impl Kernel for SoftmaxF32 {
    const NAME: &'static str = "SOFTMAX";
    const MAX_INPUTS: usize = 1;
    type Params = SoftmaxF32Params;

    #[inline]
    fn run(p: &SoftmaxF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        softmax_f32(p, x, io.out_f32()?)
    }
}

crate::format::codec::words!(SoftmaxF32Params {
    outer: usize,
    depth: usize,
    beta: f32,
});
