//! PAD and PADV2 (int8, int16, int32, float32, as TFLM's `micro/kernels/pad.cc`, one kernel
//! for both): `reference_ops::Pad` (`pad.h`), the input copied into an output of the pad
//! value. The pad value is the optional third input's (`constant_values`, a scalar of the
//! input's type, read at each invocation as TFLM reads it; int8: quantized as the output, or
//! refused as TFLM refuses it), else the output zero point for int8 and 0 for the other types.
//! No arithmetic: bit-exactness is the element order. The int8 operator without
//! `constant_values` keeps its own kernel ([`Pad`]); every other one runs [`PadValue`], up to 5
//! dimensions as TFLM's kernel. The paddings must be a constant int32 `[rank, 2]` tensor, none
//! negative, and the output the padded input (TFLM's checks).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::model::TInfo;
use crate::ops::common::{Dims, MAX_DIMS};
use crate::ops::prep::{element_bytes, small_i32s};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::PAD, code::PADV2];

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

/// PAD of elements of `elem` bytes: `output` is `value` (one element's bytes) everywhere but
/// the copy of `input`.
pub fn pad_bytes(
    p: &PadParams,
    elem: usize,
    input: &[u8],
    value: &[u8],
    output: &mut [u8],
) -> Result<(), KernelError> {
    const OP: &str = "PAD";
    let (n_in, n_out) = (p.input.flat_size(), p.output.flat_size());
    let mismatch = || KernelError::unsupported(OP, Unsupported::ProgramMismatch);
    KernelError::check_len(OP, Operand::Input(0), n_in * elem, input.len())?;
    KernelError::check_len(OP, Operand::Output, n_out * elem, output.len())?;
    let value = value.get(..elem).ok_or_else(mismatch)?;
    if elem == 0 || p.input.rank() != p.output.rank() {
        return Err(mismatch());
    }
    for o in output.chunks_exact_mut(elem) {
        o.copy_from_slice(value);
    }
    let rank = p.input.rank();
    if rank == 0 {
        output.copy_from_slice(input);
        return Ok(());
    }
    let out_strides = row_major_strides(&p.output);
    let row = p.input.dim(rank - 1) * elem;
    let mut idx = [0usize; MAX_DIMS];
    for chunk in input.chunks_exact(row.max(1)) {
        let mut off = 0;
        for d in 0..rank {
            off += (idx[d] + p.before[d]) * out_strides[d];
        }
        let off = off * elem;
        output
            .get_mut(off..off + chunk.len())
            .ok_or_else(mismatch)?
            .copy_from_slice(chunk);
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

/// Prepares PAD or PADV2 (`PadPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, pads, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let with_value = cx.has(2);
    let ty = x.ty;
    if ty == TensorType::Int8 && !with_value {
        return prepare_int8(cx, &x, &pads, &out);
    }
    let ok = match ty {
        TensorType::Int8 | TensorType::Int16 | TensorType::Int32 => true,
        TensorType::Float32 => crate::ops::float::BUILT,
        _ => false,
    };
    if !ok {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::Int8Int16Int32OrFloat32,
        }));
    }
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if out.ty != ty {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Output,
            expected: TensorTypes::FirstInputType,
        }));
    }
    // TFLM's kernel pads up to 5 dimensions.
    if x.rank > 5 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let pad = paddings(cx, &x, &pads, &out)?;
    let elem = element_bytes(ty);
    let mut value = 0u32;
    if with_value {
        let v = cx.input(2)?;
        if !v.data.is_empty() {
            cx.constant(&v, Operand::Input(2))?;
        }
        if v.ty != ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(2),
                expected: TensorTypes::FirstInputType,
            }));
        }
        if v.shape().iter().product::<usize>() != 1 {
            return Err(cx.shape(ShapeFault::NotScalar));
        }
        // The value is used as stored: quantized as the output (TFLM's check).
        if ty == TensorType::Int8
            && (v.q.zero_point != out.q.zero_point || v.q.scale != out.q.scale)
        {
            return Err(cx.unsupported(Unsupported::QuantizationDiffers));
        }
    } else if ty == TensorType::Int8 {
        value = out.q.zero_point.clamp(-128, 127) as i8 as u8 as u32;
    }
    let v = PadValueParams {
        elem,
        value,
        from_input: with_value,
    };
    Prepared::of::<PadValue>(cx, (pad, v))
}

/// The paddings of PAD (input 1): a constant int32 tensor of two per dimension, checked
/// against the input and output shapes.
fn paddings(
    cx: &Prep<'_, '_>,
    x: &TInfo<'_>,
    pads: &TInfo<'_>,
    out: &TInfo<'_>,
) -> Result<PadParams, LoadError> {
    cx.constant(pads, Operand::Paddings)?;
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
    PadParams::new(x.shape(), &pp[..n / 2], out.shape()).map_err(|e| cx.err(e))
}

/// Prepares the int8 PAD without `constant_values` (its own kernel, [`Pad`]).
fn prepare_int8<'m>(
    cx: &Prep<'_, 'm>,
    x: &TInfo<'_>,
    pads: &TInfo<'_>,
    out: &TInfo<'_>,
) -> Result<Prepared<'m>, LoadError> {
    cx.int8_activation(x, Operand::Input(0))?;
    cx.int8_activation(out, Operand::Output)?;
    let p = paddings(cx, x, pads, out)?;
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

/// The pad value of a [`PadValue`] kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PadValueParams {
    /// Bytes of an element.
    elem: usize,
    /// The value's bytes, little-endian (when not read from input 2).
    value: u32,
    /// Whether the value is input 2's (`constant_values`).
    from_input: bool,
}

/// The PAD and PADV2 kernel of any element type (int8, int16, int32, float32 bytes), its pad
/// value `constant_values` or a constant.
pub struct PadValue;

impl Kernel for PadValue {
    const NAME: &'static str = "PAD";
    const MAX_INPUTS: usize = 3;
    type Params = (PadParams, PadValueParams);

    fn run(
        p: &(PadParams, PadValueParams),
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        let (pad, v) = p;
        let x = io.bytes(0);
        let stored = v.value.to_le_bytes();
        let value = if v.from_input {
            io.bytes(2)
        } else {
            &stored[..]
        };
        pad_bytes(pad, v.elem, x, value, io.out_bytes())
    }
}

crate::format::codec::words!(PadValueParams {
    elem: usize,
    value: u32,
    from_input: bool,
});
