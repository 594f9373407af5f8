//! RESIZE_NEAREST_NEIGHBOR (int8, int16, float32, as TFLM: moved as bytes):
//! `reference_ops::ResizeNearestNeighbor` over a 4-D NHWC input, each output pixel `(y, x)`
//! the input pixel `GetNearestNeighbor(y)`, `GetNearestNeighbor(x)`: the scale `in / out` (or
//! `(in − 1) / (out − 1)` with `align_corners`) and the source `(i + offset) · scale` in single
//! precision (`offset` ½ with `half_pixel_centers`), floored (rounded half away from zero with
//! `align_corners`), at most `in − 1` (and at least 0 with half-pixel centers) — TFLM's
//! arithmetic, so the same pixels on every target. The size is a constant int32 pair (as TFLM
//! requires) equal to the output's height and width, or the model is refused.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{floor_f64, round_f64};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::RESIZE_NEAREST_NEIGHBOR];

const OP: &str = "RESIZE_NEAREST_NEIGHBOR";

/// A prepared RESIZE_NEAREST_NEIGHBOR: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResizeNearestParams {
    /// Batches.
    pub(crate) batches: usize,
    /// The input's height and width.
    pub(crate) input: [usize; 2],
    /// The output's height and width.
    pub(crate) output: [usize; 2],
    /// Bytes of a pixel (depth × element).
    pub(crate) pixel: usize,
    /// `align_corners`.
    pub(crate) align_corners: bool,
    /// `half_pixel_centers`.
    pub(crate) half_pixel_centers: bool,
}

impl ResizeNearestParams {
    /// `GetNearestNeighbor(i, input_size, output_size, …)`.
    fn nearest(&self, i: usize, input_size: usize, output_size: usize) -> usize {
        let (n_in, n_out) = (input_size as i32, output_size as i32);
        let scale = if self.align_corners && n_out > 1 {
            (n_in - 1) as f32 / (n_out - 1) as f32
        } else {
            n_in as f32 / n_out as f32
        };
        let offset = if self.half_pixel_centers { 0.5f32 } else { 0.0 };
        let at = (i as f32 + offset) * scale;
        let v = if self.align_corners {
            round_f64(f64::from(at))
        } else {
            floor_f64(f64::from(at))
        };
        // `static_cast<int32_t>` of a value at most the input's size here (the scale at most
        // the input's size over 1, the index below the output's): in range.
        let mut v = (v as i32).min(n_in - 1);
        if self.half_pixel_centers {
            v = v.max(0);
        }
        v.max(0) as usize
    }
}

/// The RESIZE_NEAREST_NEIGHBOR kernel (bytes).
pub struct ResizeNearest;

impl Kernel for ResizeNearest {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = ResizeNearestParams;

    fn run(p: &ResizeNearestParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let ([ih, iw], [oh, ow], w) = (p.input, p.output, p.pixel);
        KernelError::check_len(OP, Operand::Input(0), p.batches * ih * iw * w, x.len())?;
        KernelError::check_len(OP, Operand::Output, p.batches * oh * ow * w, out.len())?;
        let mut o = 0;
        for b in 0..p.batches {
            for y in 0..oh {
                let row = (b * ih + p.nearest(y, ih, oh)) * iw;
                for xo in 0..ow {
                    let src = (row + p.nearest(xo, iw, ow)) * w;
                    out[o..o + w].copy_from_slice(&x[src..src + w]);
                    o += w;
                }
            }
        }
        Ok(())
    }
}

/// Prepares RESIZE_NEAREST_NEIGHBOR: a 4-D int8, int16 or float32 input, a constant int32
/// size of two, an output of the input's type, batches and depth and of that size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, size, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    if !matches!(
        x.ty,
        TensorType::Int8 | TensorType::Int16 | TensorType::Float32
    ) || (x.ty == TensorType::Float32 && !crate::ops::float::BUILT)
    {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::OutputType,
        }));
    }
    cx.activation_of(&x, Operand::Input(0), x.ty)?;
    cx.type_of(
        &size,
        Operand::Input(1),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    cx.constant(&size, Operand::Input(1))?;
    cx.activation_of(&out, Operand::Output, x.ty)?;
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
    if n != 2
        || size.rank != 1
        || out.shape() != [batches, oh as usize, ow as usize, depth]
        || oh < 1
        || ow < 1
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let (align_corners, half_pixel_centers) = cx.op().resize_nearest_options()?;
    Prepared::of::<ResizeNearest>(
        cx,
        ResizeNearestParams {
            batches,
            input: [ih, iw],
            output: [oh as usize, ow as usize],
            pixel: depth * element_bytes(x.ty),
            align_corners,
            half_pixel_centers,
        },
    )
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ResizeNearestParams {
    batches: usize,
    input: [usize; 2],
    output: [usize; 2],
    pixel: usize,
    align_corners: bool,
    half_pixel_centers: bool,
});
