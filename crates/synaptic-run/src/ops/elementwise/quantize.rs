//! QUANTIZE: float → int and int → int (requantization), every pair TFLM's
//! `micro/kernels/quantize_common.cc` runs: float32 → int8, int16; int8 → int8, uint8, int16,
//! int32; int16 → int8, int16, int32; int32 → int8, int16; uint8 → int8 (any other pair,
//! which TFLM's `Prepare` passes and its `Eval` fails, refused at load).
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
use crate::ops::in_place::{check, drive, x32, x8, InPlace};
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
    if !out.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Output)));
    }
    use TensorType::{Float32, Int16, Int32, Int8, UInt8};
    // The pairs TFLM runs (its `Eval`'s switches); another is refused for the output's type.
    let runs = match x.ty {
        Float32 => matches!(out.ty, Int8 | Int16),
        Int8 => matches!(out.ty, Int8 | UInt8 | Int16 | Int32),
        Int16 => matches!(out.ty, Int8 | Int16 | Int32),
        Int32 => matches!(out.ty, Int8 | Int16),
        UInt8 => out.ty == Int8,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(0),
                expected: TensorTypes::Quantizable,
            }))
        }
    };
    if !runs {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::QuantizePair,
        }));
    }
    if x.ty == Float32 {
        cx.quantized(&[&out])?;
        return match out.ty {
            Int8 => Prepared::of::<FromFloat>(cx, out.q),
            _ => Prepared::of::<FromFloatI16>(cx, out.q),
        };
    }
    cx.quantized(&[&x, &out])?;
    let p = RequantizeParams::new(x.q, out.q).map_err(|e| cx.err(e))?;
    match (x.ty, out.ty) {
        (Int8, Int8) => Prepared::of::<Requantize>(cx, p),
        // The keyword models' first and last operators.
        (Int16, Int8) => Prepared::of::<RequantizeI16>(cx, p),
        (Int16, Int32) => Prepared::of::<RequantizeI16I32>(cx, p),
        (from, to) => {
            let code = |t| match t {
                Int8 => IntType::I8,
                UInt8 => IntType::U8,
                Int16 => IntType::I16,
                _ => IntType::I32,
            } as u32;
            let p = RequantizeIntParams {
                requantize: p,
                from: code(from),
                to: code(to),
            };
            Prepared::of::<RequantizeInt>(cx, p)
        }
    }
}

/// An integer element type of [`RequantizeInt`]'s operands (its parameters' codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
pub(crate) enum IntType {
    /// int8.
    I8 = 0,
    /// uint8.
    U8 = 1,
    /// int16.
    I16 = 2,
    /// int32.
    I32 = 3,
}

/// The bytes of an element of type code `t` (`IntType`).
#[inline(always)]
fn int_bytes(t: u32) -> usize {
    match t {
        0 | 1 => 1,
        2 => 2,
        _ => 4,
    }
}

/// Element `j` (type code `t`, little-endian) of the operand at `at` in `buf` (in bounds: the
/// in-place check bounds the input first).
#[inline(always)]
fn read_int(buf: &[u8], at: usize, j: usize, t: u32) -> i32 {
    match t {
        0 => i32::from(buf[at + j] as i8),
        1 => i32::from(buf[at + j]),
        2 => i32::from(i16::from_le_bytes([buf[at + 2 * j], buf[at + 2 * j + 1]])),
        _ => {
            let b = &buf[at + 4 * j..at + 4 * j + 4];
            i32::from_le_bytes([b[0], b[1], b[2], b[3]])
        }
    }
}

/// A prepared QUANTIZE between integer types of [`RequantizeInt`]: the requantization and the
/// operands' type codes (int8 0, uint8 1, int16 2, int32 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequantizeIntParams {
    /// The requantization.
    pub(crate) requantize: RequantizeParams,
    /// The input's type code.
    pub(crate) from: u32,
    /// The output's type code.
    pub(crate) to: u32,
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

/// QUANTIZE between integer types ([`RequantizeInt`]'s pairs) of `elems` elements in `buf`
/// (little-endian, as in the arena).
pub fn requantize_int_in_place(
    q: &RequantizeIntParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    let n = elems;
    let (wi, wo) = (int_bytes(q.from), int_bytes(q.to));
    let p = &q.requantize;
    check("QUANTIZE", || Contract::elementwise(n, wi, wo), buf, &at)?;
    let (lo, hi) = match q.to {
        0 => (i32::from(i8::MIN), i32::from(i8::MAX)),
        1 => (0, i32::from(u8::MAX)),
        2 => (i32::from(i16::MIN), i32::from(i16::MAX)),
        _ => (i32::MIN, i32::MAX),
    };
    // `requantize_value` of the input element as `i32`, clamped to the output's range.
    let v = |buf: &[u8], j: usize| {
        let x = read_int(buf, at.input, j, q.from).wrapping_sub(p.input_zero_point);
        multiply_by_quantized_multiplier(x, p.multiplier, p.shift)
            .wrapping_add(p.output_zero_point)
            .clamp(lo, hi)
    };
    let dir = at.direction;
    match wo {
        1 => drive::<1>(buf, at.output, n, dir, |b, j| Ok([v(b, j) as u8])),
        2 => drive::<2>(buf, at.output, n, dir, |b, j| {
            Ok((v(b, j) as i16).to_le_bytes())
        }),
        _ => drive::<4>(buf, at.output, n, dir, |b, j| Ok(v(b, j).to_le_bytes())),
    }
}

/// QUANTIZE float32 → int16 ([`quantize_f32`]) of `elems` elements in `buf` (little-endian,
/// as in the arena).
pub fn quantize_f32_i16_in_place(
    output_q: QuantParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check("QUANTIZE", || Contract::elementwise(elems, 4, 2), buf, &at)?;
    drive::<2>(buf, at.output, elems, at.direction, |buf, j| {
        Ok(quantize_value::<i16>(output_q, x32(buf, at.input, j)).to_le_bytes())
    })
}

/// QUANTIZE float32 → int16 (`AffineQuantize<int16_t>`).
pub struct FromFloatI16;

impl Kernel for FromFloatI16 {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = QuantParams;

    #[inline]
    fn run(q: &QuantParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        quantize_f32(*q, x, io.out_i16()?)
    }

    fn contract(_q: &QuantParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 4, 2))
    }

    fn run_in_place(
        q: &QuantParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        quantize_f32_i16_in_place(*q, n, io.buf, io.at)?;
        Ok(2 * n)
    }
}

/// QUANTIZE between integer types, TFLM's pairs the kernels beside it do not run: int8 →
/// uint8, int16, int32; int16 → int16; int32 → int8, int16; uint8 → int8 (`Requantize`, the
/// pair from its parameters; its int8 ↔ uint8 shortcut of a same scale is the general
/// path's bytes).
pub struct RequantizeInt;

impl Kernel for RequantizeInt {
    const NAME: &'static str = "QUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = RequantizeIntParams;

    fn run(q: &RequantizeIntParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let p = &q.requantize;
        const I8: u32 = IntType::I8 as u32;
        const U8: u32 = IntType::U8 as u32;
        const I16: u32 = IntType::I16 as u32;
        const I32: u32 = IntType::I32 as u32;
        match (q.from, q.to) {
            (I8, U8) => requantize::<i8, u8>(p, io.slice(0)?, io.out_slice()?),
            (I8, I16) => requantize::<i8, i16>(p, io.slice(0)?, io.out_slice()?),
            (I8, I32) => requantize::<i8, i32>(p, io.slice(0)?, io.out_slice()?),
            (I16, I16) => requantize::<i16, i16>(p, io.slice(0)?, io.out_slice()?),
            (I32, I8) => requantize::<i32, i8>(p, io.slice(0)?, io.out_slice()?),
            (I32, I16) => requantize::<i32, i16>(p, io.slice(0)?, io.out_slice()?),
            (U8, I8) => requantize::<u8, i8>(p, io.slice(0)?, io.out_slice()?),
            _ => Err(crate::ops::operands::differs(Self::NAME)),
        }
    }

    fn contract(q: &RequantizeIntParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, int_bytes(q.from), int_bytes(q.to)))
    }

    fn run_in_place(
        q: &RequantizeIntParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        requantize_int_in_place(q, n, io.buf, io.at)?;
        Ok(n * int_bytes(q.to))
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
crate::format::codec::words!(RequantizeIntParams {
    requantize: RequantizeParams,
    from: u32,
    to: u32,
});

crate::format::codec::words!(RequantizeParams {
    multiplier: i32,
    shift: i32,
    input_zero_point: i32,
    output_zero_point: i32,
});
