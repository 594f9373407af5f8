//! FULLY_CONNECTED with int16 activations and int8 weights (16x8): TFLM's
//! `micro/kernels/fully_connected.cc` int16 case, which calls
//! `reference_integer_ops::FullyConnected` (per-tensor filter) or `FullyConnectedPerChannel`
//! (more than one filter scale), prepared as `fully_connected_common.cc` prepares them.
//!
//! The geometry (rows, depths, `weights_format`, sizes) is the int8 kernel's, read and checked
//! by the same function; the multipliers are the int8 kernel's table (per-tensor or
//! per-channel, as it derives them).
//!
//! Per output element: the sum of `(filter + filter_offset) · (input + input_offset)` over the
//! row (the filter offset, `-filter_zero_point`, only per-tensor, as TFLM), `+ bias`, TFLM's
//! `MultiplyByQuantizedMultiplier` of the accumulator's width, `+ output_zero_point`, clamped
//! to the fused activation's int16 range. The accumulator as TFLM chooses it (CONV_2D's 16x8
//! kernel's rule, [`crate::ops::conv::conv_i16`]): `int32` for an int32 bias, or none with a
//! `quantized_bias_type` of `INT32` (wrapping as the x86-64 build does), else `int64`.
//!
//! Refused at load, beyond the int8 kernel's geometry checks: a filter of another type than
//! int8, an output of another type than int16, a bias of another type than int32 or int64
//! (TFLM's checks); an input or output zero point outside int16's range or a filter zero point
//! outside int8's (TFLM's `(input_val + input_offset)` would leave `int`'s range); a shift the
//! 64-bit form cannot apply (over 14). No scratch; no overlap of the output with the input (no
//! access contract).

use synaptic_tflite::TensorType;

use super::{geometry, FullyConnectedOptions, OP};
use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::math::{activation_range, zero_point_in, QuantParams};
use crate::model::TInfo;
use crate::ops::conv::conv_i16::{check_tables, scaled, wide_bias, wide_shifts};
use crate::ops::tables::{Constants, Table};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// A prepared 16x8 FULLY_CONNECTED.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullyConnectedI16Params {
    /// Rows of the input (all dimensions but the last, of the output).
    pub(crate) batches: usize,
    /// Input elements per row (the filter's last dimension).
    pub(crate) accum_depth: usize,
    /// Output elements per row.
    pub(crate) output_depth: usize,
    /// `-input_zero_point` (within int16's range).
    pub(crate) input_offset: i32,
    /// `-filter_zero_point` (per-tensor only; within int8's range).
    pub(crate) filter_offset: i32,
    /// `output_zero_point` (within int16's range).
    pub(crate) output_offset: i32,
    /// One multiplier per output channel (`true`) or one for all.
    pub(crate) per_channel: bool,
    /// An `int32` accumulator and bias (else `int64`).
    pub(crate) acc32: bool,
    /// The fused activation's clamp.
    pub(crate) act: [i32; 2],
}

/// Prepares a 16x8 FULLY_CONNECTED (input `x` int16).
pub(crate) fn prepare<'m>(
    cx: &Prep<'_, 'm>,
    x: &TInfo<'_>,
    w: &TInfo<'_>,
    out: &TInfo<'_>,
) -> Result<Prepared<'m>, LoadError> {
    cx.activation_of(x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(out, Operand::Output, TensorType::Int16)?;
    if w.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(w, Operand::Filter)?;
    let o = cx.op().fully_connected_options()?;
    let fo = FullyConnectedOptions {
        activation: cx.activation(o.fused_activation)?,
        weights_format: o.weights_format,
    };
    cx.quantized(&[x, out])?;
    let (batches, accum_depth, output_depth) =
        geometry(&fo, x.shape(), w.shape(), out.shape()).map_err(|e| cx.err(e))?;
    let rows = w.shape().first().copied().unwrap_or(0);
    // Per-channel scales read (and checked) only if there are several: one is `w.q.scale`.
    let scales = if w.scale_count > 1 {
        Some(cx.filter_scales(1, w, rows)?)
    } else {
        cx.quantized(&[w])?;
        None
    };
    let zp = |q, min, max| zero_point_in(OP, q, min, max).map_err(|e| cx.err(e));
    let (lo, hi) = (i32::from(i16::MIN), i32::from(i16::MAX));
    let input_offset = -zp(x.q, lo, hi)?;
    let output_offset = zp(out.q, lo, hi)?;
    let filter_offset = -zp(QuantParams::new(1.0, w.q.zero_point), -128, 127)?;
    let act = activation_range(OP, fo.activation, out.q, lo, hi).map_err(|e| cx.err(e))?;
    let acc32 = wide_bias(cx, 2, output_depth, true)?;
    let table = match scales {
        Some(filter) => Table::PerChannel {
            name: cx.name(),
            channels: output_depth,
            input: x.q.scale,
            filter,
            output: out.q.scale,
        },
        None => Table::PerTensor {
            name: cx.name(),
            input: x.q.scale,
            filter: w.q.scale,
            output: out.q.scale,
        },
    };
    if !acc32 {
        wide_shifts(cx, &table)?;
    }
    let p = FullyConnectedI16Params {
        batches,
        accum_depth,
        output_depth,
        input_offset,
        filter_offset,
        output_offset,
        per_channel: scales.is_some(),
        acc32,
        act: [act.0, act.1],
    };
    Prepared::with::<FullyConnectedI16>(cx, p, table, Constants::None)
}

/// The FULLY_CONNECTED kernel, int16 activations (16x8).
pub struct FullyConnectedI16;

impl Kernel for FullyConnectedI16 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    type Params = FullyConnectedI16Params;

    fn run(p: &FullyConnectedI16Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        let (w, bias) = (io.bytes(1), io.bytes(2));
        let x = io.i16(0)?;
        let (ad, od) = (p.accum_depth, p.output_depth);
        let channels = if p.per_channel { od } else { 1 };
        check_tables(OP, m, s, &[], channels, p.acc32)?;
        if !bias.is_empty() {
            let width = if p.acc32 { 4 } else { 8 };
            KernelError::check_len(OP, Operand::Bias, od * width, bias.len())?;
        }
        KernelError::check_len(OP, Operand::Input(0), p.batches * ad, x.len())?;
        // The filter's rows: at least the output depth's.
        if w.len() < od * ad {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let out = io.out_i16()?;
        KernelError::check_len(OP, Operand::Output, p.batches * od, out.len())?;
        let filter_offset = if p.per_channel { 0 } else { p.filter_offset };
        for b in 0..p.batches {
            let xr = &x[b * ad..b * ad + ad];
            for (c, o) in out[b * od..b * od + od].iter_mut().enumerate() {
                let mut acc = 0i64;
                for (&xv, &wv) in xr.iter().zip(&w[c * ad..c * ad + ad]) {
                    let wv = i32::from(wv as i8) + filter_offset;
                    let prod = wv * (i32::from(xv) + p.input_offset);
                    acc = acc.wrapping_add(i64::from(prod));
                }
                let t = if p.per_channel { c } else { 0 };
                let v = scaled(acc, bias, c, p.acc32, m[t], s[t]).wrapping_add(p.output_offset);
                *o = v.clamp(p.act[0], p.act[1]) as i16;
            }
        }
        Ok(())
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(FullyConnectedI16Params {
    batches: usize,
    accum_depth: usize,
    output_depth: usize,
    input_offset: i32,
    filter_offset: i32,
    output_offset: i32,
    per_channel: bool,
    acc32: bool,
    act: [i32; 2],
});
