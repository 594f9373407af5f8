//! FULLY_CONNECTED with a packed INT4 filter, int8 activations: TFLM's
//! `micro/kernels/fully_connected.cc` `kTfLiteInt4` filter case, which unpacks the filter
//! (`tensor_utils::UnpackDenseInt4IntoInt8`, two weights a byte, low nibble first, each
//! sign-extended) into a scratch buffer at every Eval, then runs
//! `reference_integer_ops::FullyConnected` on it.
//!
//! Here the same: the `output_depth × accum_depth` weights the kernel reads are unpacked into
//! the operator's scratch ([`crate::ops::common::unpack_int4`]), then the int8 kernel's
//! [`super::fully_connected`] runs on them, with its parameters and multiplier as the int8
//! kernel prepares them (per-tensor, the filter zero point applied). No folded constants.
//!
//! Refused at load, as TFLM refuses them: more than one filter scale (TFLM's
//! `CalculateOpDataFullyConnected` ensures per-channel filters are not INT4); int16
//! activations with an INT4 filter (the 16x8 kernel refuses any filter but int8); and the
//! int8 kernel's geometry, zero point and bias checks.

use super::{fully_connected, FullyConnectedOptions, FullyConnectedParams, OP};
use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::model::TInfo;
use crate::ops::common::unpack_int4;
use crate::ops::operands::differs;
use crate::ops::tables::{Constants, Table};
use crate::ops::{Kernel, Operands, Prep, Prepared};
use synaptic_mem::Scratch;

/// Prepares a FULLY_CONNECTED with an INT4 filter `w` (int8 input `x` and output `out`,
/// already checked).
pub(crate) fn prepare<'m>(
    cx: &Prep<'_, 'm>,
    x: &TInfo<'_>,
    w: &TInfo<'_>,
    out: &TInfo<'_>,
) -> Result<Prepared<'m>, LoadError> {
    cx.constant(w, Operand::Filter)?;
    if w.scale_count > 1 {
        // TFLM: "Currently only Int8/Int16 are supported for per channel quantization".
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    let o = cx.op().fully_connected_options()?;
    let fo = FullyConnectedOptions {
        activation: cx.activation(o.fused_activation)?,
        weights_format: o.weights_format,
    };
    cx.quantized(&[x, w, out])?;
    let p = FullyConnectedParams::with_scale_count(
        &fo,
        x.shape(),
        w.shape(),
        out.shape(),
        x.q,
        1,
        w.q.zero_point,
        out.q,
    )
    .map_err(|e| cx.err(e))?;
    cx.bias(2, p.output_depth)?;
    let table = Table::PerTensor {
        name: cx.name(),
        input: x.q.scale,
        filter: w.q.scale,
        output: out.q.scale,
    };
    Prepared::with::<FullyConnectedI4>(cx, p, table, Constants::None)
}

/// The FULLY_CONNECTED kernel with a packed INT4 filter, int8 activations.
pub struct FullyConnectedI4;

impl Kernel for FullyConnectedI4 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    type Params = FullyConnectedParams;
    const SCRATCH: bool = true;

    /// The unpacked weights the kernel reads: `output_depth × accum_depth` bytes.
    fn scratch_bytes(p: &FullyConnectedParams) -> usize {
        Scratch::span::<i8>(p.output_depth.saturating_mul(p.accum_depth))
    }

    fn run(p: &FullyConnectedParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        // The constructor bounded the product (at most the filter's size).
        let n = p.output_depth * p.accum_depth;
        let w = io.scratch.take::<i8>(n).ok_or(differs(OP))?;
        unpack_int4(io.bytes(1), w).ok_or(differs(OP))?;
        let (m, s) = (io.multipliers(), io.shifts());
        let x = io.i8(0)?;
        let bias = io.bias(2);
        fully_connected(p, m, s, x, &*w, bias.as_ref(), io.out_bytes())
    }
}
