//! ADD and MUL, int8, with NumPy-style broadcasting up to 6 dimensions.
//!
//! ADD mirrors `reference_integer_ops::AddFunc` prepared by `CalculateOpDataAdd`
//! (`micro/kernels/add_common.cc`): both inputs are shifted left by 20 bits, scaled by
//! `input_scale / (2 * max_input_scale)` (multipliers smaller than one), summed, and scaled by
//! `2 * max_input_scale / (2^20 * output_scale)`, all with the `SmallerThanOneExp` multiply.
//! MUL mirrors `reference_integer_ops::MulElementwise` / `BroadcastMul6DSlow` prepared by
//! `CalculateOpDataMul`: one multiplier `input1_scale * input2_scale / output_scale`.
//! Broadcasting gives the same element pairs as TFLM's `BroadcastBinaryOpSimple`.

use super::{Dims, Int8, MAX_DIMS};
use crate::error::KernelError;
use crate::math::{
    activation_range_i8, int8_zero_point, multiply_by_quantized_multiplier,
    multiply_by_quantized_multiplier_smaller_than_one_exp,
    quantize_multiplier_smaller_than_one_exp, requantization_multiplier, Activation, QuantParams,
};

/// The element pairing of a (possibly broadcast) binary operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Broadcast {
    /// Output dimensions, left-padded with 1 to [`MAX_DIMS`].
    out: [usize; MAX_DIMS],
    /// Element strides of input 1 per output dimension (0 where it is broadcast).
    stride1: [usize; MAX_DIMS],
    /// Element strides of input 2 per output dimension (0 where it is broadcast).
    stride2: [usize; MAX_DIMS],
    /// Elements of input 1, input 2, output.
    sizes: [usize; 3],
    /// Whether the shapes are equal (a plain element-wise loop).
    same: bool,
}

fn padded(d: &Dims) -> [usize; MAX_DIMS] {
    let mut out = [1; MAX_DIMS];
    let s = d.as_slice();
    out[MAX_DIMS - s.len()..].copy_from_slice(s);
    out
}

fn strides(dims: &[usize; MAX_DIMS], out: &[usize; MAX_DIMS]) -> [usize; MAX_DIMS] {
    let mut st = [0; MAX_DIMS];
    let mut acc = 1;
    for i in (0..MAX_DIMS).rev() {
        st[i] = if dims[i] == 1 && out[i] != 1 { 0 } else { acc };
        acc *= dims[i];
    }
    st
}

impl Broadcast {
    /// The pairing for inputs of shapes `a` and `b` into `out` (checked against NumPy rules).
    pub fn new(
        op: &'static str,
        a: &[usize],
        b: &[usize],
        out: &[usize],
    ) -> Result<Self, KernelError> {
        let (da, db, dout) = (Dims::new(op, a)?, Dims::new(op, b)?, Dims::new(op, out)?);
        let (pa, pb, po) = (padded(&da), padded(&db), padded(&dout));
        for i in 0..MAX_DIMS {
            let want = if pa[i] == 1 {
                pb[i]
            } else if pb[i] == 1 || pb[i] == pa[i] {
                pa[i]
            } else {
                return Err(KernelError::shape(op, "input shapes do not broadcast"));
            };
            if want != po[i] {
                return Err(KernelError::shape(
                    op,
                    "output shape is not the broadcast shape",
                ));
            }
        }
        Ok(Broadcast {
            out: po,
            stride1: strides(&pa, &po),
            stride2: strides(&pb, &po),
            sizes: [da.flat_size(), db.flat_size(), dout.flat_size()],
            same: pa == pb,
        })
    }

    /// Elements of input 1, input 2 and the output.
    pub(crate) fn sizes(&self) -> [usize; 3] {
        self.sizes
    }

    /// Whether input `which` (0 or 1) has the output's (padded) shape: its element `j` is the
    /// one output element `j` reads.
    pub(crate) fn full(&self, which: usize) -> bool {
        let st = if which == 0 {
            &self.stride1
        } else {
            &self.stride2
        };
        strides(&self.out, &self.out) == *st
    }

    /// The element of input `which` (0 or 1) that output element `j` reads (the pairing of
    /// [`Self::run`]'s odometer, computed directly).
    pub(crate) fn index(&self, which: usize, mut j: usize) -> usize {
        let st = if which == 0 {
            &self.stride1
        } else {
            &self.stride2
        };
        let mut i = 0;
        for d in (0..MAX_DIMS).rev() {
            let n = self.out[d].max(1);
            i += (j % n) * st[d];
            j /= n;
        }
        i
    }

    fn run<T: Copy, T2: Copy, U>(
        &self,
        op: &'static str,
        in1: &[T],
        in2: &[T2],
        output: &mut [U],
        f: impl Fn(T, T2) -> U,
    ) -> Result<(), KernelError> {
        KernelError::check_len(op, "input 1", self.sizes[0], in1.len())?;
        KernelError::check_len(op, "input 2", self.sizes[1], in2.len())?;
        KernelError::check_len(op, "output", self.sizes[2], output.len())?;
        if self.same {
            for ((o, &a), &b) in output.iter_mut().zip(in1).zip(in2) {
                *o = f(a, b);
            }
            return Ok(());
        }
        let mut idx = [0usize; MAX_DIMS];
        let (mut i1, mut i2) = (0usize, 0usize);
        for o in output.iter_mut() {
            *o = f(in1[i1], in2[i2]);
            // Odometer increment over the output dimensions, innermost last.
            for d in (0..MAX_DIMS).rev() {
                idx[d] += 1;
                i1 += self.stride1[d];
                i2 += self.stride2[d];
                if idx[d] < self.out[d] {
                    break;
                }
                i1 -= self.stride1[d] * idx[d];
                i2 -= self.stride2[d] * idx[d];
                idx[d] = 0;
            }
        }
        Ok(())
    }
}

/// A prepared int8 ADD: made only by [`AddParams::new`] (shapes broadcast and within
/// [`super::MAX_TENSOR_SIZE`], zero points in int8's range, a non-empty activation range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// 20 for int8.
    pub(crate) left_shift: i32,
    /// Input 1 multiplier and shift.
    pub(crate) input1: (i32, i32),
    /// Input 2 multiplier and shift.
    pub(crate) input2: (i32, i32),
    /// Output multiplier and shift.
    pub(crate) output: (i32, i32),
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl AddParams {
    /// Prepares an int8 ADD.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        activation: Activation,
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "ADD";
        let broadcast = Broadcast::new(OP, input1_shape, input2_shape, output_shape)?;
        let left_shift = 20;
        let twice_max_input_scale = 2.0 * f64::from(input1.scale.max(input2.scale));
        let real1 = f64::from(input1.scale) / twice_max_input_scale;
        let real2 = f64::from(input2.scale) / twice_max_input_scale;
        let real_out =
            twice_max_input_scale / (f64::from(1i32 << left_shift) * f64::from(output.scale));
        let (act_min, act_max) = activation_range_i8(OP, activation, output)?;
        Ok(AddParams {
            broadcast,
            input1_offset: -int8_zero_point(OP, input1)?,
            input2_offset: -int8_zero_point(OP, input2)?,
            output_offset: int8_zero_point(OP, output)?,
            left_shift,
            input1: quantize_multiplier_smaller_than_one_exp(OP, real1)?,
            input2: quantize_multiplier_smaller_than_one_exp(OP, real2)?,
            output: quantize_multiplier_smaller_than_one_exp(OP, real_out)?,
            act_min,
            act_max,
        })
    }
}

/// ADD, int8.
pub fn add<A: Int8, B: Int8>(
    p: &AddParams,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    p.broadcast.run("ADD", in1, in2, output, |x, y| {
        add_value(p, x.value(), y.value())
    })
}

/// One ADD output from its two input values (shared with [`super::overlapped`]).
#[inline]
pub(crate) fn add_value(p: &AddParams, x: i32, y: i32) -> i8 {
    let a = (p.input1_offset + x).wrapping_mul(1 << p.left_shift);
    let b = (p.input2_offset + y).wrapping_mul(1 << p.left_shift);
    let a = multiply_by_quantized_multiplier_smaller_than_one_exp(a, p.input1.0, p.input1.1);
    let b = multiply_by_quantized_multiplier_smaller_than_one_exp(b, p.input2.0, p.input2.1);
    let sum = a.wrapping_add(b);
    let raw = multiply_by_quantized_multiplier_smaller_than_one_exp(sum, p.output.0, p.output.1)
        .wrapping_add(p.output_offset);
    raw.max(p.act_min).min(p.act_max) as i8
}

/// A prepared int8 MUL: made only by [`MulParams::new`], as [`AddParams`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MulParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// `-input1_zero_point`.
    pub(crate) input1_offset: i32,
    /// `-input2_zero_point`.
    pub(crate) input2_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// Output multiplier.
    pub(crate) multiplier: i32,
    /// Output shift.
    pub(crate) shift: i32,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl MulParams {
    /// Prepares an int8 MUL.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        activation: Activation,
        input1_shape: &[usize],
        input2_shape: &[usize],
        output_shape: &[usize],
        input1: QuantParams,
        input2: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "MUL";
        let broadcast = Broadcast::new(OP, input1_shape, input2_shape, output_shape)?;
        let (act_min, act_max) = activation_range_i8(OP, activation, output)?;
        let real = f64::from(input1.scale) * f64::from(input2.scale) / f64::from(output.scale);
        let (multiplier, shift) = requantization_multiplier(OP, real)?;
        Ok(MulParams {
            broadcast,
            input1_offset: -int8_zero_point(OP, input1)?,
            input2_offset: -int8_zero_point(OP, input2)?,
            output_offset: int8_zero_point(OP, output)?,
            multiplier,
            shift,
            act_min,
            act_max,
        })
    }
}

/// MUL, int8.
pub fn mul<A: Int8, B: Int8>(
    p: &MulParams,
    in1: &[A],
    in2: &[B],
    output: &mut [i8],
) -> Result<(), KernelError> {
    p.broadcast.run("MUL", in1, in2, output, |x, y| {
        mul_value(p, x.value(), y.value())
    })
}

// The program's word codec of each prepared struct (`crate::program::codec`).
crate::program::codec::words!(Broadcast {
    out: [usize; MAX_DIMS],
    stride1: [usize; MAX_DIMS],
    stride2: [usize; MAX_DIMS],
    sizes: [usize; 3],
    same: bool,
});

crate::program::codec::words!(AddParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    left_shift: i32,
    input1: (i32, i32),
    input2: (i32, i32),
    output: (i32, i32),
    act_min: i32,
    act_max: i32,
});

crate::program::codec::words!(MulParams {
    broadcast: Broadcast,
    input1_offset: i32,
    input2_offset: i32,
    output_offset: i32,
    multiplier: i32,
    shift: i32,
    act_min: i32,
    act_max: i32,
});

/// One MUL output from its two input values (shared with [`super::overlapped`]).
#[inline]
pub(crate) fn mul_value(p: &MulParams, x: i32, y: i32) -> i8 {
    let a = p.input1_offset + x;
    let b = p.input2_offset + y;
    let v = p
        .output_offset
        .wrapping_add(multiply_by_quantized_multiplier(
            a.wrapping_mul(b),
            p.multiplier,
            p.shift,
        ));
    v.max(p.act_min).min(p.act_max) as i8
}
