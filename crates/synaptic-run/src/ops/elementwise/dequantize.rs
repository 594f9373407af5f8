//! DEQUANTIZE int8, int16, uint8 → float32 (the types TFLM's `dequantize.cc` runs):
//! `reference_ops::Dequantize`, `float(double(scale) * (q - zero_point))`. int8 by its own
//! kernel, int16 and uint8 by one kernel (the type from its parameters); each in place.

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::QuantParams;
use crate::ops::common::QInt;
use crate::ops::in_place::{check, drive, x8, InPlace};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DEQUANTIZE];

/// DEQUANTIZE from an integer type `T` to `f32`.
pub fn dequantize<T: QInt>(
    input_q: QuantParams,
    input: &[T],
    output: &mut [f32],
) -> Result<(), KernelError> {
    KernelError::check_len("DEQUANTIZE", Operand::Output, input.len(), output.len())?;
    let scale = f64::from(input_q.scale);
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = dequantize_value(scale, input_q.zero_point, x);
    }
    Ok(())
}

/// One DEQUANTIZE output, `scale` the input scale as `f64` (shared with
/// [`crate::ops::overlapped`]).
#[inline]
pub(crate) fn dequantize_value<T: QInt>(scale: f64, zero_point: i32, x: T) -> f32 {
    (scale * f64::from(x.to_i32().wrapping_sub(zero_point))) as f32
}
/// DEQUANTIZE int8 → float32 ([`dequantize`]) of `elems` elements in `buf`
/// (the floats written in native byte order).
pub fn dequantize_i8_in_place(
    input_q: QuantParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check(
        "DEQUANTIZE",
        || Contract::elementwise(elems, 1, 4),
        buf,
        &at,
    )?;
    let scale = f64::from(input_q.scale);
    drive::<4>(buf, at.output, elems, at.direction, |buf, j| {
        Ok(dequantize_value(scale, input_q.zero_point, x8(buf, at.input, j)).to_ne_bytes())
    })
}

/// Prepares DEQUANTIZE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !matches!(x.ty, TensorType::Int16 | TensorType::UInt8) {
        cx.int8_activation(&x, Operand::Input(0))?;
    } else if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if out.ty != TensorType::Float32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Float32,
        }));
    }
    cx.quantized(&[&x])?;
    let width = crate::ops::prep::element_bytes(x.ty);
    if x.bytes.checked_mul(4) != out.bytes.checked_mul(width) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if x.ty == TensorType::Int8 {
        Prepared::of::<Dequantize>(cx, x.q)
    } else {
        let p = DequantizeWideParams {
            input: x.q,
            int16: x.ty == TensorType::Int16,
        };
        Prepared::of::<DequantizeWide>(cx, p)
    }
}

/// A prepared DEQUANTIZE of int16 or uint8: the input's quantization and type.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DequantizeWideParams {
    /// The input's quantization.
    pub(crate) input: QuantParams,
    /// int16 (else uint8).
    pub(crate) int16: bool,
}

/// DEQUANTIZE int16 or uint8 → float32 ([`dequantize`]) of `elems` elements in `buf`
/// (little-endian, as in the arena).
pub fn dequantize_wide_in_place(
    p: &DequantizeWideParams,
    elems: usize,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    let w = 1 + usize::from(p.int16);
    check(
        "DEQUANTIZE",
        || Contract::elementwise(elems, w, 4),
        buf,
        &at,
    )?;
    let (scale, zp) = (f64::from(p.input.scale), p.input.zero_point);
    drive::<4>(buf, at.output, elems, at.direction, |buf, j| {
        let x = if p.int16 {
            i32::from(i16::from_le_bytes([
                buf[at.input + 2 * j],
                buf[at.input + 2 * j + 1],
            ]))
        } else {
            i32::from(buf[at.input + j])
        };
        Ok(dequantize_value(scale, zp, x).to_le_bytes())
    })
}

/// DEQUANTIZE int16 or uint8 → float32 (the type from its parameters).
pub struct DequantizeWide;

impl Kernel for DequantizeWide {
    const NAME: &'static str = "DEQUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = DequantizeWideParams;

    fn run(p: &DequantizeWideParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        if p.int16 {
            let x = io.i16(0)?;
            dequantize(p.input, x, io.out_f32()?)
        } else {
            let x = io.slice::<u8>(0)?;
            dequantize(p.input, x, io.out_f32()?)
        }
    }

    fn contract(p: &DequantizeWideParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1 + usize::from(p.int16), 4))
    }

    fn run_in_place(
        p: &DequantizeWideParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        dequantize_wide_in_place(p, n, io.buf, io.at)?;
        Ok(4 * n)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(DequantizeWideParams {
    input: QuantParams,
    int16: bool,
});

/// DEQUANTIZE int8 → float32.
pub struct Dequantize;

impl Kernel for Dequantize {
    const NAME: &'static str = "DEQUANTIZE";
    const MAX_INPUTS: usize = 1;
    type Params = QuantParams;

    #[inline]
    fn run(q: &QuantParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        dequantize(*q, x, io.out_f32()?)
    }

    fn contract(_q: &QuantParams, k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 4))
    }

    fn run_in_place(
        q: &QuantParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let n = io.out()?.elems;
        dequantize_i8_in_place(*q, n, io.buf, io.at)?;
        Ok(4 * n)
    }
}
