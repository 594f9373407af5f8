//! BROADCAST_TO (bool, int8, uint8, int16, int32, int64, float32, as TFLM's
//! `micro/kernels/broadcast_to.cc`; moved as bytes): `reference_ops::BroadcastTo`, each output
//! element the input element at its coordinates, a dimension of 1 (or one the input lacks, on
//! the left) repeated. The shape must be a constant int32 or int64 vector, the output's, of up
//! to 5 dimensions, each input dimension 1 or the shape's (TFLM's checks). No arithmetic:
//! bit-exactness is the element order.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::BROADCAST_TO];

const OP: &str = "BROADCAST_TO";

/// Most dimensions TFLM's kernel broadcasts.
const DIMS: usize = 5;

/// A prepared BROADCAST_TO: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BroadcastToParams {
    /// The output's shape, extended to 5 dimensions on the left.
    output: [usize; DIMS],
    /// The input element stride of each output dimension (0: broadcast).
    strides: [usize; DIMS],
    /// The input's elements.
    input_elems: usize,
    /// Bytes of an element.
    elem: usize,
}

/// The BROADCAST_TO kernel (bytes, any element type).
pub struct BroadcastTo;

impl Kernel for BroadcastTo {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = BroadcastToParams;

    fn run(p: &BroadcastToParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let w = p.elem;
        let n_out: usize = p.output.iter().product();
        KernelError::check_len(OP, Operand::Input(0), p.input_elems * w, x.len())?;
        KernelError::check_len(OP, Operand::Output, n_out * w, out.len())?;
        if w == 0 {
            return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch));
        }
        let mut c = [0usize; DIMS];
        for dst in out.chunks_exact_mut(w) {
            let src: usize = (0..DIMS).map(|d| c[d] * p.strides[d]).sum();
            let from = x
                .get(src * w..src * w + w)
                .ok_or(KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
            dst.copy_from_slice(from);
            for d in (0..DIMS).rev() {
                c[d] += 1;
                if c[d] < p.output[d] {
                    break;
                }
                c[d] = 0;
            }
        }
        Ok(())
    }
}

/// Prepares BROADCAST_TO (`BroadcastToPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, shape, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ok = match x.ty {
        TensorType::Bool
        | TensorType::Int8
        | TensorType::UInt8
        | TensorType::Int16
        | TensorType::Int32
        | TensorType::Int64 => true,
        TensorType::Float32 => crate::ops::float::BUILT,
        _ => false,
    };
    if !ok {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::OutputType,
        }));
    }
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if out.ty != x.ty {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::FirstInputType,
        }));
    }
    cx.constant(&shape, Operand::Input(1))?;
    if !matches!(shape.ty, TensorType::Int32 | TensorType::Int64) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(1),
            expected: TensorTypes::Int32OrInt64,
        }));
    }
    let (xs, os) = (x.shape(), out.shape());
    if shape.rank != 1 || shape.shape()[0] != os.len() {
        return Err(cx.shape(ShapeFault::BroadcastShape));
    }
    if os.len() > DIMS || xs.len() > DIMS {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    if xs.len() > os.len() {
        return Err(cx.shape(ShapeFault::NotBroadcastable));
    }
    // The shape's values are the output's dimensions.
    let values = int_values(shape.ty, &shape.data[..shape.bytes])
        .into_iter()
        .flatten();
    if !values.eq(os.iter().map(|&d| d as i64)) {
        return Err(cx.shape(ShapeFault::BroadcastShape));
    }
    let lead = os.len() - xs.len();
    if xs.iter().zip(&os[lead..]).any(|(&i, &o)| i != 1 && i != o) {
        return Err(cx.shape(ShapeFault::NotBroadcastable));
    }
    // Both shapes extended to 5 dimensions on the left.
    let (mut output, mut input) = ([1usize; DIMS], [1usize; DIMS]);
    output[DIMS - os.len()..].copy_from_slice(os);
    input[DIMS - xs.len()..].copy_from_slice(xs);
    let mut strides = [0usize; DIMS];
    let mut acc = 1;
    for d in (0..DIMS).rev() {
        strides[d] = if input[d] == 1 { 0 } else { acc };
        acc *= input[d];
    }
    let p = BroadcastToParams {
        output,
        strides,
        input_elems: acc,
        elem: element_bytes(x.ty),
    };
    Prepared::of::<BroadcastTo>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(BroadcastToParams {
    output: [usize; DIMS],
    strides: [usize; DIMS],
    input_elems: usize,
    elem: usize,
});
