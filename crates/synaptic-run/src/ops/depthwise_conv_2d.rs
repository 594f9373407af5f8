//! DEPTHWISE_CONV_2D, int8 activations, int8 per-channel (or per-tensor) weights, int32
//! bias, any depth multiplier; and float32 ([`DepthwiseConv2dF32`]).
//!
//! Mirrors `reference_integer_ops::DepthwiseConvPerChannel` with the preparation of
//! `micro/kernels/depthwise_conv_common.cc`; its parameters, window taps and output stage are
//! CONV_2D's ([`super::conv_2d`]). Overlapped: the output pixels in the plain kernel's order,
//! each element's taps by running input/weight indices.

use synaptic_tflite::code;

use super::common::{nhwc, offset4, size, Int32s, Int8};
use super::conv_2d::{
    check_f32, check_f32_tables, check_tables, contract, contract_f32, is_float, prepare_conv,
    prepare_conv_f32, requantize, spatial, ConvF32Params, ConvOptions, ConvParams,
};
use super::float::{F32s, LeF32};
use super::in_place::{check, for_each_pixel, ordered, put32, x32, InPlace};
use super::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};
use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault};
use crate::math::{activation_range_i8, int8_zero_point, QuantParams};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DEPTHWISE_CONV_2D];

/// The options of a DEPTHWISE_CONV_2D (`DepthwiseConv2DOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthwiseOptions {
    /// The convolution options.
    pub conv: ConvOptions,
    /// `depth_multiplier`: output channels per input channel.
    pub depth_multiplier: usize,
}

impl ConvParams {
    /// Prepares a DEPTHWISE_CONV_2D: filter `[1, kh, kw, in_c * depth_multiplier]`.
    pub fn depthwise(
        opts: &DepthwiseOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "DEPTHWISE_CONV_2D";
        let i = nhwc(OP, Operand::Input(0), input_shape)?;
        let f = nhwc(OP, Operand::Filter, filter_shape)?;
        let o = nhwc(OP, Operand::Output, output_shape)?;
        for s in [&i, &f, &o] {
            size(OP, s)?;
        }
        if f[0] != 1 {
            return Err(KernelError::shape(OP, ShapeFault::FilterFirstDim));
        }
        if f[3] != o[3] {
            return Err(KernelError::shape(OP, ShapeFault::FilterChannels));
        }
        // Checked: the product of two model fields wraps a 32-bit `usize`.
        if opts.depth_multiplier == 0 || i[3].checked_mul(opts.depth_multiplier) != Some(o[3]) {
            return Err(KernelError::shape(OP, ShapeFault::DepthMultiplier));
        }
        let (pad_h, pad_w) = spatial(OP, &opts.conv, &i, (f[1], f[2]), &o)?;
        let (act_min, act_max) = activation_range_i8(OP, opts.conv.activation, output)?;
        Ok(ConvParams {
            input_shape: i,
            filter_shape: f,
            output_shape: o,
            input_offset: -int8_zero_point(OP, input)?,
            output_offset: int8_zero_point(OP, output)?,
            stride_h: opts.conv.stride_h,
            stride_w: opts.conv.stride_w,
            dilation_h: opts.conv.dilation_h,
            dilation_w: opts.conv.dilation_w,
            pad_h,
            pad_w,
            depth_multiplier: opts.depth_multiplier,
            act_min,
            act_max,
        })
    }
}

/// DEPTHWISE_CONV_2D, int8 (`DepthwiseConvPerChannel`), any depth multiplier.
#[inline(never)]
pub fn depthwise_conv2d<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    input: &[i8],
    filter: &[W],
    bias: Option<&B>,
    output: &mut [i8],
) -> Result<(), KernelError> {
    p.check(
        "DEPTHWISE_CONV_2D",
        multipliers,
        shifts,
        input,
        filter,
        bias,
        output,
    )?;
    let [batches, in_h, in_w, in_d] = p.input_shape;
    let [_, f_h, f_w, _] = p.filter_shape;
    let [_, out_h, out_w, _] = p.output_shape;
    let dm = p.depth_multiplier;
    for b in 0..batches {
        for oy in 0..out_h {
            let in_y0 = (oy * p.stride_h) as isize - p.pad_h as isize;
            for ox in 0..out_w {
                let in_x0 = (ox * p.stride_w) as isize - p.pad_w as isize;
                for ic in 0..in_d {
                    for m in 0..dm {
                        let oc = m + ic * dm;
                        let mut acc: i32 = 0;
                        for fy in 0..f_h {
                            let in_y = in_y0 + (p.dilation_h * fy) as isize;
                            if in_y < 0 || in_y >= in_h as isize {
                                continue;
                            }
                            for fx in 0..f_w {
                                let in_x = in_x0 + (p.dilation_w * fx) as isize;
                                if in_x < 0 || in_x >= in_w as isize {
                                    continue;
                                }
                                let x = input
                                    [offset4(&p.input_shape, b, in_y as usize, in_x as usize, ic)];
                                let w = filter[offset4(&p.filter_shape, 0, fy, fx, oc)];
                                acc = acc.wrapping_add(
                                    w.value().wrapping_mul(i32::from(x) + p.input_offset),
                                );
                            }
                        }
                        if let Some(bias) = bias {
                            acc = acc.wrapping_add(bias.at(oc));
                        }
                        output[offset4(&p.output_shape, b, oy, ox, oc)] =
                            requantize(acc, multipliers.at(oc), shifts.at(oc), p);
                    }
                }
            }
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D ([`depthwise_conv2d`]) with input and output in `buf`.
#[allow(clippy::too_many_arguments)]
pub fn depthwise_conv2d_in_place<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "DEPTHWISE_CONV_2D";
    check_tables(OP, p, multipliers, shifts, filter, bias)?;
    check(OP, &contract(p, true), buf, &at)?;
    let [_, _, _, in_d] = p.input_shape;
    let out_d = p.output_shape[3];
    let dm = p.depth_multiplier;
    let x_step = in_d * p.dilation_w;
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let ic = oc / dm;
            let mut acc: i32 = 0;
            for (fy, in_y) in ys.iter() {
                // The row's taps: input bytes `x_step` apart, weights `out_d` apart.
                let mut xi = at.input + offset4(&p.input_shape, b, in_y, xs.first, ic);
                let mut wi = offset4(&p.filter_shape, 0, fy, xs.taps.start, oc);
                for _ in xs.taps.clone() {
                    let x = buf[xi] as i8;
                    acc = acc.wrapping_add(
                        filter[wi]
                            .value()
                            .wrapping_mul(i32::from(x) + p.input_offset),
                    );
                    xi += x_step;
                    wi += out_d;
                }
            }
            if let Some(bias) = bias {
                acc = acc.wrapping_add(bias.at(oc));
            }
            buf[at.output + first + oc] =
                requantize(acc, multipliers.at(oc), shifts.at(oc), p) as u8;
        }
        Ok(())
    })
}

/// Prepares DEPTHWISE_CONV_2D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if is_float(cx) {
        return Prepared::of::<DepthwiseConv2dF32>(cx, prepare_conv_f32(cx, true)?);
    }
    let (p, table) = prepare_conv(cx, true)?;
    Ok(Prepared::of::<DepthwiseConv2d>(cx, p)?.with_table(table))
}

/// The DEPTHWISE_CONV_2D kernel, int8.
pub struct DepthwiseConv2d;

impl Kernel for DepthwiseConv2d {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    type Params = ConvParams;

    #[inline]
    fn run(p: &ConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        let (x, w, bias) = (io.i8(0)?, io.bytes(1), io.bias(2));
        depthwise_conv2d(p, m, s, x, w, bias.as_ref(), io.out_i8()?)
    }

    fn contract(p: &ConvParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p, true))
    }

    fn run_in_place(
        p: &ConvParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        let (w, bias) = (io.bytes(1), io.bias(2));
        depthwise_conv2d_in_place(p, m, s, w, bias.as_ref(), io.buf, io.at)?;
        Ok(p.output_shape.iter().product())
    }
}

/// DEPTHWISE_CONV_2D, float32, as `reference_ops::DepthwiseConv` (float) computes it: per
/// output channel `oc = ic · multiplier + m`, `total = 0`, `total += x · w` over the window's
/// rows and columns in order (taps outside the input skipped), then `total + bias`, clamped.
#[inline(never)]
pub fn depthwise_conv2d_f32(
    p: &ConvF32Params,
    input: &[f32],
    filter: &[u8],
    bias: Option<&[u8]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    let c = &p.conv;
    check_f32("DEPTHWISE_CONV_2D", c, input, filter, bias, output)?;
    let [batches, _, _, in_d] = c.input_shape;
    let [_, out_h, out_w, _] = c.output_shape;
    let mult = c.depth_multiplier;
    for b in 0..batches {
        for oy in 0..out_h {
            for ox in 0..out_w {
                let (ys, xs) = c.taps_at(oy, ox);
                for ic in 0..in_d {
                    for m in 0..mult {
                        let oc = m + ic * mult;
                        let mut total = 0.0f32;
                        for (fy, in_y) in ys.iter() {
                            for (fx, in_x) in xs.iter() {
                                let x = input[offset4(&c.input_shape, b, in_y, in_x, ic)];
                                let w = LeF32(filter).at(offset4(&c.filter_shape, 0, fy, fx, oc));
                                total += x * w;
                            }
                        }
                        let bias_value = bias.map_or(0.0, |bs| LeF32(bs).at(oc));
                        output[offset4(&c.output_shape, b, oy, ox, oc)] =
                            p.range.apply(total + bias_value);
                    }
                }
            }
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D, float32 ([`depthwise_conv2d_f32`]) with input and output in `buf`
/// (little-endian floats): each output element computed in the plain kernel's order of
/// operations, then written, the elements in `at.direction` order.
pub fn depthwise_conv2d_f32_in_place(
    p: &ConvF32Params,
    filter: &[u8],
    bias: Option<&[u8]>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "DEPTHWISE_CONV_2D";
    let c = &p.conv;
    check_f32_tables(OP, c, filter, bias)?;
    check(OP, &contract_f32(c, true), buf, &at)?;
    let out_d = c.output_shape[3];
    let dm = c.depth_multiplier;
    let (filter, bias) = (LeF32(filter), bias.map(LeF32));
    for_each_pixel(&c.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = c.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let ic = oc / dm;
            let mut total = 0.0f32;
            for (fy, in_y) in ys.iter() {
                for (fx, in_x) in xs.iter() {
                    let x = x32(buf, at.input, offset4(&c.input_shape, b, in_y, in_x, ic));
                    total += x * filter.at(offset4(&c.filter_shape, 0, fy, fx, oc));
                }
            }
            let bias_value = bias.map_or(0.0, |bs| bs.at(oc));
            put32(
                buf,
                at.output,
                first + oc,
                p.range.apply(total + bias_value),
            );
        }
        Ok(())
    })
}

/// The DEPTHWISE_CONV_2D kernel, float32.
pub struct DepthwiseConv2dF32;

impl Kernel for DepthwiseConv2dF32 {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    type Params = ConvF32Params;

    #[inline]
    fn run(p: &ConvF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, w) = (io.f32(0)?, io.bytes(1));
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        depthwise_conv2d_f32(p, x, w, bias, io.out_f32()?)
    }

    fn contract(p: &ConvF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.conv, true))
    }

    fn run_in_place(
        p: &ConvF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        depthwise_conv2d_f32_in_place(p, io.bytes(1), bias, io.buf, io.at)?;
        Ok(4 * p.conv.output_shape.iter().product::<usize>())
    }
}
