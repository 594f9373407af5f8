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
//! The int16 → int16 kernel ([`SoftmaxInt16`]) mirrors `reference_ops::SoftmaxInt16` prepared
//! by `CalculateSoftmaxParams` and `InitializeLutForInt16`: per row, the maximum; each
//! difference to it scaled by `QuantizeMultiplier(input_scale · beta / (10/65535))`
//! (`MultiplyByQuantizedMultiplier`, double rounding) so that `[-65535, 0]` is `[-10, 0]`,
//! recentred by +32767, saturated to int16 and looked up in TFLM's 513-entry `exp` table
//! (`LUTLookup`: 9 bits of index, 7 of interpolation); the int16 exponentials summed in int32;
//! the sum normalised by its leading zeros, recentred and looked up in the `1/(1+x)` table;
//! each output `(exp · reciprocal + round) >> (31 − clz(sum))`, clamped to `0..=32767`. The
//! two tables are constants: TFLM builds them at Prepare with `LUTPopulate<int16_t>` from fixed
//! scales (independent of the model), and `EXP_LUT` and `ONE_OVER_ONE_PLUS_X_LUT` hold its
//! values (checked against the same computation in single precision with this crate's port
//! of glibc's `expf` by a test). TFLM's checks are kept: input and output zero points 0, the
//! output scale 1/32768 within 0.1 % (in `float`), an int16 input only with an int16 output.
//! Refused where TFLM's arithmetic would overflow (undefined in C): a scaled multiplier's
//! left shift over 15 (`diff · 2^shift` out of int32) or a negative `beta` (a negative
//! multiplier), and rows over 65536 elements (the int32 sum of exponentials).
//!

use synaptic_tflite::{code, TensorType};

use crate::ops::common::QInt;
use crate::ops::float::expf;

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::fixedpoint::{exp_on_negative_values, rescale};
use crate::fixedpoint::{rounding_divide_by_pot, saturating_rounding_doubling_high_mul};
use crate::limits::size;
use crate::math::{calculate_input_radius, get_reciprocal, requantization_multiplier};
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
    if x.ty == TensorType::Int16 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
        cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
        if x.bytes != out.bytes {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        cx.quantized(&[&x, &out])?;
        let beta = cx.op().softmax_beta()?;
        let p = SoftmaxInt16Params::new(beta, x.shape(), x.q, out.q).map_err(|e| cx.err(e))?;
        return Prepared::of::<SoftmaxInt16>(cx, p);
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

/// A prepared int16 → int16 SOFTMAX: made only by [`SoftmaxInt16Params::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SoftmaxInt16Params {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Row length (the last dimension).
    pub(crate) depth: usize,
    /// Q31 multiplier of the input difference (`input_scale · beta / (10/65535)`).
    pub(crate) input_multiplier: i32,
    /// Its shift (positive: left; at most 15).
    pub(crate) input_left_shift: i32,
}

impl SoftmaxInt16Params {
    /// Prepares an int16 SOFTMAX with option `beta` over the last dimension of `shape`.
    pub fn new(
        beta: f32,
        shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "SOFTMAX";
        for z in [input.zero_point, output.zero_point] {
            if z != 0 {
                return Err(KernelError::unsupported(OP, Unsupported::ZeroPoint(z)));
            }
        }
        let want = 1.0f32 / 32768.0;
        if (output.scale - want).abs() > 0.001f32 * want || output.scale.is_nan() {
            return Err(KernelError::unsupported(OP, Unsupported::OutputScale));
        }
        let Some(&depth) = shape.last() else {
            return Err(KernelError::shape(
                OP,
                ShapeFault::TooFewDimensions {
                    operand: Operand::Input(0),
                    min: 1,
                },
            ));
        };
        // 65536 exponentials of at most 32767 sum within int32.
        if depth > 1 << 16 {
            return Err(KernelError::shape(OP, ShapeFault::ExpSum));
        }
        let real = f64::from(input.scale) * f64::from(beta) / (10.0 / 65535.0);
        let (input_multiplier, input_left_shift) = requantization_multiplier(OP, real)?;
        // |diff| ≤ 65535: `diff · 2^shift` within int32 up to a shift of 15.
        if input_left_shift > 15 {
            return Err(KernelError::unsupported(OP, Unsupported::Multiplier));
        }
        let flat = size(OP, shape)?;
        Ok(SoftmaxInt16Params {
            outer: flat.checked_div(depth).unwrap_or(0),
            depth,
            input_multiplier,
            input_left_shift,
        })
    }
}

/// TFLM's `LUTLookup` of an int16 table of 513 entries: entry `256 + (v >> 7)` plus the
/// slope to the next times the low 7 bits, rounded.
#[inline]
fn lut_lookup(v: i16, lut: &[i16; 513]) -> i16 {
    let index = (256 + (i32::from(v) >> 7)) as usize; // 0..=511
    let offset = i32::from(v & 0x7f);
    let (base, next) = match (lut.get(index), lut.get(index + 1)) {
        (Some(&b), Some(&n)) => (b, n),
        _ => (0, 0),
    };
    let slope = i32::from(next.wrapping_sub(base));
    let delta = (slope * offset + 64) >> 7;
    (i32::from(base) + delta) as i16
}

/// SOFTMAX, int16 in, int16 out (`reference_ops::SoftmaxInt16`): each row's exponentials are
/// written to its output first, then scaled by the reciprocal of their sum.
pub fn softmax_int16(
    p: &SoftmaxInt16Params,
    input: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    const OP: &str = "SOFTMAX";
    KernelError::check_len(OP, Operand::Input(0), p.outer * p.depth, input.len())?;
    KernelError::check_len(OP, Operand::Output, p.outer * p.depth, output.len())?;
    if p.depth == 0 {
        return Ok(());
    }
    let rq = crate::math::Requantizer::new(p.input_multiplier, p.input_left_shift);
    for (row, out) in input
        .chunks_exact(p.depth)
        .zip(output.chunks_exact_mut(p.depth))
    {
        let max = row.iter().copied().max().unwrap_or(i16::MIN);
        let mut sum: i32 = 0; // Q16.15
        for (&x, o) in row.iter().zip(out.iter_mut()) {
            let diff = i32::from(x) - i32::from(max);
            let sym = rq.apply(diff).wrapping_add(32767).clamp(-32768, 32767) as i16;
            *o = lut_lookup(sym, &EXP_LUT);
            sum = sum.wrapping_add(i32::from(*o));
        }
        // The sum is at least the maximum's exponential (32767): 1..=17 leading zeros.
        let clz = (sum as u32).leading_zeros().clamp(1, 31);
        let shifted = ((i64::from(sum) << (clz - 1)) + (1 << 13)) >> 14;
        let sym = (shifted as i32)
            .wrapping_sub((1 << 15) + (1 << 16))
            .clamp(-32768, 32767) as i16;
        let reciprocal = i64::from(lut_lookup(sym, &ONE_OVER_ONE_PLUS_X_LUT));
        let right = 31 - clz;
        let round = (1i64 << right) >> 1;
        for o in out.iter_mut() {
            let r = ((i64::from(*o) * reciprocal + round) >> right) as i32;
            *o = r.clamp(0, 32767) as i16;
        }
    }
    Ok(())
}

/// The SOFTMAX kernel, int16 in, int16 out.
pub struct SoftmaxInt16;

impl Kernel for SoftmaxInt16 {
    const NAME: &'static str = "SOFTMAX";
    const MAX_INPUTS: usize = 1;
    type Params = SoftmaxInt16Params;

    #[inline]
    fn run(p: &SoftmaxInt16Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        softmax_int16(p, x, io.out_i16()?)
    }
}

crate::format::codec::words!(SoftmaxInt16Params {
    outer: usize,
    depth: usize,
    input_multiplier: i32,
    input_left_shift: i32,
});

/// TFLM's int16 SOFTMAX `exp` table (`LUTPopulate<int16_t>` of `std::exp` over `[-10, 0]`,
/// input scale `10/65535` and zero point 32767, output scale `2/65535`).
#[rustfmt::skip]
pub(crate) const EXP_LUT: [i16; 513] = [
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5,
    5, 5, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6,
    6, 6, 6, 7, 7, 7, 7, 7, 7, 7, 7, 8,
    8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 10,
    10, 10, 10, 10, 11, 11, 11, 11, 11, 12, 12, 12,
    12, 13, 13, 13, 13, 14, 14, 14, 14, 15, 15, 15,
    16, 16, 16, 17, 17, 17, 18, 18, 18, 19, 19, 19,
    20, 20, 21, 21, 21, 22, 22, 23, 23, 24, 24, 25,
    25, 26, 26, 27, 27, 28, 28, 29, 29, 30, 30, 31,
    32, 32, 33, 34, 34, 35, 36, 36, 37, 37, 38, 39,
    40, 40, 42, 42, 43, 44, 45, 45, 46, 47, 48, 49,
    50, 51, 52, 53, 54, 55, 56, 57, 59, 60, 60, 62,
    63, 65, 65, 67, 68, 69, 71, 73, 74, 75, 77, 78,
    80, 81, 83, 85, 86, 88, 90, 92, 93, 95, 97, 99,
    101, 103, 105, 107, 109, 112, 114, 116, 118, 121, 123, 126,
    128, 131, 133, 135, 139, 141, 144, 147, 149, 152, 155, 158,
    162, 165, 168, 171, 174, 178, 181, 185, 189, 192, 196, 200,
    204, 208, 212, 217, 221, 225, 230, 234, 239, 243, 248, 253,
    258, 263, 268, 273, 279, 284, 290, 296, 302, 308, 314, 320,
    327, 333, 340, 346, 353, 360, 366, 374, 381, 389, 397, 404,
    413, 421, 429, 437, 446, 455, 464, 473, 482, 492, 501, 511,
    522, 532, 543, 553, 564, 575, 586, 598, 610, 622, 634, 646,
    659, 672, 685, 699, 713, 727, 741, 756, 771, 786, 801, 817,
    833, 850, 866, 884, 901, 919, 937, 955, 974, 993, 1013, 1033,
    1053, 1074, 1095, 1117, 1139, 1161, 1184, 1207, 1232, 1256, 1281, 1306,
    1332, 1358, 1385, 1412, 1440, 1468, 1497, 1527, 1557, 1587, 1619, 1651,
    1683, 1716, 1750, 1785, 1820, 1856, 1892, 1930, 1968, 2006, 2046, 2087,
    2128, 2170, 2212, 2256, 2300, 2346, 2392, 2439, 2488, 2537, 2587, 2638,
    2690, 2743, 2796, 2852, 2908, 2966, 3024, 3084, 3145, 3207, 3270, 3334,
    3400, 3467, 3535, 3605, 3677, 3749, 3822, 3898, 3975, 4053, 4133, 4214,
    4297, 4383, 4469, 4557, 4647, 4739, 4833, 4927, 5024, 5124, 5225, 5328,
    5433, 5541, 5649, 5761, 5875, 5991, 6109, 6230, 6352, 6477, 6605, 6736,
    6868, 7004, 7141, 7282, 7427, 7572, 7722, 7874, 8030, 8188, 8350, 8514,
    8683, 8854, 9028, 9206, 9387, 9572, 9762, 9954, 10151, 10351, 10555, 10763,
    10976, 11191, 11412, 11637, 11867, 12102, 12341, 12583, 12831, 13085, 13342, 13606,
    13874, 14148, 14427, 14711, 15002, 15297, 15599, 15907, 16221, 16541, 16867, 17199,
    17539, 17884, 18237, 18597, 18964, 19338, 19719, 20108, 20505, 20909, 21322, 21742,
    22171, 22608, 23054, 23509, 23973, 24445, 24928, 25419, 25921, 26432, 26953, 27485,
    28027, 28580, 29143, 29718, 30304, 30902, 31512, 32133, 32767,
];

/// TFLM's int16 SOFTMAX `1/(1+x)` table (`LUTPopulate<int16_t>` over `[0, 1]`, input scale
/// `1/65535` and zero point -32768, output scale `2/65535`).
#[rustfmt::skip]
pub(crate) const ONE_OVER_ONE_PLUS_X_LUT: [i16; 513] = [
    32767, 32704, 32640, 32578, 32514, 32451, 32388, 32326, 32264, 32202, 32141, 32079,
    32018, 31957, 31896, 31835, 31775, 31715, 31655, 31596, 31537, 31476, 31418, 31359,
    31301, 31242, 31184, 31127, 31069, 31011, 30954, 30897, 30840, 30784, 30727, 30671,
    30615, 30560, 30504, 30449, 30394, 30339, 30283, 30229, 30175, 30121, 30067, 30013,
    29960, 29906, 29853, 29800, 29746, 29694, 29642, 29589, 29537, 29486, 29434, 29382,
    29331, 29280, 29229, 29177, 29127, 29076, 29026, 28976, 28926, 28877, 28827, 28777,
    28728, 28679, 28630, 28581, 28532, 28484, 28436, 28388, 28340, 28292, 28244, 28197,
    28150, 28103, 28056, 28008, 27962, 27915, 27869, 27823, 27777, 27731, 27685, 27640,
    27594, 27549, 27504, 27459, 27413, 27369, 27324, 27280, 27236, 27192, 27148, 27104,
    27060, 27016, 26973, 26930, 26887, 26844, 26801, 26758, 26715, 26673, 26630, 26588,
    26546, 26504, 26463, 26421, 26380, 26338, 26297, 26255, 26214, 26174, 26132, 26092,
    26051, 26011, 25971, 25931, 25891, 25851, 25811, 25772, 25732, 25693, 25653, 25614,
    25575, 25536, 25497, 25458, 25420, 25381, 25343, 25305, 25267, 25229, 25191, 25153,
    25116, 25078, 25041, 25003, 24966, 24928, 24892, 24855, 24818, 24781, 24745, 24709,
    24672, 24636, 24600, 24564, 24528, 24492, 24457, 24421, 24385, 24350, 24315, 24280,
    24245, 24210, 24175, 24140, 24105, 24070, 24036, 24002, 23967, 23933, 23899, 23865,
    23831, 23798, 23764, 23730, 23697, 23664, 23630, 23597, 23564, 23530, 23498, 23465,
    23432, 23399, 23366, 23334, 23302, 23269, 23237, 23205, 23173, 23141, 23109, 23077,
    23046, 23014, 22982, 22951, 22920, 22888, 22857, 22826, 22795, 22764, 22733, 22703,
    22672, 22641, 22611, 22580, 22550, 22520, 22490, 22459, 22429, 22400, 22370, 22340,
    22310, 22281, 22251, 22221, 22192, 22163, 22134, 22104, 22075, 22046, 22017, 21988,
    21959, 21931, 21902, 21874, 21845, 21817, 21788, 21760, 21732, 21704, 21676, 21648,
    21620, 21592, 21565, 21537, 21509, 21482, 21455, 21427, 21400, 21372, 21345, 21318,
    21291, 21264, 21237, 21210, 21183, 21157, 21130, 21103, 21077, 21050, 21024, 20998,
    20971, 20945, 20919, 20893, 20867, 20841, 20816, 20790, 20764, 20738, 20713, 20687,
    20662, 20636, 20611, 20586, 20560, 20535, 20510, 20485, 20460, 20435, 20410, 20385,
    20360, 20336, 20311, 20287, 20262, 20238, 20213, 20189, 20165, 20141, 20117, 20092,
    20068, 20044, 20021, 19997, 19973, 19949, 19926, 19902, 19878, 19855, 19832, 19808,
    19784, 19762, 19738, 19715, 19692, 19668, 19645, 19622, 19600, 19577, 19553, 19531,
    19508, 19485, 19463, 19440, 19418, 19395, 19373, 19351, 19328, 19306, 19284, 19262,
    19240, 19218, 19196, 19174, 19152, 19130, 19109, 19087, 19065, 19044, 19022, 19000,
    18979, 18958, 18936, 18915, 18893, 18872, 18851, 18830, 18809, 18787, 18766, 18745,
    18725, 18704, 18682, 18662, 18641, 18620, 18600, 18579, 18559, 18538, 18518, 18497,
    18477, 18457, 18436, 18416, 18396, 18376, 18356, 18336, 18316, 18296, 18276, 18256,
    18236, 18216, 18197, 18177, 18157, 18138, 18118, 18099, 18079, 18059, 18040, 18021,
    18001, 17982, 17963, 17944, 17924, 17905, 17886, 17867, 17848, 17829, 17810, 17791,
    17772, 17754, 17735, 17716, 17697, 17679, 17660, 17641, 17623, 17604, 17586, 17568,
    17549, 17531, 17513, 17494, 17476, 17458, 17440, 17422, 17404, 17386, 17368, 17350,
    17332, 17314, 17296, 17278, 17261, 17243, 17225, 17208, 17190, 17172, 17155, 17137,
    17120, 17102, 17085, 17067, 17050, 17033, 17015, 16999, 16981, 16964, 16947, 16930,
    16913, 16895, 16878, 16862, 16845, 16828, 16810, 16794, 16777, 16760, 16743, 16727,
    16710, 16693, 16677, 16660, 16644, 16627, 16611, 16594, 16578, 16562, 16545, 16529,
    16513, 16497, 16480, 16464, 16448, 16432, 16416, 16400, 16384,
];

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::round_f32;

    /// `LUTPopulate<int16_t>` (`kernels/internal/common.h`) in single precision, as TFLM
    /// computes it at Prepare.
    fn lut_populate(
        input_scale: f32,
        input_zero_point: i32,
        output_scale: f32,
        transform: impl Fn(f32) -> f32,
    ) -> [i16; 513] {
        let input_min = input_scale * (-32768 - input_zero_point) as f32;
        let input_max = input_scale * (32767 - input_zero_point) as f32;
        let output_min = output_scale * -32768.0;
        let output_max = output_scale * 32767.0;
        let step = (input_max - input_min) / 512.0;
        let half_step = step / 2.0;
        let inv = 65536.0 / (output_max - output_min);
        let mut lut = [0i16; 513];
        for (i, e) in lut.iter_mut().take(512).enumerate() {
            let at = input_min + i as f32 * step;
            let val = transform(at);
            let mid = transform(at + half_step);
            let next = transform(input_min + (i + 1) as f32 * step);
            let sample = round_f32(val * inv);
            let interp = round_f32((next * inv + round_f32(val * inv)) / 2.0);
            let bias = round_f32((interp - round_f32(mid * inv)) / 2.0);
            *e = (sample - bias).clamp(-32768.0, 32767.0) as i16;
        }
        lut[512] = round_f32(transform(input_max) * inv).clamp(-32768.0, 32767.0) as i16;
        lut
    }

    /// The two constant tables are TFLM's computation (with glibc's `expf`).
    #[test]
    fn int16_tables_are_tflms() {
        let range = 65535.0f32;
        let exp = lut_populate(10.0 / range, 32767, 2.0 / range, expf);
        assert_eq!(exp, EXP_LUT);
        let rec = lut_populate(1.0 / range, -32768, 2.0 / range, |x| 1.0 / (1.0 + x));
        assert_eq!(rec, ONE_OVER_ONE_PLUS_X_LUT);
    }

    /// A row of equal values gives each the same share; a dominant value nearly all.
    #[test]
    fn int16_softmax_shares() {
        let q = |scale| QuantParams {
            scale,
            zero_point: 0,
        };
        let p = SoftmaxInt16Params::new(1.0, &[2, 4], q(0.001), q(1.0 / 32768.0)).unwrap();
        let x = [100, 100, 100, 100, 30000, 0, 0, 0];
        let mut out = [0i16; 8];
        softmax_int16(&p, &x, &mut out).unwrap();
        for &o in &out[..4] {
            assert!((i32::from(o) - 8192).abs() <= 2, "{out:?}");
        }
        assert!(out[4] > 32000 && out[5] < 100, "{out:?}");
        assert!(SoftmaxInt16Params::new(1.0, &[4], q(0.001), q(1.0 / 256.0)).is_err());
        assert!(SoftmaxInt16Params::new(-1.0, &[4], q(0.001), q(1.0 / 32768.0)).is_err());
    }
}
