//! CONV_2D and DEPTHWISE_CONV_2D with a packed INT4 filter, int8 activations: TFLM's
//! `micro/kernels/conv.cc` and `depthwise_conv.cc` `kTfLiteInt4` filter cases, which unpack
//! the whole filter (`tensor_utils::UnpackDenseInt4IntoInt8`: two weights a byte, low nibble
//! first, each sign-extended) into a scratch buffer at every Eval, then run
//! `reference_integer_ops::ConvPerChannel` / `DepthwiseConvPerChannel` on it.
//!
//! Here the same: the filter's weights are unpacked into the operator's scratch
//! (`unpack_int4`), then the int8 kernels ([`conv2d`],
//! [`depthwise_conv2d`]) run on them with their parameters and per-channel table as the int8
//! operators prepare them (no folded constants, no tap pairs, no overlap of the output with
//! the input: no access contract).
//!
//! Refused at load, as TFLM refuses them: int16 activations with an INT4 filter (the 16x8
//! kernels take only int8 filters: TFLM's "Hybrid models are not supported"), and whatever
//! the int8 operators refuse (shapes, options, zero points, filter scales, bias).

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use super::conv_2d::{conv2d, conv2d_scratch_bytes, ConvParams, ParamsOf};
use super::depthwise_conv_2d::{depthwise_conv2d, depthwise_conv2d_scratch_bytes};
use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::common::unpack_int4;
use crate::ops::operands::differs;
use crate::ops::tables::{Constants, Table};
use crate::ops::{Kernel, Kind, Operands, Prep, Prepared};

/// Prepares an operator of the family with an INT4 filter (input 1), its parameters by
/// `params_of`: the int8 operators' checks (int8 activations, a constant filter, per-channel
/// scales, an int32 bias), the filter INT4.
pub(crate) fn prepare_i4<'m, K: Kernel<Params = ConvParams> + Kind>(
    cx: &Prep<'_, 'm>,
    params_of: ParamsOf,
) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, w, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    cx.int8_activation(x, Operand::Input(0))?;
    cx.int8_activation(out, Operand::Output)?;
    if w.ty != TensorType::Int4 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(w, Operand::Filter)?;
    cx.quantized(&[x, out])?;
    let p = params_of(cx, [x.shape(), w.shape(), out.shape()], x.q, out.q)?;
    let channels = p.output_channels();
    let filter = cx.filter_scales(1, w, channels)?;
    cx.bias(2, channels)?;
    let table = Table::PerChannel {
        name: cx.name(),
        channels,
        input: x.q.scale,
        filter,
        output: out.q.scale,
    };
    Prepared::with::<K>(cx, p, table, Constants::None)
}

/// The filter's weights (`filter_shape`'s product; the constructor bounded it).
fn filter_len(p: &ConvParams) -> usize {
    p.filter_shape.iter().product()
}

/// The filter unpacked into `scratch` from the packed bytes `packed`.
fn unpacked<'s>(
    op: &'static str,
    p: &ConvParams,
    packed: &[u8],
    scratch: &mut Scratch<'s>,
) -> Result<&'s [i8], KernelError> {
    let w = scratch.take::<i8>(filter_len(p)).ok_or(differs(op))?;
    unpack_int4(packed, w).ok_or(differs(op))?;
    Ok(w)
}

/// The CONV_2D kernel with a packed INT4 filter, int8 activations.
pub struct Conv2dI4;

impl Kernel for Conv2dI4 {
    const NAME: &'static str = "CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvParams;
    const SCRATCH: bool = true;

    /// The unpacked filter, then the int8 kernel's scratch.
    fn scratch_bytes(p: &ConvParams) -> usize {
        Scratch::span::<i8>(filter_len(p)).saturating_add(conv2d_scratch_bytes(p))
    }

    fn run(p: &ConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let w = unpacked(Self::NAME, p, io.bytes(1), &mut io.scratch)?;
        let (m, s) = (io.multipliers(), io.shifts());
        io.i8(0)?;
        io.out_i8()?;
        let (x, bias) = (io.bytes(0), io.bias(2));
        let out = io.out.bytes_mut();
        conv2d(p, m, s, x, w, bias.as_ref(), out, &mut io.scratch)
    }
}

/// The DEPTHWISE_CONV_2D kernel with a packed INT4 filter, int8 activations.
pub struct DepthwiseConv2dI4;

impl Kernel for DepthwiseConv2dI4 {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvParams;
    const SCRATCH: bool = true;

    /// The unpacked filter, then the int8 kernel's scratch.
    fn scratch_bytes(p: &ConvParams) -> usize {
        Scratch::span::<i8>(filter_len(p)).saturating_add(depthwise_conv2d_scratch_bytes(p))
    }

    fn run(p: &ConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let w = unpacked(Self::NAME, p, io.bytes(1), &mut io.scratch)?;
        let (m, s) = (io.multipliers(), io.shifts());
        io.i8(0)?;
        io.out_i8()?;
        let (x, bias) = (io.bytes(0), io.bias(2));
        let out = io.out.bytes_mut();
        depthwise_conv2d(p, m, s, x, w, bias.as_ref(), out, &mut io.scratch)
    }
}
