//! GATHER (int8, float32 data; int32 indices, as TFLM's `micro/kernels/gather.cc`): slices of
//! the input along `axis` picked by the indices, `batch_dims` leading dimensions shared by
//! both. With `row = batch·outer + o`, output block `row·coords + c` is input block
//! `row·axis_size + index[batch·coords + c]`, each block the `inner` elements after the axis.
//! An index outside `0 .. axis_size` (TFLM only asserts it) fails the operator
//! ([`Unsupported::IndexOutOfRange`]), a constant one at load. The output has the shape TFLM
//! computes (the input's dimensions before the axis, the indices' after the batch ones, the
//! input's after the axis), or the model is refused.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::model::TInfo;
use crate::ops::common::MAX_DIMS;
use crate::ops::prep::element_bytes;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::GATHER];

const OP: &str = "GATHER";

/// A prepared GATHER: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GatherParams {
    /// The batch dimensions' size.
    pub(crate) batches: usize,
    /// The dimensions between the batch ones and the axis.
    pub(crate) outer: usize,
    /// The axis' length.
    pub(crate) axis_size: usize,
    /// Bytes of the elements after the axis (a block).
    pub(crate) inner_bytes: usize,
    /// Indices per batch.
    pub(crate) coords: usize,
}

/// The GATHER kernel (bytes).
pub struct Gather;

impl Kernel for Gather {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 2;
    type Params = GatherParams;

    fn run(p: &GatherParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, idx) = (io.bytes(0), io.bytes(1));
        let out = io.out_bytes();
        let (blocks, w) = (p.batches * p.outer, p.inner_bytes);
        KernelError::check_len(OP, Operand::Input(0), blocks * p.axis_size * w, x.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.batches * p.coords * 4, idx.len())?;
        KernelError::check_len(OP, Operand::Output, blocks * p.coords * w, out.len())?;
        let index = |i: usize| {
            i32::from_le_bytes([idx[4 * i], idx[4 * i + 1], idx[4 * i + 2], idx[4 * i + 3]])
        };
        // Every index first: nothing written when one is out of its axis.
        if (0..p.batches * p.coords)
            .any(|i| !(0..p.axis_size as i64).contains(&i64::from(index(i))))
        {
            return Err(KernelError::unsupported(OP, Unsupported::IndexOutOfRange));
        }
        for b in 0..p.batches {
            for o in 0..p.outer {
                let row = b * p.outer + o;
                for c in 0..p.coords {
                    let k = index(b * p.coords + c) as usize;
                    let src = (row * p.axis_size + k) * w;
                    let dst = (row * p.coords + c) * w;
                    out[dst..dst + w].copy_from_slice(&x[src..src + w]);
                }
            }
        }
        Ok(())
    }
}

/// The operands of a gathering (GATHER, GATHER_ND): int8 or float32 data (an activation or a
/// whole constant), int32 indices (the same), an output activation of the data's type.
pub(crate) fn gathering<'m>(
    cx: &Prep<'_, 'm>,
) -> Result<(TInfo<'m>, TInfo<'m>, TInfo<'m>, TensorType), LoadError> {
    cx.inputs(2, 2)?;
    let (x, idx, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let ty = match x.ty {
        TensorType::Float32 if crate::ops::float::BUILT => TensorType::Float32,
        _ => TensorType::Int8,
    };
    cx.type_of(&x, Operand::Input(0), ty, TensorTypes::Int8OrFloat32)?;
    if !x.data.is_empty() {
        cx.constant(&x, Operand::Input(0))?;
    }
    cx.type_of(
        &idx,
        Operand::Input(1),
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    if !idx.data.is_empty() {
        cx.constant(&idx, Operand::Input(1))?;
    }
    cx.activation_of(&out, Operand::Output, ty)?;
    Ok((x, idx, out, ty))
}

/// Prepares GATHER (`GatherPrepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, idx, out, ty) = gathering(cx)?;
    let (axis, batch_dims) = cx.op().gather_options()?;
    let (xs, is) = (x.shape(), idx.shape());
    let (rank, irank) = (xs.len() as i32, is.len() as i32);
    let axis = if axis < 0 { axis + rank } else { axis };
    let bd = if batch_dims < 0 {
        batch_dims + irank
    } else {
        batch_dims
    };
    if !(0 <= axis && axis < rank) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(axis)));
    }
    if !(0 <= bd && bd <= axis && bd < rank && bd <= irank) {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(batch_dims)));
    }
    let (axis, bd) = (axis as usize, bd as usize);
    if xs[..bd] != is[..bd] {
        return Err(cx.shape(ShapeFault::Batches));
    }
    // The output's shape as TFLM computes it.
    let mut want = [0usize; 2 * MAX_DIMS];
    let mut n = 0;
    for &d in xs[..axis].iter().chain(&is[bd..]).chain(&xs[axis + 1..]) {
        match want.get_mut(n) {
            Some(w) => *w = d,
            None => return Err(cx.unsupported(Unsupported::Rank)),
        }
        n += 1;
    }
    if want[..n] != *out.shape() {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = GatherParams {
        batches: xs[..bd].iter().product(),
        outer: xs[bd..axis].iter().product(),
        axis_size: xs[axis],
        inner_bytes: xs[axis + 1..].iter().product::<usize>() * element_bytes(ty),
        coords: is[bd..].iter().product(),
    };
    // Constant indices: checked once, here.
    if idx.data.chunks_exact(4).take(idx.bytes / 4).any(|w| {
        !(0..p.axis_size as i64).contains(&i64::from(i32::from_le_bytes([w[0], w[1], w[2], w[3]])))
    }) {
        return Err(cx.unsupported(Unsupported::IndexOutOfRange));
    }
    Prepared::of::<Gather>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(GatherParams {
    batches: usize,
    outer: usize,
    axis_size: usize,
    inner_bytes: usize,
    coords: usize,
});
