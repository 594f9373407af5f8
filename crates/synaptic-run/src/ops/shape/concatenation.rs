//! CONCATENATION (bool, int8, int16, int32, int64, float32: the types TFLM's
//! `concatenation.cc` runs; any input may be a constant): `reference_ops::Concatenation`.
//! TFLM requires no fused activation, equal quantizations for int8 and zero points of 0 for
//! int16 (its scales may differ: the values are moved, not rescaled, as TFLM moves them;
//! checked here). No arithmetic: one kernel moves bytes, the element size folded into the
//! inner dimension (an int64 element is two int32 words: its inner dimension doubled at load).

use synaptic_mem::DType;
use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::limits::{size, MAX_OP_ACTIVATIONS};
use crate::math::{Activation, QuantParams};
use crate::ops::common::MAX_DIMS;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::CONCATENATION];

/// A prepared CONCATENATION: made only by [`ConcatParams::new`] (sizes within
/// [`crate::limits::MAX_TENSOR_SIZE`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConcatParams {
    /// The (non-negative) axis.
    pub(crate) axis: usize,
    /// Product of the output dimensions before the axis.
    pub(crate) outer: usize,
    /// Product of the output dimensions after the axis.
    pub(crate) inner: usize,
    /// Elements of the output.
    pub(crate) output_len: usize,
}

impl ConcatParams {
    /// Prepares CONCATENATION of tensors of `input_shapes` along `axis` (may be negative).
    /// `quants` are the inputs' quantizations (empty for float): each must equal `output`'s.
    pub fn new(
        axis: i32,
        activation: Activation,
        input_shapes: &[&[usize]],
        output_shape: &[usize],
        quants: &[QuantParams],
        output: Option<QuantParams>,
    ) -> Result<Self, KernelError> {
        const OP: &str = "CONCATENATION";
        if activation != Activation::None {
            return Err(KernelError::unsupported(
                OP,
                Unsupported::FusedActivation(activation.to_tflite()),
            ));
        }
        let rank = output_shape.len() as i32;
        let given = axis;
        let axis = if axis < 0 { axis + rank } else { axis };
        if axis < 0 || axis >= rank {
            return Err(KernelError::shape(OP, ShapeFault::AxisOutOfRange(given)));
        }
        let axis = axis as usize;
        size(OP, output_shape)?;
        let mut along = 0usize;
        for s in input_shapes {
            if s.len() != output_shape.len() {
                return Err(KernelError::shape(OP, ShapeFault::RankDiffers));
            }
            for (i, (&a, &b)) in s.iter().zip(output_shape).enumerate() {
                if i != axis && a != b {
                    return Err(KernelError::shape(OP, ShapeFault::OffAxis));
                }
            }
            along = along
                .checked_add(s[axis])
                .ok_or(KernelError::shape(OP, ShapeFault::Overflow))?;
        }
        if along != output_shape[axis] {
            return Err(KernelError::shape(OP, ShapeFault::AxisSum));
        }
        if let Some(out) = output {
            if quants
                .iter()
                .any(|q| q.scale != out.scale || q.zero_point != out.zero_point)
            {
                return Err(KernelError::unsupported(
                    OP,
                    Unsupported::QuantizationDiffers,
                ));
            }
        }
        Ok(ConcatParams {
            axis,
            outer: output_shape[..axis].iter().product(),
            inner: output_shape[axis + 1..].iter().product(),
            output_len: output_shape.iter().product(),
        })
    }

    /// The (non-negative) axis.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// The same concatenation over the tensors' bytes, for elements of `bytes` bytes (the
    /// element size folded into the inner dimension), for [`concatenation`] on `u8` slices.
    pub fn with_element_bytes(&self, bytes: usize) -> Result<Self, KernelError> {
        let scale = |n: usize| {
            n.checked_mul(bytes)
                .filter(|&b| b <= crate::limits::MAX_TENSOR_SIZE)
                .ok_or(KernelError::shape("CONCATENATION", ShapeFault::Overflow))
        };
        Ok(ConcatParams {
            inner: scale(self.inner)?,
            output_len: scale(self.output_len)?,
            ..*self
        })
    }
}

/// CONCATENATION: `inputs[i]` has `axis_sizes[i]` elements along the axis.
pub fn concatenation<T: Copy>(
    p: &ConcatParams,
    inputs: &[&[T]],
    axis_sizes: &[usize],
    output: &mut [T],
) -> Result<(), KernelError> {
    concatenate("CONCATENATION", p, inputs, axis_sizes, output)
}

/// [`concatenation`] for operator `op` (CONCATENATION, PACK: its errors name it).
pub(crate) fn concatenate<T: Copy>(
    op: &'static str,
    p: &ConcatParams,
    inputs: &[&[T]],
    axis_sizes: &[usize],
    output: &mut [T],
) -> Result<(), KernelError> {
    KernelError::check_len(op, Operand::Output, p.output_len, output.len())?;
    KernelError::check_len(op, Operand::AxisSizes, inputs.len(), axis_sizes.len())?;
    let mut along = 0usize;
    for (k, (x, &n)) in inputs.iter().zip(axis_sizes).enumerate() {
        let expected = p.outer.checked_mul(n).and_then(|v| v.checked_mul(p.inner));
        let input = Operand::Input(k as u8);
        KernelError::check_len(op, input, expected.unwrap_or(usize::MAX), x.len())?;
        along = along.saturating_add(n);
    }
    // The inputs fill the output exactly: none of its bytes is left as the arena held it (an
    // input shorter than at load, or one left out, is refused, not skipped).
    let filled = p
        .outer
        .checked_mul(along)
        .and_then(|v| v.checked_mul(p.inner));
    if filled != Some(p.output_len) {
        return Err(KernelError::shape(op, ShapeFault::AxisSum));
    }
    let mut off = 0;
    for o in 0..p.outer {
        for (x, &n) in inputs.iter().zip(axis_sizes) {
            let len = n * p.inner;
            output[off..off + len].copy_from_slice(&x[o * len..(o + 1) * len]);
            off += len;
        }
    }
    Ok(())
}

/// Prepares CONCATENATION.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, MAX_OP_ACTIVATIONS)?;
    let out = cx.output()?;
    let (axis, a) = cx.op().concatenation_options()?;
    let n = cx.n_inputs();
    let mut shapes = [[1usize; MAX_DIMS]; MAX_OP_ACTIVATIONS];
    let mut ranks = [0usize; MAX_OP_ACTIVATIONS];
    let mut quants = [QuantParams::new(0.0, 0); MAX_OP_ACTIVATIONS];
    for k in 0..n {
        let t = cx.input(k)?;
        if t.ty != out.ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(k as u8),
                expected: TensorTypes::OutputType,
            }));
        }
        // A constant input is read in place (the audio front end's zero padding).
        if !t.data.is_empty() {
            cx.constant(&t, Operand::Input(k as u8))?;
        }
        shapes[k] = t.dims;
        ranks[k] = t.rank;
        quants[k] = t.q;
    }
    let mut refs: [&[usize]; MAX_OP_ACTIVATIONS] = [&[]; MAX_OP_ACTIVATIONS];
    for k in 0..n {
        refs[k] = &shapes[k][..ranks[k]];
    }
    let quantized = out.ty == TensorType::Int8;
    if !matches!(
        out.ty,
        TensorType::Bool
            | TensorType::Int8
            | TensorType::Int16
            | TensorType::Int32
            | TensorType::Int64
            | TensorType::Float32
    ) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::Concatenable,
        }));
    }
    if out.ty == TensorType::Int16 {
        // TFLM: every int16 input's zero point and the output's 0.
        if let Some(z) = quants[..n]
            .iter()
            .map(|q| q.zero_point)
            .chain([out.q.zero_point])
            .find(|&z| z != 0)
        {
            return Err(cx.unsupported(Unsupported::ZeroPoint(z)));
        }
    }
    let p = ConcatParams::new(
        axis,
        cx.activation(a)?,
        &refs[..n],
        out.shape(),
        if quantized { &quants[..n] } else { &[] },
        quantized.then_some(out.q),
    )
    .map_err(|e| cx.err(e))?;
    // An int64 element: two int32 words (the arena's int64 tensors are int32 of twice the
    // elements, as the kernel sees their type).
    let p = if out.ty == TensorType::Int64 {
        p.with_element_bytes(2).map_err(|e| cx.err(e))?
    } else {
        p
    };
    Prepared::of::<Concatenation>(cx, p)
}

/// The CONCATENATION kernel (any element type, moved as bytes).
pub struct Concatenation;

impl Kernel for Concatenation {
    const NAME: &'static str = "CONCATENATION";
    type Params = ConcatParams;

    fn run(p: &ConcatParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let size = match io.out_dtype() {
            DType::Int8 | DType::UInt8 => 1,
            DType::Int16 => 2,
            _ => 4,
        };
        let bytes = p.with_element_bytes(size)?;
        let mut refs: [&[u8]; MAX_OP_ACTIVATIONS] = [&[]; MAX_OP_ACTIVATIONS];
        let mut sizes = [0usize; MAX_OP_ACTIVATIONS];
        let n = io.n_inputs().min(MAX_OP_ACTIVATIONS);
        // Every input's axis length from its byte count: outer × n × inner bytes (a length
        // that is not a multiple is refused by the kernel's check).
        let row = bytes.outer.saturating_mul(bytes.inner).max(1);
        for k in 0..n {
            refs[k] = io.bytes(k);
            sizes[k] = refs[k].len() / row;
        }
        concatenation(&bytes, &refs[..n], &sizes[..n], io.out_bytes())
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ConcatParams {
    axis: usize,
    outer: usize,
    inner: usize,
    output_len: usize,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The inputs must fill the output (issue 43, class 4): an input shorter than at load
    /// (its axis length read from its bytes) or one left out is refused, and no byte of the
    /// output is written, never a tail left as the arena held it.
    #[test]
    fn inputs_that_do_not_fill_the_output_are_refused() {
        let p = ConcatParams::new(0, Activation::None, &[&[2], &[3]], &[5], &[], None).unwrap();
        let (a, b) = ([7u8, 9], [1u8, 2, 3]);
        let mut out = [0xEEu8; 5];
        concatenation(&p, &[&a, &b], &[2, 3], &mut out).unwrap();
        assert_eq!(out, [7, 9, 1, 2, 3]);
        for (inputs, sizes) in [
            (&[&a[..], &[]][..], &[2, 0][..]),
            (&[&a[..], &b[..2]][..], &[2, 2][..]),
            (&[&a[..]][..], &[2][..]),
        ] {
            let mut out = [0xEEu8; 5];
            let e = concatenation(&p, inputs, sizes, &mut out).unwrap_err();
            assert_eq!(e, KernelError::shape("CONCATENATION", ShapeFault::AxisSum));
            assert_eq!(out, [0xEE; 5], "nothing written");
        }
    }
}
