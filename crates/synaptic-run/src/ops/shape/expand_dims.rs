//! EXPAND_DIMS (any element type): TFLM's `micro/kernels/expand_dims.cc` — the output is the
//! input with a dimension of 1 inserted at the constant int32 `axis` (negative: from the end,
//! `rank + 1 + axis`), checked at load exactly as TFLM's `VerifyTensorDim`; the data is copied
//! as bytes ([`crate::ops::shape::reshape::copy`], in place at delta 0). TFLM's `Eval` copies
//! int8, int16 and float32 only; the copy is the same for every type.

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::prep::small_i32s;
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::EXPAND_DIMS];

/// Prepares EXPAND_DIMS.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axis, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    // The axis: a constant int32 tensor of at most one dimension (its first value).
    cx.constant(&axis, Operand::Axes)?;
    if axis.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Axes,
            expected: TensorTypes::Int32,
        }));
    }
    let value = match small_i32s::<1>(
        axis.data
            .get(..4)
            .filter(|_| axis.bytes >= 4)
            .unwrap_or(&[]),
    ) {
        Some((a, 1)) if axis.rank <= 1 => a[0],
        _ => return Err(cx.shape(ShapeFault::RankDiffers)),
    };
    // TFLM sets the output's type to the input's; a model saying otherwise is refused.
    if x.ty != out.ty || x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let (xs, os) = (x.shape(), out.shape());
    let rank = xs.len() as i64;
    let a = if value < 0 {
        rank + 1 + i64::from(value)
    } else {
        i64::from(value)
    };
    if a < 0 || a > rank {
        return Err(cx.shape(ShapeFault::AxisOutOfRange(value)));
    }
    let a = a as usize;
    let dims_ok = os.len() == xs.len() + 1
        && os.iter().enumerate().all(|(i, &d)| match i.cmp(&a) {
            core::cmp::Ordering::Less => d == xs[i],
            core::cmp::Ordering::Equal => d == 1,
            core::cmp::Ordering::Greater => d == xs[i - 1],
        });
    if !dims_ok {
        return Err(cx.shape(ShapeFault::RankDiffers));
    }
    // The axis (input 1) is never read at run time: no location in the record.
    Ok(Prepared::of::<ExpandDims>(cx, ())?.unread(1))
}

crate::ops::shape::reshape::byte_copy_kernel!(
    /// The EXPAND_DIMS kernel: a copy of the bytes.
    ExpandDims,
    "EXPAND_DIMS",
    2
);
