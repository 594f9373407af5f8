//! PAD (any element type): `reference_ops::Pad` (`pad.h`); the pad value is the output zero
//! point for int8 (`micro/kernels/pad.cc`; a `constant_values` input is not supported). No
//! arithmetic: bit-exactness is the element order.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::{Dims, MAX_DIMS};
use crate::ops::prep::small_i32s;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::PAD];

/// The row-major element strides of `d`.
pub(crate) fn row_major_strides(d: &Dims) -> [usize; MAX_DIMS] {
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
            return Err(KernelError::shape(OP, ShapeFault::PaddingsRows));
        }
        let mut before = [0; MAX_DIMS];
        for (i, pad) in paddings.iter().enumerate() {
            if pad[0] < 0 || pad[1] < 0 {
                return Err(KernelError::unsupported(OP, Unsupported::NegativePadding));
            }
            before[i] = pad[0] as usize;
            // Checked: two paddings of up to 2^31 - 1 wrap a 32-bit `usize`.
            let padded = input
                .dim(i)
                .checked_add(pad[0] as usize)
                .and_then(|d| d.checked_add(pad[1] as usize));
            if padded != Some(output.dim(i)) {
                return Err(KernelError::shape(OP, ShapeFault::NotPadded));
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
    KernelError::check_len(OP, Operand::Input(0), p.input.flat_size(), input.len())?;
    KernelError::check_len(OP, Operand::Output, p.output.flat_size(), output.len())?;
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

/// Prepares PAD.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, pads, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    if cx.has(2) {
        return Err(cx.unsupported(Unsupported::ConstantValues));
    }
    cx.constant(&pads, Operand::Paddings)?;
    if pads.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Paddings,
            expected: TensorTypes::Int32,
        }));
    }
    let (raw, n) = small_i32s::<{ 2 * MAX_DIMS }>(&pads.data[..pads.bytes])
        .ok_or(cx.unsupported(Unsupported::TooManyValues(Operand::Paddings)))?;
    let mut pp = [[0i32; 2]; MAX_DIMS];
    for (i, p) in pp.iter_mut().enumerate().take(n / 2) {
        *p = [raw[2 * i], raw[2 * i + 1]];
    }
    let p = PadParams::new(x.shape(), &pp[..n / 2], out.shape()).map_err(|e| cx.err(e))?;
    // The zero point is int8's (checked by `tinfo`).
    Prepared::of::<Pad>(cx, (p, out.q.zero_point.clamp(-128, 127) as i8))
}

/// The PAD kernel, int8.
pub struct Pad;

impl Kernel for Pad {
    const NAME: &'static str = "PAD";
    const MAX_INPUTS: usize = 3;
    type Params = (PadParams, i8);

    #[inline]
    fn run(p: &(PadParams, i8), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        pad(&p.0, x, p.1, io.out_i8()?)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(PadParams {
    input: Dims,
    output: Dims,
    before: [usize; MAX_DIMS],
});
