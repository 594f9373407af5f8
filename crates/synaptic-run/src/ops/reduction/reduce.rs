//! MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL: TFLM's `micro/kernels/reduce.cc` and
//! `reduce_common.cc` over `reference_ops`' `reduce.h`, over any set of axes (negative and
//! repeated ones resolved as `ResolveAxis` does; a constant axis tensor here, which TFLM reads
//! at every invocation).
//!
//! - MEAN and SUM, int8 and int16 (`QuantizedMeanOrSum`): the int32 sum of each output's
//!   inputs (wrapping, as `AddTensorValuesWithExpectedOverflow`) less `zero_point · n`,
//!   requantized by `MultiplyByQuantizedMultiplier` with `QuantizeMultiplier(input_scale /
//!   output_scale)`; MEAN's multiplier absorbs `1 / n` as an integer division after a left
//!   shift of `min(floor(log2 n), 32, 31 + shift)` bits. Clamped to the type.
//! - float32 (`ReduceGeneric`, `Mean`): each output's inputs in increasing input order (the
//!   order TFLM's `Reduce` visits them, so the same float sums), from `0` for SUM and MEAN
//!   (then `sum / n`), from the type's lowest (highest) value for REDUCE_MAX (REDUCE_MIN), a
//!   later input kept when `in > current` (`in < current`): a NaN never replaces a number.
//! - REDUCE_MAX and REDUCE_MIN int8: the same on the stored values; TFLM requires the input's
//!   and the output's quantization equal (refused otherwise, at load).
//! - REDUCE_ALL, bool: `true`, then `in && current` (a byte other than 0 is true).
//!
//! An input with a zero dimension leaves each output at its starting value (0 for the
//! quantized MEAN and SUM and the float32 MEAN). Each output reads only its own inputs, so no
//! scratch accumulator is needed.

use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{multiply_by_quantized_multiplier, requantization_multiplier, QuantParams};
use crate::ops::common::{Dims, QInt, MAX_DIMS};
use crate::ops::prep::small_i32s;
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[
    code::MEAN,
    code::SUM,
    code::REDUCE_MAX,
    code::REDUCE_MIN,
    code::REDUCE_ALL,
];

const OP: &str = "MEAN";

/// What a reduction reads: the input's shape, the reduced axes and the counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reduction {
    input: Dims,
    reduced: [bool; MAX_DIMS],
    elements_in_axis: usize,
    output_elements: usize,
}

impl Reduction {
    /// `input_shape` reduced over `axes` (the axis tensor's values, negative from the end,
    /// repeats allowed); `output_shape` must have the elements of the kept dimensions (with or
    /// without `keep_dims`).
    pub fn new(
        op: &'static str,
        input_shape: &[usize],
        axes: &[i32],
        output_shape: &[usize],
    ) -> Result<Self, KernelError> {
        let input = Dims::new(op, input_shape)?;
        let rank = input.rank() as i32;
        let mut reduced = [false; MAX_DIMS];
        for &given in axes {
            let a = if given < 0 { given + rank } else { given };
            if a < 0 || a >= rank {
                return Err(KernelError::shape(op, ShapeFault::AxisOutOfRange(given)));
            }
            reduced[a as usize] = true;
        }
        let (mut elements_in_axis, mut output_elements) = (1usize, 1usize);
        for (i, &d) in input.as_slice().iter().enumerate() {
            if reduced[i] {
                elements_in_axis *= d;
            } else {
                output_elements *= d;
            }
        }
        if output_shape.iter().product::<usize>() != output_elements {
            return Err(KernelError::shape(op, ShapeFault::KeptDimensions));
        }
        Ok(Reduction {
            input,
            reduced,
            elements_in_axis,
            output_elements,
        })
    }

    /// `put(o, acc)` for each output `o` in order, `acc` folded by `step` from `init` over
    /// its inputs in increasing order; none folded when the input has no element. The
    /// lengths are checked (`op`'s error).
    #[inline]
    fn each<T: Copy, A: Copy>(
        &self,
        op: &'static str,
        input: &[T],
        n_out: usize,
        init: A,
        step: impl Fn(A, T) -> A,
        mut put: impl FnMut(usize, A),
    ) -> Result<(), KernelError> {
        KernelError::check_len(op, Operand::Input(0), self.input.flat_size(), input.len())?;
        KernelError::check_len(op, Operand::Output, self.output_elements, n_out)?;
        let dims = self.input.as_slice();
        let rank = dims.len();
        if self.input.flat_size() == 0 {
            (0..n_out).for_each(|o| put(o, init));
            return Ok(());
        }
        let mut stride = [0usize; MAX_DIMS];
        let mut acc = 1;
        for i in (0..rank).rev() {
            stride[i] = acc;
            acc *= dims[i];
        }
        // Kept dimensions drive the output odometer, reduced ones the inner one.
        let mut kept_idx = [0usize; MAX_DIMS];
        let mut base = 0usize;
        for o in 0..n_out {
            let mut a = init;
            let mut red_idx = [0usize; MAX_DIMS];
            let mut off = base;
            for _ in 0..self.elements_in_axis {
                a = step(a, input[off]);
                // Odometer over the reduced dimensions (wraps to the start after the last).
                for d in (0..rank).rev() {
                    if !self.reduced[d] {
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
            put(o, a);
            // Next output cell.
            for d in (0..rank).rev() {
                if self.reduced[d] {
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
}

/// A prepared quantized MEAN or SUM (int8, int16).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeanParams {
    r: Reduction,
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
        Self::of(OP, false, input_shape, axes, output_shape, input, output)
    }

    /// Prepares SUM (`sum`) or MEAN, as [`MeanParams::new`].
    pub fn of(
        op: &'static str,
        sum: bool,
        input_shape: &[usize],
        axes: &[i32],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        let r = Reduction::new(op, input_shape, axes, output_shape)?;
        let (mut multiplier, mut shift) =
            requantization_multiplier(op, f64::from(input.scale) / f64::from(output.scale))?;
        if !sum && r.elements_in_axis > 0 {
            let n = r.elements_in_axis as u64;
            let s = (63 - n.leading_zeros() as i32).min(32).min(31 + shift);
            multiplier = ((i64::from(multiplier) << s) / n as i64) as i32;
            shift -= s;
        }
        Ok(MeanParams {
            r,
            input_zero_point: input.zero_point,
            output_zero_point: output.zero_point,
            multiplier,
            shift,
        })
    }
}

/// MEAN or SUM (as prepared), int8 or int16 (`T`), output of the same type.
pub fn mean<T: QInt>(p: &MeanParams, input: &[T], output: &mut [T]) -> Result<(), KernelError> {
    if p.r.elements_in_axis == 0 || p.r.input.flat_size() == 0 {
        return p.r.each(
            OP,
            input,
            output.len(),
            (),
            |_, _| (),
            |o, _| output[o] = T::from_i32(0),
        );
    }
    let n = p.r.elements_in_axis as i32;
    let n_out = output.len();
    p.r.each(
        OP,
        input,
        n_out,
        0i32,
        |s, x| s.wrapping_add(x.to_i32()),
        |o, sum| {
            let shifted = sum.wrapping_sub(p.input_zero_point.wrapping_mul(n));
            let v = multiply_by_quantized_multiplier(shifted, p.multiplier, p.shift)
                .wrapping_add(p.output_zero_point);
            output[o] = T::from_i32(v.clamp(T::MIN, T::MAX));
        },
    )
}

/// Which reduction a [`ReduceParams`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Reducer {
    /// The mean (float32).
    Mean = 0,
    /// The sum (float32).
    Sum = 1,
    /// The largest value.
    Max = 2,
    /// The smallest value.
    Min = 3,
    /// Whether every value is true (bool).
    All = 4,
}

/// A prepared float32 MEAN or SUM, REDUCE_MAX or REDUCE_MIN (float32, int8), REDUCE_ALL (bool).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReduceParams {
    r: Reduction,
    reducer: u32,
}

impl ReduceParams {
    /// `reducer` of `input_shape` over `axes`, as [`Reduction::new`].
    pub fn new(
        op: &'static str,
        reducer: Reducer,
        input_shape: &[usize],
        axes: &[i32],
        output_shape: &[usize],
    ) -> Result<Self, KernelError> {
        Ok(ReduceParams {
            r: Reduction::new(op, input_shape, axes, output_shape)?,
            reducer: reducer as u32,
        })
    }
}

/// The largest (`max`) or smallest of the stored values along the axes, from `lowest`
/// (`highest`) as TFLM's `MinMaxReducerCompare`: `in` replaces `current` only when strictly
/// beyond it.
fn min_max<T: Copy + PartialOrd>(
    op: &'static str,
    p: &ReduceParams,
    input: &[T],
    output: &mut [T],
    (lowest, highest): (T, T),
) -> Result<(), KernelError> {
    let max = p.reducer == Reducer::Max as u32;
    let init = if max { lowest } else { highest };
    let n_out = output.len();
    p.r.each(
        op,
        input,
        n_out,
        init,
        |c, x| {
            if max {
                if x > c {
                    x
                } else {
                    c
                }
            } else if x < c {
                x
            } else {
                c
            }
        },
        |o, v| output[o] = v,
    )
}

/// float32 MEAN, SUM, REDUCE_MAX, REDUCE_MIN.
pub fn reduce_f32(p: &ReduceParams, input: &[f32], output: &mut [f32]) -> Result<(), KernelError> {
    const NAME: &str = "MEAN";
    if p.reducer == Reducer::Max as u32 || p.reducer == Reducer::Min as u32 {
        return min_max(NAME, p, input, output, (f32::MIN, f32::MAX));
    }
    let n_out = output.len();
    let mean = p.reducer == Reducer::Mean as u32;
    let n = p.r.elements_in_axis as f32;
    p.r.each(
        NAME,
        input,
        n_out,
        0.0f32,
        |s, x| x + s,
        |o, s| output[o] = if mean && n > 0.0 { s / n } else { s },
    )
}

/// The float32 reductions' kernel: MEAN, SUM, REDUCE_MAX, REDUCE_MIN.
pub struct ReduceF32;

impl Kernel for ReduceF32 {
    // Named by the first builtin it runs (a run-time error, `ops::operator_names`).
    const NAME: &'static str = "MEAN";
    const MAX_INPUTS: usize = 2;
    const ONLY: &'static [i32] = &[code::MEAN, code::SUM, code::REDUCE_MAX, code::REDUCE_MIN];
    type Params = ReduceParams;

    fn run(p: &ReduceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        reduce_f32(p, x, io.out_f32()?)
    }
}

/// REDUCE_MAX and REDUCE_MIN, int8.
pub struct ReduceI8;

impl Kernel for ReduceI8 {
    const NAME: &'static str = "REDUCE_MAX";
    const MAX_INPUTS: usize = 2;
    const ONLY: &'static [i32] = &[code::REDUCE_MAX, code::REDUCE_MIN];
    type Params = ReduceParams;

    fn run(p: &ReduceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        min_max(Self::NAME, p, x, io.out_i8()?, (i8::MIN, i8::MAX))
    }
}

/// REDUCE_ALL, bool.
pub struct ReduceAll;

impl Kernel for ReduceAll {
    const NAME: &'static str = "REDUCE_ALL";
    const MAX_INPUTS: usize = 2;
    const ONLY: &'static [i32] = &[code::REDUCE_ALL];
    type Params = ReduceParams;

    fn run(p: &ReduceParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let out = io.out_bytes();
        let n_out = out.len();
        p.r.each(
            Self::NAME,
            x,
            n_out,
            true,
            |c, v| v != 0 && c,
            |o, v| out[o] = u8::from(v),
        )
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(Reduction {
    input: Dims,
    reduced: [bool; MAX_DIMS],
    elements_in_axis: usize,
    output_elements: usize,
});
crate::format::codec::words!(MeanParams {
    r: Reduction,
    input_zero_point: i32,
    output_zero_point: i32,
    multiplier: i32,
    shift: i32,
});
crate::format::codec::words!(ReduceParams {
    r: Reduction,
    reducer: u32,
});

/// Prepares MEAN, SUM, REDUCE_MAX, REDUCE_MIN or REDUCE_ALL: the input (of a type the
/// builtin takes) and the output of one type, a constant int32 axis tensor.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, axes, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    let c = cx.code();
    let (reducer, expected) = match c {
        code::MEAN => (Reducer::Mean, TensorTypes::Int8Int16OrFloat32),
        code::SUM => (Reducer::Sum, TensorTypes::Int8Int16OrFloat32),
        code::REDUCE_MAX => (Reducer::Max, TensorTypes::Int8OrFloat32),
        code::REDUCE_MIN => (Reducer::Min, TensorTypes::Int8OrFloat32),
        _ => (Reducer::All, TensorTypes::Bool),
    };
    let float = crate::ops::float::BUILT;
    let ty = match (x.ty, reducer) {
        (_, Reducer::All) => TensorType::Bool,
        (TensorType::Float32, _) if float => TensorType::Float32,
        (TensorType::Int16, Reducer::Mean | Reducer::Sum) => TensorType::Int16,
        _ => TensorType::Int8,
    };
    cx.activation_of(&x, Operand::Input(0), ty).map_err(|_| {
        cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(0),
            expected,
        })
    })?;
    cx.activation_of(&out, Operand::Output, ty)?;
    cx.constant(&axes, Operand::Axes)?;
    cx.type_of(&axes, Operand::Axes, TensorType::Int32, TensorTypes::Int32)?;
    let (ax, n) = small_i32s::<MAX_DIMS>(&axes.data[..axes.bytes])
        .ok_or(cx.unsupported(Unsupported::TooManyValues(Operand::Axes)))?;
    let name = cx.name();
    match ty {
        TensorType::Int8 | TensorType::Int16 if matches!(reducer, Reducer::Mean | Reducer::Sum) => {
            cx.quantized(&[&x, &out])?;
            let sum = reducer == Reducer::Sum;
            let p = MeanParams::of(name, sum, x.shape(), &ax[..n], out.shape(), x.q, out.q)
                .map_err(|e| cx.err(e))?;
            if ty == TensorType::Int16 {
                Prepared::of::<MeanI16>(cx, p)
            } else {
                Prepared::of::<Mean>(cx, p)
            }
        }
        _ => {
            if ty == TensorType::Int8 {
                // TFLM: `TF_LITE_ENSURE_EQ` of the two scales and zero points.
                cx.quantized(&[&x, &out])?;
                if x.q != out.q {
                    return Err(cx.unsupported(Unsupported::QuantizationDiffers));
                }
            }
            let p = ReduceParams::new(name, reducer, x.shape(), &ax[..n], out.shape())
                .map_err(|e| cx.err(e))?;
            match ty {
                TensorType::Float32 => Prepared::of::<ReduceF32>(cx, p),
                TensorType::Bool => Prepared::of::<ReduceAll>(cx, p),
                _ => Prepared::of::<ReduceI8>(cx, p),
            }
        }
    }
}

/// The quantized MEAN and SUM kernel, int8.
pub struct Mean;

impl Kernel for Mean {
    const NAME: &'static str = "MEAN";
    const MAX_INPUTS: usize = 2;
    const ONLY: &'static [i32] = &[code::MEAN, code::SUM];
    type Params = MeanParams;

    #[inline]
    fn run(p: &MeanParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        mean(p, x, io.out_i8()?)
    }
}

/// The quantized MEAN and SUM kernel, int16.
pub struct MeanI16;

impl Kernel for MeanI16 {
    const NAME: &'static str = "MEAN";
    const MAX_INPUTS: usize = 2;
    const ONLY: &'static [i32] = &[code::MEAN, code::SUM];
    type Params = MeanParams;

    fn run(p: &MeanParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        mean(p, x, io.out_i16()?)
    }
}
