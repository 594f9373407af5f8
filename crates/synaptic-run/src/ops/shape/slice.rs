//! SLICE (bool, int8, int16, int32, float32, as TFLM; moved as bytes): `reference_ops::Slice`, the box `begin[d] ..
//! begin[d] + size[d]` of each dimension (`size[d]` of -1: to the dimension's end), padded to
//! 5 dimensions as TFLM pads them. `begin` and `size` must be constants (int32 or int64);
//! TFLM reads them at each invocation and indexes outside the input with a box that does not
//! fit, which is refused here at load. The copy is STRIDED_SLICE's (every stride 1).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::{element_bytes, int_values};
use crate::ops::shape::strided_slice::{copy_box, StridedSliceParams, DIMS};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SLICE];

/// The values of constant `begin` or `size` (input `k`): int32 or int64, one per input
/// dimension (`None`: another type or count).
fn indices(cx: &Prep<'_, '_>, k: usize, rank: usize) -> Result<Option<[i64; DIMS]>, LoadError> {
    let t = cx.input(k)?;
    cx.constant(&t, Operand::Input(k as u8))?;
    let data = t.data.get(..t.bytes).unwrap_or(&[]);
    let ints = matches!(t.ty, TensorType::Int32 | TensorType::Int64);
    if !ints || t.rank != 1 || data.len() != rank * element_bytes(t.ty) {
        return Ok(None);
    }
    let mut v = [0i64; DIMS];
    for (o, x) in v
        .iter_mut()
        .zip(int_values(t.ty, data).into_iter().flatten())
    {
        *o = x;
    }
    Ok(Some(v))
}

/// Prepares SLICE.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    if !matches!(
        x.ty,
        TensorType::Bool
            | TensorType::Int8
            | TensorType::Int16
            | TensorType::Int32
            | TensorType::Float32
    ) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected: TensorTypes::OutputType,
        }));
    }
    if x.ty != out.ty {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let rank = x.rank;
    if rank > DIMS {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let refused = || cx.unsupported(Unsupported::Slice);
    let begin = indices(cx, 1, rank)?.ok_or_else(refused)?;
    let size = indices(cx, 2, rank)?.ok_or_else(refused)?;
    let pad = DIMS - rank;
    let mut p = StridedSliceParams {
        dims: [1; DIMS],
        start: [0; DIMS],
        count: [1; DIMS],
        stride: [1; DIMS],
        elem: element_bytes(x.ty),
    };
    let mut out_elems = 1usize;
    for d in 0..rank {
        let dim = x.shape()[d];
        let start = begin[d];
        // `stop = size == -1 ? dim : start + size`, inside the dimension.
        let stop = if size[d] == -1 {
            dim as i64
        } else {
            start.saturating_add(size[d])
        };
        if start < 0 || stop < start || stop > dim as i64 {
            return Err(refused());
        }
        let n = (stop - start) as usize;
        if out.shape().get(d) != Some(&n) {
            return Err(cx.shape(ShapeFault::SizeDiffers));
        }
        p.dims[pad + d] = dim;
        p.start[pad + d] = start as usize;
        p.count[pad + d] = n;
        out_elems *= n;
    }
    if p.elem == 0 || out.rank != rank || out_elems.checked_mul(p.elem) != Some(out.bytes) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<Slice>(cx, p)
}

/// The SLICE kernel (any element type).
pub struct Slice;

impl Kernel for Slice {
    const NAME: &'static str = "SLICE";
    const MAX_INPUTS: usize = 3;
    type Params = StridedSliceParams;

    fn run(p: &StridedSliceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        copy_box(Self::NAME, p, x, io.out_bytes())
    }
}
