//! L2_NORMALIZATION (int8, float32): TFLM's `micro/kernels/l2norm.cc`, over rows of the last
//! dimension (an input of at most 4 dimensions, no fused activation: TFLM's checks).
//!
//! - float32 (`reference_ops::L2Normalization`): `s = Σ x²` in single precision in order,
//!   `n = max(sqrt(s), 1e-6)` (correctly rounded [`sqrtf`]; C++'s `std::max` keeps a NaN),
//!   each output `x / n`.
//! - int8 (`reference_integer_ops::L2Normalization`): `acc = Σ (x − zero_point)²` in `int32`,
//!   `GetInvSqrtQuantizedMultiplierExp(acc, −1)`, each output
//!   `MultiplyByQuantizedMultiplier(x − zero_point, multiplier, shift + 7)` clamped to int8: an
//!   output of scale 1/128 and zero point 0 (TFLM neither checks nor reads the output's
//!   quantization; nor does this kernel).
//!
//! The output may overlap the input (in place, forward): a row's first element reads the
//! whole row, the others their own element.

use synaptic_tflite::code;

use crate::contract::{Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::multiply_by_quantized_multiplier;
use crate::ops::elementwise::abs_rsqrt::inv_sqrt_multiplier_exp;
use crate::ops::float::{sqrtf, F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::L2_NORMALIZATION];

const OP: &str = "L2_NORMALIZATION";

/// TFLM's `epsilon` of the float kernel.
const EPSILON: f32 = 1e-6;

/// A prepared L2_NORMALIZATION.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct L2NormParams {
    /// Rows (all dimensions but the last).
    pub(crate) outer: usize,
    /// Elements per row (the last dimension).
    pub(crate) depth: usize,
    /// float32 (else int8).
    pub(crate) float: bool,
    /// The input zero point (int8).
    pub(crate) input_zero_point: i32,
}

/// An int8 row's inverse norm (multiplier, shift) from its values.
fn row_i8(p: &L2NormParams, row: impl Iterator<Item = i8>) -> (i32, i32) {
    let mut acc = 0i32;
    for x in row {
        let v = i32::from(x) - p.input_zero_point;
        acc = acc.wrapping_add(v.wrapping_mul(v));
    }
    inv_sqrt_multiplier_exp(acc)
}

/// One int8 output of a row of inverse norm `(m, s)`.
#[inline]
fn value_i8(p: &L2NormParams, (m, s): (i32, i32), x: i8) -> i8 {
    let v = i32::from(x) - p.input_zero_point;
    multiply_by_quantized_multiplier(v, m, s + 7).clamp(-128, 127) as i8
}

/// A float row's norm (at least [`EPSILON`]).
fn row_f32(row: impl Iterator<Item = f32>) -> f32 {
    let mut s = 0.0f32;
    for x in row {
        s += x * x;
    }
    let n = sqrtf(s);
    // std::max(n, epsilon): `n < epsilon ? epsilon : n`.
    if n < EPSILON {
        EPSILON
    } else {
        n
    }
}

/// The access contract (rows of `depth`, `bytes` an element).
fn contract(p: &L2NormParams) -> Contract {
    Contract::row_then_element(p.outer, p.depth, if p.float { 4 } else { 1 })
}

/// The L2_NORMALIZATION kernel, int8 and float32.
pub struct L2Norm;

impl Kernel for L2Norm {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 1;
    type Params = L2NormParams;
    const FORWARD_ONLY: bool = true;

    fn run(p: &L2NormParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (d, n) = (p.depth.max(1), p.outer * p.depth);
        if crate::ops::float::BUILT && p.float {
            let x = io.f32(0)?;
            let out = io.out_f32()?;
            KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
                let norm = row_f32(xr.iter().copied());
                for (o, &v) in or.iter_mut().zip(xr) {
                    *o = v / norm;
                }
            }
        } else {
            let x = io.i8(0)?;
            let out = io.out_i8()?;
            KernelError::check_len(OP, Operand::Input(0), n, x.len())?;
            KernelError::check_len(OP, Operand::Output, n, out.len())?;
            for (xr, or) in x.chunks_exact(d).zip(out.chunks_exact_mut(d)) {
                let inv = row_i8(p, xr.iter().copied());
                for (o, &v) in or.iter_mut().zip(xr) {
                    *o = value_i8(p, inv, v);
                }
            }
        }
        Ok(())
    }

    fn contract(p: &L2NormParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &L2NormParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let at = io.at;
        if at.direction == Direction::Backward {
            return Err(KernelError::unsupported(OP, Unsupported::BackwardExecution));
        }
        check(OP, || contract(p), io.buf, &at)?;
        let (d, n) = (p.depth.max(1), p.outer * p.depth);
        if crate::ops::float::BUILT && p.float {
            let mut norm = 1.0f32;
            drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
                let x = LeF32(&buf[at.input..]);
                if j % d == 0 {
                    norm = row_f32((j..j + d).map(|i| x.at(i)));
                }
                Ok((x.at(j) / norm).to_le_bytes())
            })?;
            Ok(4 * n)
        } else {
            let mut inv = (0, 0);
            drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
                if j % d == 0 {
                    let s = at.input + j;
                    inv = row_i8(p, buf[s..s + d].iter().map(|&b| b as i8));
                }
                Ok([value_i8(p, inv, x8(buf, at.input, j)) as u8])
            })?;
            Ok(n)
        }
    }
}

/// Prepares L2_NORMALIZATION: input and output of one type (int8 or float32) and shape, at
/// most 4 dimensions, no fused activation.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, out, float) = cx.unary_int8_or_f32()?;
    if x.rank == 0 || x.rank > 4 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    if x.shape() != out.shape() {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    // `L2NormOptions.fused_activation_function`: NONE only (TFLM's `TF_LITE_ENSURE_EQ`).
    let a = cx.op().arithmetic_activation(cx.code())?;
    if a != 0 {
        return Err(cx.unsupported(Unsupported::FusedActivation(a)));
    }
    let depth = x.shape()[x.rank - 1];
    let mut p = L2NormParams {
        outer: x.shape()[..x.rank - 1].iter().product(),
        depth,
        float,
        input_zero_point: 0,
    };
    if !float {
        cx.quantized(&[&x])?;
        p.input_zero_point = crate::math::int8_zero_point(OP, x.q).map_err(|e| cx.err(e))?;
    }
    Prepared::of::<L2Norm>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(L2NormParams {
    outer: usize,
    depth: usize,
    float: bool,
    input_zero_point: i32,
});
