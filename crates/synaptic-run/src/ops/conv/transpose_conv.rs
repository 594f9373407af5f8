//! TRANSPOSE_CONV (int8, int16, float32): TFLM's `micro/kernels/transpose_conv.cc`,
//! `reference_integer_ops::TransposeConv` (int8) and `reference_ops::TransposeConv` (float32).
//! Inputs: the output shape (TFLM never reads it: neither does this kernel), the filter
//! `[out_channels, height, width, in_channels]` (a constant), the NHWC input, an optional
//! bias; `TransposeConvOptions`' padding (SAME or VALID), strides and fused activation.
//!
//! Both kernels scatter: each input element, in order (batch, row, column, channel), adds
//! `input · filter` to every output element its window reaches (rows and columns past the
//! output's edges dropped), the output's padding computed as TFLM computes it,
//! `ComputePaddingHeightWidth` of the *output's* height and width with the filter and strides.
//!
//! - float32: the sums accumulate in the output itself (zeroed first), in single precision
//!   in TFLM's order; then `+ bias` (nothing without one) and the activation's clamp.
//! - int8: the sums `(input − input_zero_point) · filter` accumulate in an `int32` buffer of
//!   the output's size (TFLM's scratch buffer: the kernel's scratch, `Kernel::scratch_bytes`)
//!   wrapping as the x86-64 build does; then `+ bias` (int32), `MultiplyByQuantizedMultiplier`
//!   by the output channel's multiplier (per-channel or per-tensor filter scales, TFLM's
//!   `PopulateConvolutionQuantizationParams`), `+ output_zero_point`, clamped to the fused
//!   activation's range. The filter's zero point is not read (TFLM's neither).
//! - int16 (16x8: int8 filter): the sums `input · filter` (no zero point: TFLM reads neither
//!   the input's nor the output's) in an `int64` buffer (the scratch, two words an element),
//!   `+ bias` (int64, or int16 widened as TFLM's converted copy), the 64-bit
//!   `MultiplyByQuantizedMultiplier`, clamped to the fused activation's range.
//!
//! Refused at load where TFLM only asserts (`TFLITE_DCHECK`, `MatchingDim`): tensors not 4-D,
//! batches, input channels or output channels that differ between input, filter and output,
//! a stride of 0, a window whose coordinates do not fit `int`; and a hybrid model (a filter
//! of another type than the input) or an output of another type than the input, as TFLM
//! refuses them; an int16 kernel's int32 bias (TFLM would read it as int64) or a channel
//! multiplier whose shift the 64-bit form cannot apply (over 14).

use synaptic_mem::Scratch;
use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    activation_range, activation_range_i8, channel_multiplier, compute_padding,
    multiply_by_quantized_multiplier_i64, zero_point_in, Requantizer,
};
use crate::ops::common::offset4;
use crate::ops::float::{F32s, FloatRange, LeF32};
use crate::ops::tables::{Constants, Table};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::TRANSPOSE_CONV];

const OP: &str = "TRANSPOSE_CONV";

/// A prepared TRANSPOSE_CONV.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransposeConvParams {
    /// NHWC.
    pub(crate) input_shape: [usize; 4],
    /// `[out_channels, height, width, in_channels]`.
    pub(crate) filter_shape: [usize; 4],
    /// NHWC.
    pub(crate) output_shape: [usize; 4],
    /// Strides (height, width).
    pub(crate) stride: [usize; 2],
    /// The padding before (height, width).
    pub(crate) pad: [usize; 2],
    /// float32 (else int8 or int16).
    pub(crate) float: bool,
    /// int16 input and output (int8 filter).
    pub(crate) int16: bool,
    /// Bytes of one bias element (4; an int16 kernel's: 8 or 2).
    pub(crate) bias_width: usize,
    /// `-input_zero_point` (int8).
    pub(crate) input_offset: i32,
    /// The output zero point (int8).
    pub(crate) output_offset: i32,
    /// The fused activation's clamp (int8).
    pub(crate) act: [i32; 2],
    /// The fused activation's clamp (float32).
    pub(crate) range: FloatRange,
}

impl TransposeConvParams {
    fn out_elems(&self) -> usize {
        self.output_shape.iter().product()
    }

    /// Calls `f(input index, output index, filter index)` for every product of the scatter,
    /// in TFLM's order (batch, input row, column, channel, filter row, column, output
    /// channel), those outside the output skipped.
    #[inline(always)]
    fn scatter(&self, mut f: impl FnMut(usize, usize, usize)) {
        let [batches, in_h, in_w, in_d] = self.input_shape;
        let [out_d, f_h, f_w, _] = self.filter_shape;
        let [_, out_h, out_w, _] = self.output_shape;
        let [sh, sw] = self.stride;
        let [ph, pw] = self.pad;
        for b in 0..batches {
            for iy in 0..in_h {
                for ix in 0..in_w {
                    for ic in 0..in_d {
                        let xi = offset4(&self.input_shape, b, iy, ix, ic);
                        for fy in 0..f_h {
                            // `out_y = in_y * stride - pad + filter_y`, in range.
                            let Some(oy) = (iy * sh + fy).checked_sub(ph).filter(|&y| y < out_h)
                            else {
                                continue;
                            };
                            for fx in 0..f_w {
                                let Some(ox) =
                                    (ix * sw + fx).checked_sub(pw).filter(|&x| x < out_w)
                                else {
                                    continue;
                                };
                                let o0 = offset4(&self.output_shape, b, oy, ox, 0);
                                for oc in 0..out_d {
                                    f(xi, o0 + oc, offset4(&self.filter_shape, oc, fy, fx, ic));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The TRANSPOSE_CONV kernel, int8, int16 and float32.
pub struct TransposeConv;

impl Kernel for TransposeConv {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 4;
    type Params = TransposeConvParams;

    fn run(p: &TransposeConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let n = p.out_elems();
        let out_d = p.output_shape[3];
        let (x, w, bias) = (io.bytes(2), io.bytes(1), io.bytes(3));
        let (xb, wb) = match (p.float, p.int16) {
            (true, _) => (4, 4),
            (false, true) => (2, 1),
            _ => (1, 1),
        };
        let input_elems: usize = p.input_shape.iter().product();
        KernelError::check_len(OP, Operand::Input(2), input_elems * xb, x.len())?;
        let filter_elems: usize = p.filter_shape.iter().product();
        KernelError::check_len(OP, Operand::Filter, filter_elems * wb, w.len())?;
        let bw = if p.int16 { p.bias_width } else { 4 };
        if !bias.is_empty() {
            KernelError::check_len(OP, Operand::Bias, out_d * bw, bias.len())?;
        }
        // Every index the scatter forms lies within these shapes (checked at load).
        let consistent = p.filter_shape[0] == out_d
            && p.filter_shape[3] == p.input_shape[3]
            && p.input_shape[0] == p.output_shape[0];
        if !consistent {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let bias_at = |c: usize| {
            let b = &bias[4 * c..4 * c + 4];
            [b[0], b[1], b[2], b[3]]
        };
        if crate::ops::float::BUILT && p.float {
            let (x, w) = (LeF32(x), LeF32(w));
            let out = io.out_f32()?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            out.fill(0.0);
            p.scatter(|xi, oi, wi| out[oi] += x.at(xi) * w.at(wi));
            for (i, o) in out.iter_mut().enumerate() {
                let mut acc = *o;
                if !bias.is_empty() {
                    acc += f32::from_le_bytes(bias_at(i % out_d));
                }
                *o = p.range.apply(acc);
            }
        } else if p.int16 {
            let (m, s) = (io.multipliers(), io.shifts());
            if m.len() != out_d || s.len() != out_d || s.iter().any(|&s| s as i32 > 14) {
                return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
            }
            io.i16(2)?;
            let mut scratch = core::mem::replace(&mut io.scratch, Scratch::empty());
            // The int64 sums as (low, high) words.
            let acc = scratch
                .take::<u32>(2 * n)
                .ok_or(KernelError::unsupported(OP, Unsupported::Scratch))?;
            acc.fill(0);
            p.scatter(|xi, oi, wi| {
                let v = i32::from(i16::from_le_bytes([x[2 * xi], x[2 * xi + 1]]));
                let prod = i64::from(v * i32::from(w[wi] as i8));
                let a = (u64::from(acc[2 * oi + 1]) << 32 | u64::from(acc[2 * oi])) as i64;
                let a = a.wrapping_add(prod) as u64;
                acc[2 * oi] = a as u32;
                acc[2 * oi + 1] = (a >> 32) as u32;
            });
            let bias_of = |c: usize| -> i64 {
                if p.bias_width == 2 {
                    i64::from(i16::from_le_bytes([bias[2 * c], bias[2 * c + 1]]))
                } else {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(&bias[8 * c..8 * c + 8]);
                    i64::from_le_bytes(b)
                }
            };
            let out = io.out_i16()?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (i, (o, a)) in out.iter_mut().zip(acc.chunks_exact(2)).enumerate() {
                let c = i % out_d;
                let mut a = (u64::from(a[1]) << 32 | u64::from(a[0])) as i64;
                if !bias.is_empty() {
                    a = a.wrapping_add(bias_of(c));
                }
                let v = multiply_by_quantized_multiplier_i64(a, m[c] as i32, s[c] as i32);
                *o = v.clamp(p.act[0], p.act[1]) as i16;
            }
        } else {
            let (m, s) = (io.multipliers(), io.shifts());
            if m.len() != out_d || s.len() != out_d {
                return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
            }
            io.i8(2)?;
            let mut scratch = core::mem::replace(&mut io.scratch, Scratch::empty());
            let acc = scratch
                .take::<i32>(n)
                .ok_or(KernelError::unsupported(OP, Unsupported::Scratch))?;
            acc.fill(0);
            let off = p.input_offset;
            p.scatter(|xi, oi, wi| {
                let v = i32::from(x[xi] as i8).wrapping_add(off);
                acc[oi] = acc[oi].wrapping_add(v.wrapping_mul(i32::from(w[wi] as i8)));
            });
            let out = io.out_i8()?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (i, (o, &a)) in out.iter_mut().zip(acc.iter()).enumerate() {
                let c = i % out_d;
                let mut a = a;
                if !bias.is_empty() {
                    a = a.wrapping_add(i32::from_le_bytes(bias_at(c)));
                }
                let v = Requantizer::new(m[c] as i32, s[c] as i32)
                    .apply(a)
                    .wrapping_add(p.output_offset);
                *o = v.clamp(p.act[0], p.act[1]) as i8;
            }
        }
        Ok(())
    }

    const SCRATCH: bool = true;

    fn scratch_bytes(p: &TransposeConvParams) -> usize {
        if p.float {
            0
        } else if p.int16 {
            Scratch::span::<u32>(p.out_elems().saturating_mul(2))
        } else {
            Scratch::span::<i32>(p.out_elems())
        }
    }
}

/// Prepares TRANSPOSE_CONV: 3 or 4 inputs (output shape, filter, input, optional bias), an
/// int8 or float32 input and output, a constant filter of the input's type, 4-D shapes that
/// agree.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 4)?;
    let (x, w, out) = (cx.input(2)?, cx.input(1)?, cx.output()?);
    let float = crate::ops::float::BUILT && x.ty == TensorType::Float32;
    let int16 = x.ty == TensorType::Int16;
    let ty = match x.ty {
        TensorType::Int8 | TensorType::Int16 => x.ty,
        _ if float => x.ty,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(2),
                expected: TensorTypes::Int8Int16OrFloat32,
            }))
        }
    };
    cx.activation_of(&x, Operand::Input(2), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    let w_ty = if int16 { TensorType::Int8 } else { ty };
    if w.ty != w_ty {
        return Err(cx.unsupported(Unsupported::Hybrid));
    }
    cx.constant(&w, Operand::Filter)?;
    if x.rank != 4 || w.rank != 4 || out.rank != 4 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let dims = |t: &crate::model::TInfo<'_>| [t.dims[0], t.dims[1], t.dims[2], t.dims[3]];
    let (xs, ws, os) = (dims(&x), dims(&w), dims(&out));
    if xs[0] != os[0] {
        return Err(cx.shape(ShapeFault::Batches));
    }
    if xs[3] != ws[3] {
        return Err(cx.shape(ShapeFault::FilterDepth));
    }
    if ws[0] != os[3] {
        return Err(cx.shape(ShapeFault::OutputDepth));
    }
    let o = cx.op().transpose_conv_options()?;
    let padding = cx.padding(o.0)?;
    let (sw, sh) = (o.1.max(0) as usize, o.2.max(0) as usize);
    let activation = cx.activation(o.3)?;
    // TFLM's padding: the output's height and width as the convolution's input.
    let (_, ph) = compute_padding(OP, padding, os[1], ws[1], sh, 1).map_err(|e| cx.err(e))?;
    let (_, pw) = compute_padding(OP, padding, os[2], ws[2], sw, 1).map_err(|e| cx.err(e))?;
    // Every coordinate `in · stride + filter` fits `int`, as TFLM computes it.
    let extent = |i: usize, s: usize, f: usize| {
        i.checked_sub(1)
            .and_then(|i| i.checked_mul(s))
            .and_then(|v| v.checked_add(f))
            .is_some_and(|v| v <= i32::MAX as usize)
    };
    if !extent(xs[1], sh, ws[1]) || !extent(xs[2], sw, ws[2]) {
        return Err(cx.unsupported(Unsupported::WindowExtent));
    }
    let channels = os[3];
    let mut p = TransposeConvParams {
        input_shape: xs,
        filter_shape: ws,
        output_shape: os,
        stride: [sh, sw],
        pad: [ph, pw],
        float,
        int16,
        bias_width: 4,
        input_offset: 0,
        output_offset: 0,
        act: [-128, 127],
        range: FloatRange::new(activation),
    };
    if float {
        cx.bias_of(3, channels, TensorType::Float32)?;
        return Ok(Prepared::of::<TransposeConv>(cx, p)?.unread(0));
    }
    cx.quantized(&[&x, &out])?;
    let filter = cx.filter_scales(1, &w, channels)?;
    if int16 {
        // An int64 bias, or an int16 one TFLM widens; an int32 one it would misread.
        if cx.has(3) {
            let b = cx.input(3)?;
            p.bias_width = match b.ty {
                TensorType::Int64 => 8,
                TensorType::Int16 => 2,
                _ => {
                    return Err(cx.unsupported(Unsupported::TensorType {
                        operand: Operand::Bias,
                        expected: TensorTypes::Int32OrInt64,
                    }))
                }
            };
            cx.constant(&b, Operand::Bias)?;
            if channels.checked_mul(p.bias_width) != Some(b.bytes) {
                return Err(cx.shape(ShapeFault::Channels));
            }
        }
        // Every channel's shift within the 64-bit form's (`15 - shift` positive).
        for c in 0..channels {
            let sc = if filter.len() == 1 {
                filter.get(0)
            } else {
                filter.get(c)
            };
            let sc = sc.ok_or(cx.unsupported(Unsupported::FilterScales))?;
            let (_, s) =
                channel_multiplier(OP, x.q.scale, sc, out.q.scale).map_err(|e| cx.err(e))?;
            if s > 14 {
                return Err(cx.unsupported(Unsupported::Multiplier));
            }
        }
        let (lo, hi) =
            activation_range(OP, activation, out.q, -32768, 32767).map_err(|e| cx.err(e))?;
        p.act = [lo, hi];
        let table = Table::PerChannel {
            name: cx.name(),
            channels,
            input: x.q.scale,
            filter,
            output: out.q.scale,
        };
        return Ok(Prepared::with::<TransposeConv>(cx, p, table, Constants::None)?.unread(0));
    }
    cx.bias(3, channels)?;
    let zp = |q| zero_point_in(OP, q, -128, 127).map_err(|e| cx.err(e));
    p.input_offset = -zp(x.q)?;
    p.output_offset = zp(out.q)?;
    let (lo, hi) = activation_range_i8(OP, activation, out.q).map_err(|e| cx.err(e))?;
    p.act = [lo, hi];
    let table = Table::PerChannel {
        name: cx.name(),
        channels,
        input: x.q.scale,
        filter,
        output: out.q.scale,
    };
    Ok(Prepared::with::<TransposeConv>(cx, p, table, Constants::None)?.unread(0))
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(TransposeConvParams {
    input_shape: [usize; 4],
    filter_shape: [usize; 4],
    output_shape: [usize; 4],
    stride: [usize; 2],
    pad: [usize; 2],
    float: bool,
    int16: bool,
    bias_width: usize,
    input_offset: i32,
    output_offset: i32,
    act: [i32; 2],
    range: FloatRange,
});
