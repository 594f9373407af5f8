//! RESIZE_BILINEAR (int8, float32, as TFLM's `micro/kernels/resize_bilinear.cc`) over a 4-D
//! NHWC input: each output pixel `(y, x)` interpolated from the four input pixels around its
//! source `(y · scale, x · scale)` (`(i + ½) · scale − ½` with `half_pixel_centers`; the scale
//! `in / out`, or `(in − 1) / (out − 1)` with `align_corners`), the lower corner clamped at 0,
//! the upper at `in − 1`.
//!
//! - float32 (`reference_ops::ResizeBilinear`): the source and weights in single precision,
//!   the four products summed in TFLM's order, then `+ 0.0` (its rounding offset for floats).
//! - int8 (`ResizeBilinearInteger`): no float at all — the scale in units of 2^-10
//!   (`(2^10 · in + out / 2) / out`), the source `y · scale` (`+ scale / 2 − 2^9` with
//!   half-pixel centers), the four weights' products in 64 bits (2^-20), rounded half away
//!   from zero and divided by 2^20 (TFLM's build without `TFLITE_SINGLE_ROUNDING`).
//!
//! The size is a constant int32 pair (TFLM requires it) equal to the output's height and
//! width; `align_corners` with `half_pixel_centers` is refused as TFLM refuses it; the output's
//! quantization is not read (TFLM's kernel moves the stored values).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::elementwise::float_unary::{ceil_f32, floor_f32};
use crate::ops::prep::int_values;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::RESIZE_BILINEAR];

const OP: &str = "RESIZE_BILINEAR";

/// A prepared RESIZE_BILINEAR: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResizeBilinearParams {
    /// Batches.
    pub(crate) batches: usize,
    /// The input's height and width.
    pub(crate) input: [usize; 2],
    /// The output's height and width (each at least 1).
    pub(crate) output: [usize; 2],
    /// Channels.
    pub(crate) depth: usize,
    /// `align_corners`.
    pub(crate) align_corners: bool,
    /// `half_pixel_centers`.
    pub(crate) half_pixel_centers: bool,
}

impl ResizeBilinearParams {
    /// The checked lengths of the input and output (elements).
    fn lengths(&self, input: usize, output: usize) -> Result<(), KernelError> {
        let ([ih, iw], [oh, ow]) = (self.input, self.output);
        let n = self.batches * self.depth;
        KernelError::check_len(OP, Operand::Input(0), n * ih * iw, input)?;
        KernelError::check_len(OP, Operand::Output, n * oh * ow, output)
    }

    /// Input pixel `(b, y, x)`'s first element.
    fn at(&self, b: usize, y: usize, x: usize) -> usize {
        ((b * self.input[0] + y) * self.input[1] + x) * self.depth
    }
}

/// `ComputeInterpolationValues`: the source of output index `v` (scale `scale`, input size
/// `n`) and its lower and upper input indices.
fn source_f32(v: usize, scale: f32, half: bool, n: usize) -> (f32, usize, usize) {
    let s = if half {
        (v as f32 + 0.5) * scale - 0.5
    } else {
        v as f32 * scale
    };
    let lo = (floor_f32(s) as i32).max(0) as usize;
    let hi = (ceil_f32(s) as i32).min(n as i32 - 1).max(0) as usize;
    (s, lo, hi)
}

/// RESIZE_BILINEAR, float32.
pub fn resize_bilinear_f32(
    p: &ResizeBilinearParams,
    x: &[f32],
    out: &mut [f32],
) -> Result<(), KernelError> {
    p.lengths(x.len(), out.len())?;
    let ([ih, iw], [oh, ow]) = (p.input, p.output);
    let scale = |i: usize, o: usize| {
        if p.align_corners && o > 1 {
            (i - 1) as f32 / (o - 1) as f32
        } else {
            i as f32 / o as f32
        }
    };
    let (hs, ws) = (scale(ih, oh), scale(iw, ow));
    let mut k = 0;
    for b in 0..p.batches {
        for y in 0..oh {
            let (sy, y0, y1) = source_f32(y, hs, p.half_pixel_centers, ih);
            let dy = sy - y0 as f32;
            for xo in 0..ow {
                let (sx, x0, x1) = source_f32(xo, ws, p.half_pixel_centers, iw);
                let dx = sx - x0 as f32;
                let (a, bb, c, d) = (
                    p.at(b, y0, x0),
                    p.at(b, y1, x0),
                    p.at(b, y0, x1),
                    p.at(b, y1, x1),
                );
                for ch in 0..p.depth {
                    let v = x[a + ch] * (1.0 - dy) * (1.0 - dx)
                        + x[bb + ch] * dy * (1.0 - dx)
                        + x[c + ch] * (1.0 - dy) * dx
                        + x[d + ch] * dy * dx
                        + 0.0;
                    out[k] = v;
                    k += 1;
                }
            }
        }
    }
    Ok(())
}

/// `ComputeInterpolationValuesInteger`: the source of output index `v` in units of 2^-10 and
/// its lower and upper input indices.
fn source_i32(v: usize, scale_10: i32, half: bool, n: usize) -> (i32, usize, usize) {
    let v = v as i32;
    let s = if half {
        v.wrapping_mul(scale_10)
            .wrapping_add(scale_10 / 2)
            .wrapping_sub(1 << 9)
    } else {
        v.wrapping_mul(scale_10)
    };
    let lo = (s / (1 << 10)).max(0) as usize;
    let hi = (s.wrapping_add((1 << 10) - 1) / (1 << 10))
        .min(n as i32 - 1)
        .max(0) as usize;
    (s, lo, hi)
}

/// RESIZE_BILINEAR, int8 (no floating point).
pub fn resize_bilinear_i8(
    p: &ResizeBilinearParams,
    x: &[i8],
    out: &mut [i8],
) -> Result<(), KernelError> {
    p.lengths(x.len(), out.len())?;
    let ([ih, iw], [oh, ow]) = (p.input, p.output);
    let scale = |i: usize, o: usize| -> i32 {
        let (i, o) = (i as i32, o as i32);
        if p.align_corners && o > 1 {
            ((1 << 10) * (i - 1) + (o - 1) / 2) / (o - 1)
        } else {
            ((1 << 10) * i + o / 2) / o
        }
    };
    let (hs, ws) = (scale(ih, oh), scale(iw, ow));
    let mut k = 0;
    for b in 0..p.batches {
        for y in 0..oh {
            let (sy, y0, y1) = source_i32(y, hs, p.half_pixel_centers, ih);
            let fy = i64::from(sy - (1 << 10) * y0 as i32);
            for xo in 0..ow {
                let (sx, x0, x1) = source_i32(xo, ws, p.half_pixel_centers, iw);
                let fx = i64::from(sx - (1 << 10) * x0 as i32);
                let (a, bb, c, d) = (
                    p.at(b, y0, x0),
                    p.at(b, y1, x0),
                    p.at(b, y0, x1),
                    p.at(b, y1, x1),
                );
                let one = 1i64 << 10;
                for ch in 0..p.depth {
                    let s = i64::from(x[a + ch]) * (one - fy) * (one - fx)
                        + i64::from(x[bb + ch]) * fy * (one - fx)
                        + i64::from(x[c + ch]) * (one - fy) * fx
                        + i64::from(x[d + ch]) * fy * fx;
                    let round = if s > 0 { 1i64 << 19 } else { -(1i64 << 19) };
                    out[k] = ((s + round) / (1 << 20)) as i8;
                    k += 1;
                }
            }
        }
    }
    Ok(())
}

/// The RESIZE_BILINEAR kernel, int8.
pub struct ResizeBilinear;

impl Kernel for ResizeBilinear {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = ResizeBilinearParams;

    fn run(p: &ResizeBilinearParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        resize_bilinear_i8(p, x, io.out_i8()?)
    }
}

/// The RESIZE_BILINEAR kernel, float32.
pub struct ResizeBilinearF32;

impl Kernel for ResizeBilinearF32 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = ResizeBilinearParams;

    fn run(p: &ResizeBilinearParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        resize_bilinear_f32(p, x, io.out_f32()?)
    }
}

/// Prepares RESIZE_BILINEAR: a 4-D int8 or float32 input, a constant int32 size of two, an
/// output of the input's type, batches and depth and of that size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, size, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty).map_err(|_| {
        cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Int8OrFloat32,
        })
    })?;
    cx.type_of(
        &size,
        Operand::Input(1),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    cx.constant(&size, Operand::Input(1))?;
    cx.activation_of(&out, Operand::Output, ty)?;
    let &[batches, ih, iw, depth] = x.shape() else {
        return Err(cx.shape(ShapeFault::Not4d(Operand::Input(0))));
    };
    let mut hw = [0i64; 2];
    let mut n = 0;
    for v in int_values(size.ty, size.data)
        .into_iter()
        .flatten()
        .take(size.bytes / 4)
    {
        if n < 2 {
            hw[n] = v;
        }
        n += 1;
    }
    let (oh, ow) = (hw[0], hw[1]);
    // The 2^-10 scales and sources fit 32 bits (TFLM's `int32_t`): sizes below 2^15.
    let small = |v: usize| v < 1 << 15;
    if n != 2
        || size.rank != 1
        || oh < 1
        || ow < 1
        || out.shape() != [batches, oh as usize, ow as usize, depth]
        || !(small(ih) && small(iw) && small(oh as usize) && small(ow as usize))
        || ih == 0
        || iw == 0
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let (align_corners, half_pixel_centers) = cx.op().resize_bilinear_options()?;
    if align_corners && half_pixel_centers {
        return Err(cx.unsupported(Unsupported::AlignCornersHalfPixel));
    }
    let p = ResizeBilinearParams {
        batches,
        input: [ih, iw],
        output: [oh as usize, ow as usize],
        depth,
        align_corners,
        half_pixel_centers,
    };
    if ty == TensorType::Float32 {
        Prepared::of::<ResizeBilinearF32>(cx, p)
    } else {
        Prepared::of::<ResizeBilinear>(cx, p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ResizeBilinearParams {
    batches: usize,
    input: [usize; 2],
    output: [usize; 2],
    depth: usize,
    align_corners: bool,
    half_pixel_centers: bool,
});
