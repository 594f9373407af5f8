//! CONV_2D and DEPTHWISE_CONV_2D with int16 activations and int8 weights (16x8): TFLM's
//! `micro/kernels/conv.cc` and `depthwise_conv.cc` int16 cases, which call
//! `reference_integer_ops::ConvPerChannel` and `DepthwiseConvPerChannel` (their int16
//! overloads), prepared as `conv_common.cc` and `depthwise_conv_common.cc` prepare them.
//!
//! The geometry (shapes, padding, strides, dilation, groups, depth multiplier) is the int8
//! kernels' [`ConvParams`], read and checked by the same functions; the per-channel
//! multipliers are the int8 kernels' table (`PopulateConvolutionQuantizationParams`, one
//! filter scale broadcast to every channel or one per output channel).
//!
//! Per output element: the sum of `input · filter` over the window's taps inside the input
//! (no zero point: TFLM reads neither the input's nor the output's), `+ bias`, TFLM's
//! `MultiplyByQuantizedMultiplier` by the channel's multiplier, clamped to the fused
//! activation's int16 range (which the output's zero point moves, as
//! `CalculateActivationRangeQuantized` computes it). Two accumulators, as TFLM chooses:
//!
//! - `int64` (an int64 bias, or none without a `quantized_bias_type` of `INT32`): the 64-bit
//!   sum and the 64-bit `MultiplyByQuantizedMultiplier` (the multiplier rounded to 16 bits).
//! - `int32` (CONV_2D only: an int32 bias, or none with a `quantized_bias_type` of `INT32`):
//!   the sum wrapping in 32 bits as the x86-64 build does, and the 32-bit
//!   `MultiplyByQuantizedMultiplier` of the int8 kernels.
//!
//! Refused at load, beyond the int8 kernels' geometry checks: a filter of another type than
//! int8, an output of another type than int16 (TFLM's checks); a bias of another type than
//! int64 or int32 (CONV_2D) or int64 (DEPTHWISE_CONV_2D: TFLM would read an int32 one as
//! int64); a channel's shift the 64-bit form cannot apply (over 14: TFLM's
//! `1 << (total_shift - 1)` of a total shift below 1). No scratch; no overlap of the output
//! with the input (no access contract).

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    activation_range, multiply_by_quantized_multiplier_i64, QuantParams, Requantizer,
};
use crate::ops::common::offset4;
use crate::ops::conv::conv_2d::{ConvParams, ParamsOf};
use crate::ops::tables::{Constants, Table};
use crate::ops::{Kernel, Kind, Operands, Prep, Prepared};

/// `TensorType` `INT32` (a `quantized_bias_type` of the options).
const INT32: i8 = 2;

/// A prepared 16x8 CONV_2D or DEPTHWISE_CONV_2D.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvI16Params {
    /// The geometry; its clamp the int16 activation range (its offsets unused, 0).
    pub(crate) conv: ConvParams,
    /// An `int32` accumulator and bias (else `int64`).
    pub(crate) acc32: bool,
}

/// The 16x8 output stage, shared with FULLY_CONNECTED's 16x8 kernel: bias `c` of `bias`
/// (little-endian int32 when `acc32`, else int64; 0 when absent) added to `acc`, then TFLM's
/// `MultiplyByQuantizedMultiplier` of the accumulator's width.
#[inline]
pub(crate) fn scaled(acc: i64, bias: &[u8], c: usize, acc32: bool, m: u32, s: u32) -> i32 {
    if acc32 {
        let b = match bias.get(4 * c..4 * c + 4) {
            Some(b) => i32::from_le_bytes([b[0], b[1], b[2], b[3]]),
            None => 0,
        };
        Requantizer::new(m as i32, s as i32).apply((acc as i32).wrapping_add(b))
    } else {
        let b = match bias.get(8 * c..8 * c + 8) {
            Some(b) => i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]]),
            None => 0,
        };
        multiply_by_quantized_multiplier_i64(acc.wrapping_add(b), m as i32, s as i32)
    }
}

/// Checks a 16x8 kernel's tables at run time: `channels` multipliers and shifts, each shift
/// one the 64-bit form applies (`acc32` false), and a bias absent or of `channels` elements.
pub(crate) fn check_tables(
    op: &'static str,
    m: &[u32],
    s: &[u32],
    bias: &[u8],
    channels: usize,
    acc32: bool,
) -> Result<(), KernelError> {
    if m.len() != channels || s.len() != channels || (!acc32 && s.iter().any(|&s| s as i32 > 14)) {
        return Err(KernelError::unsupported(op, Unsupported::ProgramMismatch));
    }
    if !bias.is_empty() {
        let width = if acc32 { 4 } else { 8 };
        KernelError::check_len(op, Operand::Bias, channels * width, bias.len())?;
    }
    Ok(())
}

/// Reads a 16x8 kernel's optional bias (input `k`, `channels` elements) and chooses its
/// accumulator as TFLM does: `true` (int32) for an int32 bias (accepted only when `int32`),
/// or none with a `quantized_bias_type` of `INT32`; `false` (int64) for an int64 bias, or none
/// otherwise.
pub(crate) fn wide_bias(
    cx: &Prep<'_, '_>,
    k: usize,
    channels: usize,
    int32: bool,
) -> Result<bool, LoadError> {
    if !cx.has(k) {
        return Ok(int32 && cx.op().quantized_bias_type()? == INT32);
    }
    let b = cx.input(k)?;
    let (acc32, width) = match b.ty {
        TensorType::Int64 => (false, 8),
        TensorType::Int32 if int32 => (true, 4),
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Bias,
                expected: if int32 {
                    TensorTypes::Int32OrInt64
                } else {
                    TensorTypes::Int64
                },
            }))
        }
    };
    cx.constant(&b, Operand::Bias)?;
    if channels.checked_mul(width) != Some(b.bytes) {
        return Err(cx.shape(ShapeFault::Channels));
    }
    Ok(acc32)
}

/// Refused unless every entry of `table` has a shift the 64-bit
/// `MultiplyByQuantizedMultiplier` applies (at most 14).
pub(crate) fn wide_shifts(cx: &Prep<'_, '_>, table: &Table<'_>) -> Result<(), LoadError> {
    for c in 0..table.len() {
        let (_, s) = table.entry(c).map_err(|e| cx.err(e))?;
        if s > 14 {
            return Err(cx.unsupported(Unsupported::Multiplier));
        }
    }
    Ok(())
}

/// Prepares a 16x8 operator of the family (DEPTHWISE_CONV_2D with `depthwise`), its geometry
/// by `params_of` (the int8 kernel's).
pub(crate) fn prepare<'m, K: Kernel<Params = ConvI16Params> + Kind>(
    cx: &Prep<'_, 'm>,
    depthwise: bool,
    params_of: ParamsOf,
) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, w, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    cx.activation_of(x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(out, Operand::Output, TensorType::Int16)?;
    if w.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(w, Operand::Filter)?;
    cx.quantized(&[x, out])?;
    // The int8 kernels' geometry checks, with a unit quantization (their offsets unused).
    let unit = QuantParams::new(1.0, 0);
    let mut conv = params_of(cx, [x.shape(), w.shape(), out.shape()], unit, unit)?;
    let activation = if depthwise {
        cx.op().depthwise_conv2d_options()?.fused_activation
    } else {
        cx.op().conv2d_options()?.fused_activation
    };
    let (lo, hi) = activation_range(
        K::NAME,
        cx.activation(activation)?,
        out.q,
        i32::from(i16::MIN),
        i32::from(i16::MAX),
    )
    .map_err(|e| cx.err(e))?;
    conv.act_min = lo;
    conv.act_max = hi;
    let channels = conv.output_channels();
    let filter = cx.filter_scales(1, w, channels)?;
    let acc32 = wide_bias(cx, 2, channels, !depthwise)?;
    let table = Table::PerChannel {
        name: cx.name(),
        channels,
        input: x.q.scale,
        filter,
        output: out.q.scale,
    };
    if !acc32 {
        wide_shifts(cx, &table)?;
    }
    Prepared::with::<K>(cx, ConvI16Params { conv, acc32 }, table, Constants::None)
}

/// Checks the operands of a 16x8 convolution against its parameters; returns its input,
/// filter, bias and output, its multipliers and shifts.
#[allow(clippy::type_complexity)]
fn operands<'x>(
    op: &'static str,
    depthwise: bool,
    p: &ConvI16Params,
    io: &'x mut Operands<'_, '_, '_>,
) -> Result<
    (
        &'x [i16],
        &'x [u8],
        &'x [u8],
        &'x [u32],
        &'x [u32],
        &'x mut [i16],
    ),
    KernelError,
> {
    let c = &p.conv;
    // Every index the loops form lies within these shapes (checked at load).
    let [_, _, _, in_d] = c.input_shape;
    let [f_0, _, _, f_d] = c.filter_shape;
    let out_d = c.output_shape[3];
    let consistent = c.input_shape[0] == c.output_shape[0]
        && if depthwise {
            f_0 == 1 && f_d == out_d && in_d.checked_mul(c.depth_multiplier) == Some(out_d)
        } else {
            f_0 == out_d && f_d > 0 && in_d % f_d == 0 && in_d > 0 && out_d % (in_d / f_d) == 0
        };
    if !consistent {
        return Err(KernelError::unsupported(op, Unsupported::ProgramMismatch));
    }
    let (m, s) = (io.multipliers(), io.shifts());
    let (w, bias) = (io.bytes(1), io.bytes(2));
    let x = io.i16(0)?;
    check_tables(op, m, s, bias, c.output_shape[3], p.acc32)?;
    let elems = |s: &[usize; 4]| s.iter().product::<usize>();
    KernelError::check_len(op, Operand::Input(0), elems(&c.input_shape), x.len())?;
    KernelError::check_len(op, Operand::Filter, elems(&c.filter_shape), w.len())?;
    let out = io.out_i16()?;
    KernelError::check_len(op, Operand::Output, elems(&c.output_shape), out.len())?;
    Ok((x, w, bias, m, s, out))
}

/// The CONV_2D kernel, int16 activations (16x8).
pub struct Conv2dI16;

impl Kernel for Conv2dI16 {
    const NAME: &'static str = "CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvI16Params;

    /// `ConvPerChannel` (int16): per output pixel and channel, the group's input channels
    /// over the window's taps inside the input.
    fn run(p: &ConvI16Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, w, bias, m, s, out) = operands(Self::NAME, false, p, io)?;
        let c = &p.conv;
        let [batches, _, _, in_d] = c.input_shape;
        let f_d = c.filter_shape[3];
        let [_, out_h, out_w, out_d] = c.output_shape;
        // (`f_d` divides `in_d`, the groups divide `out_d`: `operands` checked them.)
        let filters_per_group = out_d / (in_d / f_d);
        for b in 0..batches {
            for oy in 0..out_h {
                for ox in 0..out_w {
                    let (ys, xs) = c.taps_at(oy, ox);
                    for oc in 0..out_d {
                        let group_base = (oc / filters_per_group) * f_d;
                        let mut acc = 0i64;
                        for (fy, iy) in ys.iter() {
                            for (fx, ix) in xs.iter() {
                                let i0 = offset4(&c.input_shape, b, iy, ix, group_base);
                                let w0 = offset4(&c.filter_shape, oc, fy, fx, 0);
                                for (&xv, &wv) in x[i0..i0 + f_d].iter().zip(&w[w0..w0 + f_d]) {
                                    let prod = i32::from(xv) * i32::from(wv as i8);
                                    acc = acc.wrapping_add(i64::from(prod));
                                }
                            }
                        }
                        let v = scaled(acc, bias, oc, p.acc32, m[oc], s[oc]);
                        out[offset4(&c.output_shape, b, oy, ox, oc)] =
                            v.clamp(c.act_min, c.act_max) as i16;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The DEPTHWISE_CONV_2D kernel, int16 activations (16x8).
pub struct DepthwiseConv2dI16;

impl Kernel for DepthwiseConv2dI16 {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvI16Params;

    /// `DepthwiseConvPerChannel` (int16): output channel `ic · depth_multiplier + m` of input
    /// channel `ic` over the window's taps inside the input.
    fn run(p: &ConvI16Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, w, bias, m, s, out) = operands(Self::NAME, true, p, io)?;
        let c = &p.conv;
        let [batches, _, _, in_d] = c.input_shape;
        let [_, out_h, out_w, _] = c.output_shape;
        let dm = c.depth_multiplier;
        for b in 0..batches {
            for oy in 0..out_h {
                for ox in 0..out_w {
                    let (ys, xs) = c.taps_at(oy, ox);
                    for ic in 0..in_d {
                        for k in 0..dm {
                            let oc = k + ic * dm;
                            let mut acc = 0i64;
                            for (fy, iy) in ys.iter() {
                                for (fx, ix) in xs.iter() {
                                    let xv = x[offset4(&c.input_shape, b, iy, ix, ic)];
                                    let wv = w[offset4(&c.filter_shape, 0, fy, fx, oc)] as i8;
                                    let prod = i32::from(xv) * i32::from(wv);
                                    acc = acc.wrapping_add(i64::from(prod));
                                }
                            }
                            let v = scaled(acc, bias, oc, p.acc32, m[oc], s[oc]);
                            out[offset4(&c.output_shape, b, oy, ox, oc)] =
                                v.clamp(c.act_min, c.act_max) as i16;
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ConvI16Params {
    conv: ConvParams,
    acc32: bool,
});
