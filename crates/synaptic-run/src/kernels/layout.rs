//! Data movement: PAD, CONCATENATION, TRANSPOSE, RESHAPE and SQUEEZE (any element type).
//!
//! No arithmetic, so bit-exactness is only a matter of the element order: PAD mirrors
//! `reference_ops::Pad` (`pad.h`; the pad value is the output zero point for int8 unless the
//! model gives a constant, as in `micro/kernels/pad.cc`), CONCATENATION mirrors
//! `reference_ops::Concatenation` (TFLM requires equal quantizations and no fused activation
//! for int8, checked here), TRANSPOSE mirrors `reference_ops::Transpose` (`transpose.h`).
//! RESHAPE and SQUEEZE are copies of the bytes (or nothing, when the runtime aliases them).

use super::{size, Dims, MAX_DIMS};
use crate::error::KernelError;
use crate::math::{Activation, QuantParams};

/// RESHAPE / SQUEEZE: copies `input` to `output` (equal lengths).
pub fn copy<T: Copy>(op: &'static str, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    KernelError::check_len(op, "output", input.len(), output.len())?;
    output.copy_from_slice(input);
    Ok(())
}

fn row_major_strides(d: &Dims) -> [usize; MAX_DIMS] {
    let mut st = [0; MAX_DIMS];
    let mut acc = 1;
    for i in (0..d.rank()).rev() {
        st[i] = acc;
        acc *= d.dim(i);
    }
    st
}

/// A prepared PAD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadParams {
    input: Dims,
    output: Dims,
    before: [usize; MAX_DIMS],
}

impl PadParams {
    /// Prepares PAD: `paddings[i] = [before, after]` for every input dimension (the paddings
    /// tensor's values); the output shape must be `before + input + after` per dimension.
    pub fn new(
        input_shape: &[usize],
        paddings: &[[i32; 2]],
        output_shape: &[usize],
    ) -> Result<Self, KernelError> {
        const OP: &str = "PAD";
        let input = Dims::new(OP, input_shape)?;
        let output = Dims::new(OP, output_shape)?;
        if paddings.len() != input.rank() || output.rank() != input.rank() {
            return Err(KernelError::shape(
                OP,
                "paddings must have one row per input dimension",
            ));
        }
        let mut before = [0; MAX_DIMS];
        for (i, pad) in paddings.iter().enumerate() {
            if pad[0] < 0 || pad[1] < 0 {
                return Err(KernelError::unsupported(OP, "negative padding"));
            }
            before[i] = pad[0] as usize;
            // Checked: two paddings of up to 2^31 - 1 wrap a 32-bit `usize`.
            let padded = input
                .dim(i)
                .checked_add(pad[0] as usize)
                .and_then(|d| d.checked_add(pad[1] as usize));
            if padded != Some(output.dim(i)) {
                return Err(KernelError::shape(OP, "output is not the padded input"));
            }
        }
        Ok(PadParams {
            input,
            output,
            before,
        })
    }
}

/// PAD: `output` is `pad_value` everywhere but the copy of `input`.
pub fn pad<T: Copy>(
    p: &PadParams,
    input: &[T],
    pad_value: T,
    output: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "PAD";
    KernelError::check_len(OP, "input", p.input.flat_size(), input.len())?;
    KernelError::check_len(OP, "output", p.output.flat_size(), output.len())?;
    output.fill(pad_value);
    let rank = p.input.rank();
    if rank == 0 {
        output.copy_from_slice(input);
        return Ok(());
    }
    let out_strides = row_major_strides(&p.output);
    let row = p.input.dim(rank - 1);
    let mut idx = [0usize; MAX_DIMS];
    for chunk in input.chunks_exact(row.max(1)) {
        let mut off = 0;
        for d in 0..rank {
            off += (idx[d] + p.before[d]) * out_strides[d];
        }
        output[off..off + chunk.len()].copy_from_slice(chunk);
        // Next row: odometer over all but the last dimension.
        for d in (0..rank - 1).rev() {
            idx[d] += 1;
            if idx[d] < p.input.dim(d) {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(())
}

/// A prepared CONCATENATION: made only by [`ConcatParams::new`] (sizes within
/// [`super::MAX_TENSOR_SIZE`]).
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
            return Err(KernelError::unsupported(OP, "fused activation"));
        }
        let rank = output_shape.len() as i32;
        let axis = if axis < 0 { axis + rank } else { axis };
        if axis < 0 || axis >= rank {
            return Err(KernelError::shape(OP, "axis out of range"));
        }
        let axis = axis as usize;
        size(OP, output_shape)?;
        let mut along = 0usize;
        for s in input_shapes {
            if s.len() != output_shape.len() {
                return Err(KernelError::shape(OP, "inputs and output differ in rank"));
            }
            for (i, (&a, &b)) in s.iter().zip(output_shape).enumerate() {
                if i != axis && a != b {
                    return Err(KernelError::shape(OP, "inputs differ off the axis"));
                }
            }
            along = along
                .checked_add(s[axis])
                .ok_or(KernelError::shape(OP, "axis sizes overflow"))?;
        }
        if along != output_shape[axis] {
            return Err(KernelError::shape(
                OP,
                "output axis is not the sum of the inputs'",
            ));
        }
        if let Some(out) = output {
            if quants
                .iter()
                .any(|q| q.scale != out.scale || q.zero_point != out.zero_point)
            {
                return Err(KernelError::unsupported(
                    OP,
                    "inputs quantized differently from the output",
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
                .filter(|&b| b <= super::MAX_TENSOR_SIZE)
                .ok_or(KernelError::shape(
                    "CONCATENATION",
                    "a tensor size overflows",
                ))
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
    const OP: &str = "CONCATENATION";
    KernelError::check_len(OP, "output", p.output_len, output.len())?;
    KernelError::check_len(OP, "axis sizes", inputs.len(), axis_sizes.len())?;
    for (x, &n) in inputs.iter().zip(axis_sizes) {
        let expected = p.outer.checked_mul(n).and_then(|v| v.checked_mul(p.inner));
        KernelError::check_len(OP, "input", expected.unwrap_or(usize::MAX), x.len())?;
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

/// A prepared TRANSPOSE.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransposeParams {
    input: Dims,
    output: Dims,
    perm: [usize; MAX_DIMS],
}

impl TransposeParams {
    /// Prepares TRANSPOSE: `output.dim(i) = input.dim(perm[i])`.
    pub fn new(
        input_shape: &[usize],
        perm: &[i32],
        output_shape: &[usize],
    ) -> Result<Self, KernelError> {
        const OP: &str = "TRANSPOSE";
        let input = Dims::new(OP, input_shape)?;
        let output = Dims::new(OP, output_shape)?;
        if perm.len() != input.rank() || output.rank() != input.rank() {
            return Err(KernelError::shape(
                OP,
                "permutation length differs from the rank",
            ));
        }
        let mut p = [0usize; MAX_DIMS];
        let mut seen = [false; MAX_DIMS];
        for (i, &a) in perm.iter().enumerate() {
            let a = if a < 0 { a + input.rank() as i32 } else { a };
            if a < 0 || a as usize >= input.rank() || seen[a as usize] {
                return Err(KernelError::shape(OP, "not a permutation"));
            }
            seen[a as usize] = true;
            p[i] = a as usize;
            if output.dim(i) != input.dim(a as usize) {
                return Err(KernelError::shape(OP, "output is not the permuted input"));
            }
        }
        Ok(TransposeParams {
            input,
            output,
            perm: p,
        })
    }
}

/// TRANSPOSE.
pub fn transpose<T: Copy>(
    p: &TransposeParams,
    input: &[T],
    output: &mut [T],
) -> Result<(), KernelError> {
    const OP: &str = "TRANSPOSE";
    KernelError::check_len(OP, "input", p.input.flat_size(), input.len())?;
    KernelError::check_len(OP, "output", p.output.flat_size(), output.len())?;
    let rank = p.output.rank();
    let in_strides = row_major_strides(&p.input);
    // Input stride of each output dimension.
    let mut st = [0usize; MAX_DIMS];
    for i in 0..rank {
        st[i] = in_strides[p.perm[i]];
    }
    let mut idx = [0usize; MAX_DIMS];
    let mut off = 0usize;
    for o in output.iter_mut() {
        *o = input[off];
        for d in (0..rank).rev() {
            idx[d] += 1;
            off += st[d];
            if idx[d] < p.output.dim(d) {
                break;
            }
            off -= st[d] * idx[d];
            idx[d] = 0;
        }
    }
    Ok(())
}

// The program's word codec of each prepared struct (`crate::program::codec`).
crate::program::codec::words!(PadParams {
    input: Dims,
    output: Dims,
    before: [usize; MAX_DIMS],
});

crate::program::codec::words!(ConcatParams {
    axis: usize,
    outer: usize,
    inner: usize,
    output_len: usize,
});

crate::program::codec::words!(TransposeParams {
    input: Dims,
    output: Dims,
    perm: [usize; MAX_DIMS],
});
