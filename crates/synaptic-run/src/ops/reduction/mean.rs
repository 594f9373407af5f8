//! MEAN, int8 (and int16), over any set of axes.
//!
//! Mirrors `reference_ops::QuantizedMeanOrSum` (`kernels/internal/reference/reduce.h`), which
//! TFLM's `EvalIntegerMean` calls for int8: the multiplier `QuantizeMultiplier(input_scale /
//! output_scale)` absorbs `1 / n` as an integer division after a left shift of
//! `min(floor(log2 n), 32, 31 + shift)` bits; the sum (int32, wrapping) less `zero_point * n`
//! is requantized with `MultiplyByQuantizedMultiplier`. Axes may be negative and repeated, as
//! in TFLM's `ResolveAxis`. Each output sums its own inputs, so no scratch accumulator is
//! needed (integer sums do not depend on order).

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{multiply_by_quantized_multiplier, requantization_multiplier, QuantParams};
use crate::ops::common::{Dims, QInt, MAX_DIMS};
use crate::ops::prep::small_i32s;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MEAN];

const OP: &str = "MEAN";

/// A prepared quantized MEAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeanParams {
    input: Dims,
    reduced: [bool; MAX_DIMS],
    elements_in_axis: usize,
    output_elements: usize,
    input_zero_point: i32,
    output_zero_point: i32,
    multiplier: i32,
    shift: i32,
}

impl MeanParams {
    /// Prepares MEAN of `input_shape` over `axes` (the axis tensor's values); `output_shape`
    /// must have the elements of the kept dimensions (with or without `keep_dims`).
    pub fn new(
        input_shape: &[usize],
        axes: &[i32],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        let dims = Dims::new(OP, input_shape)?;
        let rank = dims.rank() as i32;
        let mut reduced = [false; MAX_DIMS];
        for &given in axes {
            let a = if given < 0 { given + rank } else { given };
            if a < 0 || a >= rank {
                return Err(KernelError::shape(OP, ShapeFault::AxisOutOfRange(given)));
            }
            reduced[a as usize] = true;
        }
        let mut elements_in_axis = 1usize;
        let mut output_elements = 1usize;
        for (i, &d) in dims.as_slice().iter().enumerate() {
            if reduced[i] {
                elements_in_axis *= d;
            } else {
                output_elements *= d;
            }
        }
        if output_shape.iter().product::<usize>() != output_elements {
            return Err(KernelError::shape(OP, ShapeFault::KeptDimensions));
        }
        let (mut multiplier, mut shift) =
            requantization_multiplier(OP, f64::from(input.scale) / f64::from(output.scale))?;
        if elements_in_axis > 0 {
            let n = elements_in_axis as u64;
            let mut s = 63 - n.leading_zeros() as i32;
            s = s.min(32).min(31 + shift);
            multiplier = ((i64::from(multiplier) << s) / n as i64) as i32;
            shift -= s;
        }
        Ok(MeanParams {
            input: dims,
            reduced,
            elements_in_axis,
            output_elements,
            input_zero_point: input.zero_point,
            output_zero_point: output.zero_point,
            multiplier,
            shift,
        })
    }
}

/// MEAN, int8 or int16 (`T`), output of the same type.
pub fn mean<T: QInt>(p: &MeanParams, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    KernelError::check_len(OP, Operand::Input(0), p.input.flat_size(), input.len())?;
    KernelError::check_len(OP, Operand::Output, p.output_elements, output.len())?;
    if p.elements_in_axis == 0 || p.input.flat_size() == 0 {
        output.iter_mut().for_each(|o| *o = T::from_i32(0));
        return Ok(());
    }
    let dims = p.input.as_slice();
    let rank = dims.len();
    let mut stride = [0usize; MAX_DIMS];
    let mut acc = 1;
    for i in (0..rank).rev() {
        stride[i] = acc;
        acc *= dims[i];
    }
    // Kept dimensions drive the output odometer, reduced ones the inner one.
    let mut kept_idx = [0usize; MAX_DIMS];
    let mut base = 0usize;
    let n = p.elements_in_axis as i32;
    for o in output.iter_mut() {
        let mut sum: i32 = 0;
        let mut red_idx = [0usize; MAX_DIMS];
        let mut off = base;
        for _ in 0..p.elements_in_axis {
            sum = sum.wrapping_add(input[off].to_i32());
            // Odometer over the reduced dimensions (wraps to the start after the last).
            for d in (0..rank).rev() {
                if !p.reduced[d] {
                    continue;
                }
                red_idx[d] += 1;
                off += stride[d];
                if red_idx[d] < dims[d] {
                    break;
                }
                off -= stride[d] * dims[d];
                red_idx[d] = 0;
            }
        }
        let shifted = sum.wrapping_sub(p.input_zero_point.wrapping_mul(n));
        let v = multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift)
            .wrapping_add(p.output_zero_point);
        *o = T::from_i32(v.clamp(T::MIN, T::MAX));
        // Next output cell.
        for d in (0..rank).rev() {
            if p.reduced[d] {
                continue;
            }
            kept_idx[d] += 1;
            base += stride[d];
            if kept_idx[d] < dims[d] {
                break;
            }
            base -= stride[d] * kept_idx[d];
            kept_idx[d] = 0;
        }
    }
    Ok(())
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(MeanParams {
    input: Dims,
    reduced: [bool; MAX_DIMS],
    elements_in_axis: usize,
    output_elements: usize,
    input_zero_point: i32,
    output_zero_point: i32,
    multiplier: i32,
    shift: i32,
});

/// Prepares MEAN.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axes, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    cx.constant(&axes, Operand::Axes)?;
    if axes.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Axes,
            expected: TensorTypes::Int32,
        }));
    }
    cx.quantized(&[&x, &out])?;
    let (ax, n) = small_i32s::<MAX_DIMS>(&axes.data[..axes.bytes])
        .ok_or(cx.unsupported(Unsupported::TooManyValues(Operand::Axes)))?;
    let p = MeanParams::new(x.shape(), &ax[..n], out.shape(), x.q, out.q).map_err(|e| cx.err(e))?;
    Prepared::of::<Mean>(cx, p)
}

/// The MEAN kernel, int8.
pub struct Mean;

impl Kernel for Mean {
    const NAME: &'static str = "MEAN";
    const MAX_INPUTS: usize = 2;
    type Params = MeanParams;

    #[inline]
    fn run(p: &MeanParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        mean(p, x, io.out_i8()?)
    }
}
