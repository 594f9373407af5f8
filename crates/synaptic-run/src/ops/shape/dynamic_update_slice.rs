//! DYNAMIC_UPDATE_SLICE (float32, int8, int16, int32, as TFLM's
//! `micro/kernels/dynamic_update_slice.cc`; moved as bytes): the output is the operand (input
//! 0) with the update (input 1) written over the box starting at the start indices (input 2,
//! int32 or int64, one per dimension, read at each invocation: a constant or an activation).
//! As TFLM, each start index is clamped into `0 ..= operand − update` of its dimension, so any
//! value addresses a box inside the operand; an update the operand's size is the output
//! whole. The update has the operand's rank and no dimension larger (TFLM's checks), the
//! output the operand's shape and type.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::common::{Dims, MAX_DIMS};
use crate::ops::prep::element_bytes;
use crate::ops::shape::pad::row_major_strides;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DYNAMIC_UPDATE_SLICE];

const OP: &str = "DYNAMIC_UPDATE_SLICE";

/// A prepared DYNAMIC_UPDATE_SLICE: made only by its module's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DynamicUpdateSliceParams {
    /// The operand's (and the output's) shape.
    operand: Dims,
    /// The update's shape.
    update: Dims,
    /// Bytes of an element.
    elem: usize,
    /// Bytes of a start index (4: int32, 8: int64).
    index_bytes: usize,
}

/// The DYNAMIC_UPDATE_SLICE kernel (bytes: int8, int16, int32, float32).
pub struct DynamicUpdateSlice;

impl Kernel for DynamicUpdateSlice {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 3;
    type Params = DynamicUpdateSliceParams;

    fn run(p: &DynamicUpdateSliceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, upd, starts) = (io.bytes(0), io.bytes(1), io.bytes(2));
        let out = io.out_bytes();
        let (w, rank) = (p.elem, p.operand.rank());
        let mismatch = || KernelError::unsupported(OP, Unsupported::ProgramMismatch);
        KernelError::check_len(OP, Operand::Input(0), p.operand.flat_size() * w, x.len())?;
        KernelError::check_len(OP, Operand::Input(1), p.update.flat_size() * w, upd.len())?;
        KernelError::check_len(OP, Operand::Input(2), rank * p.index_bytes, starts.len())?;
        KernelError::check_len(OP, Operand::Output, x.len(), out.len())?;
        if w == 0 || rank == 0 || p.update.rank() != rank || !matches!(p.index_bytes, 4 | 8) {
            return Err(mismatch());
        }
        if p.update.flat_size() == p.operand.flat_size() {
            out.copy_from_slice(upd);
            return Ok(());
        }
        out.copy_from_slice(x);
        // The start of each dimension, clamped into the operand (TFLM's
        // `CalculateClampedStartIndices`).
        let mut start = [0usize; MAX_DIMS];
        for (d, s) in start.iter_mut().enumerate().take(rank) {
            let b = &starts[d * p.index_bytes..(d + 1) * p.index_bytes];
            let v = if p.index_bytes == 4 {
                i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            } else {
                i64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
            };
            let room = p
                .operand
                .dim(d)
                .checked_sub(p.update.dim(d))
                .ok_or_else(mismatch)?;
            *s = v.clamp(0, room as i64) as usize;
        }
        let out_strides = row_major_strides(&p.operand);
        let row = p.update.dim(rank - 1) * w;
        let mut idx = [0usize; MAX_DIMS];
        for chunk in upd.chunks_exact(row.max(1)) {
            let off: usize = (0..rank)
                .map(|d| (idx[d] + start[d]) * out_strides[d])
                .sum::<usize>()
                * w;
            out.get_mut(off..off + chunk.len())
                .ok_or_else(mismatch)?
                .copy_from_slice(chunk);
            // Next row: odometer over all but the last dimension.
            for d in (0..rank - 1).rev() {
                idx[d] += 1;
                if idx[d] < p.update.dim(d) {
                    break;
                }
                idx[d] = 0;
            }
        }
        Ok(())
    }
}

/// Prepares DYNAMIC_UPDATE_SLICE (its `Prepare`).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    let (x, upd, starts, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output()?);
    let ok = match x.ty {
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
    for (t, k) in [(&upd, 1u8), (&out, 0)] {
        if t.ty != x.ty {
            let operand = if k == 0 {
                Operand::Output
            } else {
                Operand::Input(k)
            };
            return Err(cx.unsupported(Unsupported::TensorType {
                operand,
                expected: TensorTypes::FirstInputType,
            }));
        }
    }
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    for (t, k) in [(&upd, 1usize), (&starts, 2)] {
        if !t.data.is_empty() {
            cx.constant(t, Operand::Input(k as u8))?;
        }
    }
    if !matches!(starts.ty, TensorType::Int32 | TensorType::Int64) {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(2),
            expected: TensorTypes::Int32OrInt64,
        }));
    }
    let (xs, us) = (x.shape(), upd.shape());
    if starts.rank != 1 || starts.shape()[0] != xs.len() || us.len() != xs.len() {
        return Err(cx.shape(ShapeFault::RankDiffers));
    }
    if xs.is_empty() {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(0),
            min: 1,
        }));
    }
    if us.iter().zip(xs).any(|(u, o)| u > o) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if out.shape() != xs {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // A start index of any value is clamped at each invocation: nothing to check here.
    let p = DynamicUpdateSliceParams {
        operand: Dims::new(OP, xs).map_err(|e| cx.err(e))?,
        update: Dims::new(OP, us).map_err(|e| cx.err(e))?,
        elem: element_bytes(x.ty),
        index_bytes: element_bytes(starts.ty),
    };
    Prepared::of::<DynamicUpdateSlice>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(DynamicUpdateSliceParams {
    operand: Dims,
    update: Dims,
    elem: usize,
    index_bytes: usize,
});
