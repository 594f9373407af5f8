//! QUANTIZE: float → int and int → int (requantization).
//!
//! Mirrors `micro/kernels/quantize_common.cc`: float input uses `reference_ops::AffineQuantize`
//! (`round(x / float(scale)) + zero_point` in `float`, ties away from zero, clamped); integer
//! input uses `reference_ops::Requantize` with `QuantizeMultiplier(input_scale / output_scale)`
//! (its int8↔uint8 same-scale shortcut gives the same bytes as the general path, so it is not
//! special-cased). DEQUANTIZE mirrors `reference_ops::Dequantize`: `float(double(scale) *
//! (q - zero_point))`.
//!
//! One platform difference: a float whose quotient does not fit `int32` (or NaN) converts with
//! Rust's saturating `as`, like Arm's `VCVT`; TFLM on an x86 host gets `INT32_MIN` there.

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    multiply_by_quantized_multiplier, requantization_multiplier, round_f32, QuantParams,
};
use crate::ops::common::QInt;
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::prep::element_bytes;
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::QUANTIZE];

/// QUANTIZE from `f32` to an integer type `T` (int8, uint8, int16).
pub fn quantize_f32<T: QInt>(
    output_q: QuantParams,
    input: &[f32],
    output: &mut [T],
) -> Result<(), KernelError> {
    KernelError::check_len("QUANTIZE", Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = quantize_value(output_q, x);
    }
    Ok(())
}

/// One QUANTIZE output from a float (shared by the plain and in-place kernels).
#[inline]
pub(crate) fn quantize_value<T: QInt>(output_q: QuantParams, x: f32) -> T {
    let q = (round_f32(x / output_q.scale) as i32).wrapping_add(output_q.zero_point);
    T::from_i32(q.clamp(T::MIN, T::MAX))
}

/// A prepared integer-to-integer QUANTIZE: made only by [`RequantizeParams::new`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequantizeParams {
    /// Multiplier of `input_scale / output_scale`.
    pub(crate) multiplier: i32,
    /// Its shift.
    pub(crate) shift: i32,
    /// Input zero point.
    pub(crate) input_zero_point: i32,
    /// Output zero point.
    pub(crate) output_zero_point: i32,
}

impl RequantizeParams {
    /// Prepares a requantization from `input` to `output` (refused: a multiplier that is not
    /// finite or over 2^31, [`crate::math::requantization_multiplier`]).
    pub fn new(input: QuantParams, output: QuantParams) -> Result<Self, KernelError> {
        let (multiplier, shift) = requantization_multiplier(
            "QUANTIZE",
            f64::from(input.scale) / f64::from(output.scale),
        )?;
        Ok(RequantizeParams {
            multiplier,
            shift,
            input_zero_point: input.zero_point,
            output_zero_point: output.zero_point,
        })
    }
}

/// QUANTIZE from integer type `I` to integer type `O` (`Requantize`).
pub fn requantize<I: QInt, O: QInt>(
    p: &RequantizeParams,
    input: &[I],
    output: &mut [O],
) -> Result<(), KernelError> {
    KernelError::check_len("QUANTIZE", Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = requantize_value(p, x);
    }
    Ok(())
}

/// One requantized output (shared by the plain and in-place kernels).
#[inline]
pub(crate) fn requantize_value<I: QInt, O: QInt>(p: &RequantizeParams, x: I) -> O {
    let v = x.to_i32().wrapping_sub(p.input_zero_point);
    let r = multiply_by_quantized_multiplier(v, p.multiplier, p.shift)
        .wrapping_add(p.output_zero_point);
    O::from_i32(r.clamp(O::MIN, O::MAX))
}

/// QUANTIZE int8 → int8 ([`requantize`]) of `elems` elements in `buf`.
pub fn requantize_i8_in_place(
    p: &RequantizeParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("QUANTIZE", || Contract::elementwise(elems, 1, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        Ok([requantize_value::<i8, i8>(p, x8(buf, at.input, j)) as u8])
    })
}

/// QUANTIZE float32 → int8 ([`quantize_f32`]) of `elems` elements in `buf`
/// (the floats in native byte order, as in the arena).
pub fn quantize_f32_i8_in_place(
    output_q: QuantParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("QUANTIZE", || Contract::elementwise(elems, 4, 1), buf, &at)?;
    drive::<1>(buf, at.output, elems, at.direction, |buf, j| {
        let s = at.input + 4 * j;
        let x = f32::from_ne_bytes([buf[s], buf[s + 1], buf[s + 2], buf[s + 3]]);
        Ok([quantize_value::<i8>(output_q, x) as u8])
    })
}

/// Prepares QUANTIZE: from float32 ([`FromFloat`]) or int8 ([`Requantize`]) to int8, from
/// int16 to int8 ([`RequantizeI16`]) or int32 ([`RequantizeI16I32`]).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    let elems = |t: &crate::model::TInfo<'_>| t.bytes.checked_div(element_bytes(t.ty));
    if elems(&x).is_none() || elems(&x) != elems(&out) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // int16 → int8 or int32 (`Requantize<int16_t, ...>`; the keyword models' first and
    // last operators).
    if x.ty == TensorType::Int16 {
        cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
        if !out.data.is_empty() {
            return Err(cx.unsupported(Unsupported::Constant(Operand::Output)));
        }
        cx.quantized(&[&x, &out])?;
        let p = RequantizeParams::new(x.q, out.q).map_err(|e| cx.err(e))?;
        return match out.ty {
            TensorType::Int8 => Prepared::of::<RequantizeI16>(cx, p),
            TensorType::Int32 => Prepared::of::<RequantizeI16I32>(cx, p),
            _ => Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Output,
                expected: TensorTypes::Int8,
            })),
        };
    }
    cx.int8_activation(&out, Operand::Output)?;
    match x.ty {
        TensorType::Float32 => {
            cx.quantized(&[&out])?;
            Prepared::of::<FromFloat>(cx, out.q)
        }
        TensorType::Int8 => {
            cx.quantized(&[&x, &out])?;
            let p = RequantizeParams::new(x.q, out.q).map_err(|e| cx.err(e))?;
            Prepared::of::<Requantize>(cx, p)
        }
        _ => Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Int8OrFloat32,
        })),
    }
}

/// QUANTIZE float32 → int8.
pub struct FromFloat;

impl Kernel for FromFloat {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = QuantParams;

    #[inline]
    fn run(q: &QuantParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        quantize_f32(*q, x, io.out_i8()?)
    }

    fn contract(_q: &QuantParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 4, 1))
    }

    fn run_in_place(
        q: &QuantParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        quantize_f32_i8_in_place(*q, n, io.buf, io.at)?;
        Ok(n)
    }
}

/// QUANTIZE int16 → int8 (requantization).
pub struct RequantizeI16;

impl Kernel for RequantizeI16 {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = RequantizeParams;

    #[inline]
    fn run(p: &RequantizeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        requantize(p, x, io.out_i8()?)
    }
}

/// QUANTIZE int16 → int32 (requantization; int32's range clamps nothing).
pub struct RequantizeI16I32;

impl Kernel for RequantizeI16I32 {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = RequantizeParams;

    #[inline]
    fn run(p: &RequantizeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        requantize(p, x, io.out_i32()?)
    }
}

/// QUANTIZE int8 → int8 (requantization).
pub struct Requantize;

impl Kernel for Requantize {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = RequantizeParams;

    #[inline]
    fn run(p: &RequantizeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        requantize(p, x, io.out_i8()?)
    }

    fn contract(_p: &RequantizeParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
    }

    fn run_in_place(
        p: &RequantizeParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        requantize_i8_in_place(p, n, io.buf, io.at)?;
        Ok(n)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(RequantizeParams {
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
});
