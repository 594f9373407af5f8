//! TRANSPOSE (int8, int16, float32: the types TFLM's `transpose.cc` runs):
//! `reference_ops::Transpose` (`transpose.h`). No arithmetic: int8 by its own kernel, int16
//! and float32 by one of 2- and 4-byte elements (the type from the output's); the
//! permutation a constant, as TFLM requires.

use synaptic_mem::DType;
use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::{Dims, MAX_DIMS};
use crate::ops::prep::small_i32s;
use crate::ops::shape::pad::row_major_strides;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::TRANSPOSE];

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
            return Err(KernelError::shape(OP, ShapeFault::PermutationLength));
        }
        let mut p = [0usize; MAX_DIMS];
        let mut seen = [false; MAX_DIMS];
        for (i, &a) in perm.iter().enumerate() {
            let a = if a < 0 { a + input.rank() as i32 } else { a };
            if a < 0 || a as usize >= input.rank() || seen[a as usize] {
                return Err(KernelError::shape(OP, ShapeFault::NotPermutation));
            }
            seen[a as usize] = true;
            p[i] = a as usize;
            if output.dim(i) != input.dim(a as usize) {
                return Err(KernelError::shape(OP, ShapeFault::NotPermuted));
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
    KernelError::check_len(OP, Operand::Input(0), p.input.flat_size(), input.len())?;
    KernelError::check_len(OP, Operand::Output, p.output.flat_size(), output.len())?;
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

/// Prepares TRANSPOSE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, perm, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    // int8, int16, float32 (float32 where this build has the float kernels), output of the
    // input's type.
    let ty = match x.ty {
        TensorType::Int8 | TensorType::Int16 => x.ty,
        TensorType::Float32 if crate::ops::float::BUILT => x.ty,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(0),
                expected: TensorTypes::Int8Int16OrFloat32,
            }))
        }
    };
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    cx.constant(&perm, Operand::Permutation)?;
    if perm.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Permutation,
            expected: TensorTypes::Int32,
        }));
    }
    let (pm, n) = small_i32s::<MAX_DIMS>(&perm.data[..perm.bytes])
        .ok_or(cx.unsupported(Unsupported::TooManyValues(Operand::Permutation)))?;
    let p = TransposeParams::new(x.shape(), &pm[..n], out.shape()).map_err(|e| cx.err(e))?;
    if ty == TensorType::Int8 {
        Prepared::of::<Transpose>(cx, p)
    } else {
        Prepared::of::<TransposeWide>(cx, p)
    }
}

/// The TRANSPOSE kernel, int8.
pub struct Transpose;

impl Kernel for Transpose {
    const NAME: &'static str = "TRANSPOSE";
    const MAX_INPUTS: usize = 2;
    type Params = TransposeParams;

    #[inline]
    fn run(p: &TransposeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        transpose(p, x, io.out_i8()?)
    }
}

/// The TRANSPOSE kernel, int16 and float32 (the element type the output's).
pub struct TransposeWide;

impl Kernel for TransposeWide {
    const NAME: &'static str = "TRANSPOSE";
    const MAX_INPUTS: usize = 2;
    type Params = TransposeParams;

    fn run(p: &TransposeParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        if io.out_dtype() == DType::Int16 {
            let x = io.i16(0)?;
            transpose(p, x, io.out_i16()?)
        } else {
            let x = io.f32(0)?;
            transpose(p, x, io.out_f32()?)
        }
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(TransposeParams {
    input: Dims,
    output: Dims,
    perm: [usize; MAX_DIMS],
});
