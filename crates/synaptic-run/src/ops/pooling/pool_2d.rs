//! What AVERAGE_POOL_2D ([`crate::ops::pooling::average_pool_2d`]) and MAX_POOL_2D
//! ([`crate::ops::pooling::max_pool_2d`]) share: their options, parameters, window and preparation, int8
//! and float32 ([`PoolF32Params`]).
//!
//! Mirrors `micro/kernels/pooling_common.cc`: no requantization (TFLM requires the input and
//! output quantizations to be equal: scales within 1e-6, same zero point), padding from
//! `ComputePaddingHeightWidth` with dilation 1, the window clipped to the input (padding cells
//! are not counted in the average), the average rounded half away from zero. int16
//! (`prepare_i16`): the same geometry and checks, the int16 clamp.

use synaptic_tflite::TensorType;

use crate::contract::{Access, Channels, Contract, Window};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::{
    activation_range, activation_range_i8, compute_padding, int8_zero_point, zero_point_in,
    Activation, Padding, QuantParams,
};
use crate::ops::common::{check_nhwc_io, nhwc, size};
use crate::ops::float::FloatRange;
use crate::ops::Prep;

/// The options of a pooling operator (`Pool2DOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolOptions {
    /// `padding`.
    pub padding: Padding,
    /// `stride_h`.
    pub stride_h: usize,
    /// `stride_w`.
    pub stride_w: usize,
    /// `filter_height`.
    pub filter_h: usize,
    /// `filter_width`.
    pub filter_w: usize,
    /// `fused_activation_function`.
    pub activation: Activation,
}

/// A prepared pooling operator: made only by [`PoolParams::new`], which checks the shapes,
/// the window (its extent within `int32`, at most [`MAX_WINDOW`] inputs: an `int32` sum of
/// int8 values that cannot overflow) and a non-empty activation range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolParams {
    /// Input shape `[n, h, w, c]`.
    pub(crate) input_shape: [usize; 4],
    /// Output shape `[n, oh, ow, c]`.
    pub(crate) output_shape: [usize; 4],
    /// Vertical stride.
    pub(crate) stride_h: usize,
    /// Horizontal stride.
    pub(crate) stride_w: usize,
    /// Window height.
    pub(crate) filter_h: usize,
    /// Window width.
    pub(crate) filter_w: usize,
    /// Padding rows before.
    pub(crate) pad_h: usize,
    /// Padding columns before.
    pub(crate) pad_w: usize,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl PoolParams {
    /// Prepares AVERAGE_POOL_2D or MAX_POOL_2D (`op` names it in errors).
    pub fn new(
        op: &'static str,
        opts: &PoolOptions,
        input_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        let i = nhwc(op, Operand::Input(0), input_shape)?;
        let o = nhwc(op, Operand::Output, output_shape)?;
        size(op, &i)?;
        size(op, &o)?;
        if i[0] != o[0] || i[3] != o[3] {
            return Err(KernelError::shape(op, ShapeFault::BatchOrDepth));
        }
        let (out_h, pad_h) =
            compute_padding(op, opts.padding, i[1], opts.filter_h, opts.stride_h, 1)?;
        let (out_w, pad_w) =
            compute_padding(op, opts.padding, i[2], opts.filter_w, opts.stride_w, 1)?;
        if out_h != o[1] || out_w != o[2] {
            return Err(KernelError::shape(op, ShapeFault::OutputSpatial));
        }
        // The window clipped to the input: its sum and count stay far inside int32.
        if opts
            .filter_h
            .min(i[1])
            .saturating_mul(opts.filter_w.min(i[2]))
            > MAX_WINDOW
        {
            return Err(KernelError::unsupported(op, Unsupported::PoolingWindow));
        }
        int8_zero_point(op, input)?;
        // TFLM compares in double with `1e-6`: the same test on the float, as
        // `1.0e-6f32` is the float just below that double (`scale_tolerance_is_the_double`).
        if (input.scale - output.scale).abs() > SCALE_TOLERANCE
            || input.zero_point != output.zero_point
        {
            return Err(KernelError::unsupported(
                op,
                Unsupported::QuantizationDiffers,
            ));
        }
        let (act_min, act_max) = activation_range_i8(op, opts.activation, output)?;
        Ok(PoolParams {
            input_shape: i,
            output_shape: o,
            stride_h: opts.stride_h,
            stride_w: opts.stride_w,
            filter_h: opts.filter_h,
            filter_w: opts.filter_w,
            pad_h,
            pad_w,
            act_min,
            act_max,
        })
    }

    pub(crate) fn check(
        &self,
        op: &'static str,
        input: &[i8],
        output: &[i8],
    ) -> Result<(), KernelError> {
        check_nhwc_io(
            op,
            (&self.input_shape, input.len()),
            (&self.output_shape, output.len()),
        )
    }

    /// The window of output cell `(oy, ox)`, clipped to the input: input rows and columns
    /// (shared by the plain and in-place kernels).
    pub(crate) fn window_at(
        &self,
        oy: usize,
        ox: usize,
    ) -> (core::ops::Range<usize>, core::ops::Range<usize>) {
        let [_, in_h, in_w, _] = self.input_shape;
        let y0 = (oy * self.stride_h) as isize - self.pad_h as isize;
        let fy_start = (-y0).max(0) as usize;
        let fy_end = (self.filter_h as isize).min(in_h as isize - y0).max(0) as usize;
        let x0 = (ox * self.stride_w) as isize - self.pad_w as isize;
        let fx_start = (-x0).max(0) as usize;
        let fx_end = (self.filter_w as isize).min(in_w as isize - x0).max(0) as usize;
        let ys = (y0 + fy_start as isize) as usize..(y0 + fy_end as isize).max(0) as usize;
        let xs = (x0 + fx_start as isize) as usize..(x0 + fx_end as isize).max(0) as usize;
        (ys, xs)
    }

    /// Calls `f(b, y_range, x_range, oy, ox)` for every output cell with its clipped window.
    pub(crate) fn for_each_window(
        &self,
        mut f: impl FnMut(usize, core::ops::Range<usize>, core::ops::Range<usize>, usize, usize),
    ) {
        let [batches, _, _, _] = self.input_shape;
        let [_, out_h, out_w, _] = self.output_shape;
        for b in 0..batches {
            for oy in 0..out_h {
                for ox in 0..out_w {
                    let (ys, xs) = self.window_at(oy, ox);
                    f(b, ys, xs, oy, ox);
                }
            }
        }
    }
}

/// Most inputs a pooling window may cover (clipped to the input): `2^23 · 128 < 2^31`.
pub const MAX_WINDOW: usize = 1 << 23;

/// The output of an average pool: the sum `acc` of a window of `count > 0` inputs divided by
/// `count`, rounded half away from zero (C++ division truncates toward zero), then clamped
/// (shared by the plain and in-place kernels).
#[inline]
pub(crate) fn average(acc: i32, count: i32, p: &PoolParams) -> i8 {
    let avg = if acc > 0 {
        (acc + count / 2) / count
    } else {
        (acc - count / 2) / count
    };
    avg.max(p.act_min).min(p.act_max) as i8
}

/// The output of a max pool: the window's maximum `max`, clamped (shared with
/// [`crate::ops::overlapped`]).
#[inline]
pub(crate) fn clamp_max(max: i8, p: &PoolParams) -> i8 {
    i32::from(max).max(p.act_min).min(p.act_max) as i8
}

/// The sliding window of a prepared pooling operator (dilation 1, channel `c` reads `c`).
pub fn window(p: &PoolParams) -> Window {
    Window {
        input: p.input_shape,
        output: p.output_shape,
        kernel: (p.filter_h, p.filter_w),
        stride: (p.stride_h, p.stride_w),
        dilation: (1, 1),
        pad: (p.pad_h, p.pad_w),
        channels: Channels::Same,
    }
}

/// The largest difference of the input and output scales a pooling accepts: the float just
/// below the double `1e-6` (so `d > SCALE_TOLERANCE` is `f64::from(d) > 1e-6` for every float
/// `d`, without a soft double).
const SCALE_TOLERANCE: f32 = 1.0e-6;

#[cfg(test)]
#[test]
fn scale_tolerance_is_the_double() {
    let next = f32::from_bits(SCALE_TOLERANCE.to_bits() + 1);
    assert!(f64::from(SCALE_TOLERANCE) <= 1.0e-6 && f64::from(next) > 1.0e-6);
}

/// The access contract of a pooling operator for its input: its window, either direction.
pub fn contract(p: &PoolParams) -> Contract {
    Contract {
        access: Access::Window(window(p)),
        in_elems: p.input_shape.iter().product(),
        out_elems: p.output_shape.iter().product(),
        in_elem_bytes: 1,
        out_elem_bytes: 1,
        backward: true,
    }
}

/// The access contract of a float32 pooling operator: the int8 window over 4-byte elements.
pub fn contract_f32(p: &PoolParams) -> Contract {
    contract(p).with_elem_bytes(4, 4)
}

/// Prepares AVERAGE_POOL_2D or MAX_POOL_2D, int8.
pub(crate) fn prepare(cx: &Prep<'_, '_>) -> Result<PoolParams, LoadError> {
    cx.inputs(1, 1)?;
    // Borrowed (the operator's tensors are read before its prepare): no 64-byte copies on
    // the load's deepest stack.
    let (x, out) = (cx.input_ref(0)?, cx.output_ref()?);
    cx.int8_activation(x, Operand::Input(0))?;
    cx.int8_activation(out, Operand::Output)?;
    cx.quantized(&[x, out])?;
    let (po, _) = options(cx)?;
    PoolParams::new(cx.name(), &po, x.shape(), out.shape(), x.q, out.q).map_err(|e| cx.err(e))
}

/// Whether the operator's input is float32 and this build has the float kernels (the float
/// kernel then prepares it).
pub(crate) fn is_float(cx: &Prep<'_, '_>) -> bool {
    crate::ops::float::BUILT && cx.input(0).is_ok_and(|x| x.ty == TensorType::Float32)
}

/// A prepared float32 pooling operator: the int8 kernels' geometry (its clamp unused) and the
/// float activation range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PoolF32Params {
    /// Shapes, strides, window, padding.
    pub(crate) pool: PoolParams,
    /// The fused activation's output range.
    pub(crate) range: FloatRange,
}

impl PoolF32Params {
    /// Checks the slices against the shapes.
    pub(crate) fn check(
        &self,
        op: &'static str,
        input: &[f32],
        output: &[f32],
    ) -> Result<(), KernelError> {
        let p = &self.pool;
        KernelError::check_len(
            op,
            Operand::Input(0),
            p.input_shape.iter().product(),
            input.len(),
        )?;
        KernelError::check_len(
            op,
            Operand::Output,
            p.output_shape.iter().product(),
            output.len(),
        )
    }
}

/// Prepares AVERAGE_POOL_2D or MAX_POOL_2D, float32.
pub(crate) fn prepare_f32(cx: &Prep<'_, '_>) -> Result<PoolF32Params, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
    let (po, activation) = options(cx)?;
    // The geometry checks of the int8 kernels, with a unit quantization (unused).
    let unit = QuantParams::new(1.0, 0);
    let pool = PoolParams::new(cx.name(), &po, x.shape(), out.shape(), unit, unit)
        .map_err(|e| cx.err(e))?;
    Ok(PoolF32Params {
        pool,
        range: FloatRange::new(activation),
    })
}

/// The options, and the fused activation.
fn options(cx: &Prep<'_, '_>) -> Result<(PoolOptions, Activation), LoadError> {
    let o = cx.op().pool2d_options()?;
    let po = PoolOptions {
        padding: cx.padding(o.padding)?,
        stride_w: o.stride_w.max(0) as usize,
        stride_h: o.stride_h.max(0) as usize,
        filter_w: o.filter_w.max(0) as usize,
        filter_h: o.filter_h.max(0) as usize,
        activation: cx.activation(o.fused_activation)?,
    };
    Ok((po, po.activation))
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(PoolParams {
    input_shape: [usize; 4],
    output_shape: [usize; 4],
    stride_h: usize,
    stride_w: usize,
    filter_h: usize,
    filter_w: usize,
    pad_h: usize,
    pad_w: usize,
    act_min: i32,
    act_max: i32,
});

crate::format::codec::words!(PoolF32Params {
    pool: PoolParams,
    range: FloatRange,
});

/// Most inputs an int16 pooling window may cover (clipped to the input): `2^16 · 32768 ≤
/// 2^31`, the `int32` sum of TFLM's int16 `AveragePool` cannot overflow.
pub const MAX_WINDOW_I16: usize = 1 << 16;

/// Prepares AVERAGE_POOL_2D or MAX_POOL_2D, int16 (TFLM's `PoolingPrepare`: the input and
/// output quantizations equal, scales within 1e-6, one zero point, in int16's range): the
/// int8 kernels' geometry, the activation's int16 range, a window of at most
/// [`MAX_WINDOW_I16`] inputs.
pub(crate) fn prepare_i16(cx: &Prep<'_, '_>) -> Result<PoolParams, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input_ref(0)?, cx.output_ref()?);
    cx.activation_of(x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(out, Operand::Output, TensorType::Int16)?;
    cx.quantized(&[x, out])?;
    let (po, activation) = options(cx)?;
    let op = cx.name();
    // The geometry checks of the int8 kernels, with a unit quantization (unused).
    let unit = QuantParams::new(1.0, 0);
    let mut p =
        PoolParams::new(op, &po, x.shape(), out.shape(), unit, unit).map_err(|e| cx.err(e))?;
    let window = po.filter_h.min(p.input_shape[1]) * po.filter_w.min(p.input_shape[2]);
    if window > MAX_WINDOW_I16 {
        return Err(cx.unsupported(Unsupported::PoolingWindow));
    }
    let (lo, hi) = (i32::from(i16::MIN), i32::from(i16::MAX));
    zero_point_in(op, x.q, lo, hi).map_err(|e| cx.err(e))?;
    if (x.q.scale - out.q.scale).abs() > SCALE_TOLERANCE || x.q.zero_point != out.q.zero_point {
        return Err(cx.unsupported(Unsupported::QuantizationDiffers));
    }
    (p.act_min, p.act_max) =
        activation_range(op, activation, out.q, lo, hi).map_err(|e| cx.err(e))?;
    Ok(p)
}

/// Whether the operator's input is int16 (the int16 kernel then prepares it).
pub(crate) fn is_i16(cx: &Prep<'_, '_>) -> bool {
    cx.input(0).is_ok_and(|x| x.ty == TensorType::Int16)
}

impl PoolParams {
    /// Checks int16 slices against the shapes.
    pub(crate) fn check_i16(
        &self,
        op: &'static str,
        input: &[i16],
        output: &[i16],
    ) -> Result<(), KernelError> {
        check_nhwc_io(
            op,
            (&self.input_shape, input.len()),
            (&self.output_shape, output.len()),
        )
    }
}
