//! L2_POOL_2D, float32 (TFLM has no quantized L2 pool): `micro/kernels/l2_pool_2d.cc` and
//! `reference_ops::L2Pool`. Per output, over the window clipped to the input (padding cells
//! not counted), `sum += x * x` in row-major order from `0`, then
//! `std::sqrt(sum / count)` (the count a float; the correctly rounded square root,
//! [`sqrtf`]) and the fused activation's clamp, in single precision: the wheel's bits.
//!
//! The geometry (options, padding, the output's shape checked against TFLM's computed one)
//! is the other poolings' ([`crate::ops::pooling::pool_2d`]); the input and output must be
//! float32 of rank 4 (TFLM's `TF_LITE_ENSURE`s). A window entirely in the padding cannot
//! occur for a prepared shape; were it met, it is an error (TFLM would compute `sqrt(0/0)`).
//! The output may overlap the input as the other poolings' (a window contract).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault};
use crate::ops::common::offset4;
use crate::ops::float::sqrtf;
use crate::ops::in_place::{check_window, for_each_pixel, ordered, put32, x32, InPlace};
use crate::ops::pooling::pool_2d::{contract_f32, prepare_f32, PoolF32Params};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::L2_POOL_2D];

const OP: &str = "L2_POOL_2D";

/// The output of one window: `sqrt(sum / count)` clamped; `None` for an empty window.
#[inline]
fn l2(p: &PoolF32Params, sum: f32, count: i32) -> Option<f32> {
    (count > 0).then(|| p.range.apply(sqrtf(sum / count as f32)))
}

/// L2_POOL_2D, float32, as `reference_ops::L2Pool` (module docs).
pub fn l2_pool_f32(
    p: &PoolF32Params,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    p.check(OP, input, output)?;
    let q = &p.pool;
    let depth = q.input_shape[3];
    let mut empty = false;
    q.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let (mut sum, mut count) = (0.0f32, 0i32);
            for y in ys.clone() {
                for x in xs.clone() {
                    let v = input[offset4(&q.input_shape, b, y, x, c)];
                    sum += v * v;
                    count += 1;
                }
            }
            match l2(p, sum, count) {
                Some(v) => output[offset4(&q.output_shape, b, oy, ox, c)] = v,
                None => empty = true,
            }
        }
    });
    if empty {
        return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
    }
    Ok(())
}

/// L2_POOL_2D, float32 ([`l2_pool_f32`]) with input and output in `buf` (little-endian
/// floats), each output in the plain kernel's order of operations.
pub fn l2_pool_f32_in_place(
    p: &PoolF32Params,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    let q = &p.pool;
    check_window(OP, || contract_f32(q), buf, &at)?;
    let depth = q.output_shape[3];
    for_each_pixel(&q.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = q.window_at(oy, ox);
        for c in ordered(depth, at.direction) {
            let (mut sum, mut count) = (0.0f32, 0i32);
            for y in ys.clone() {
                for x in xs.clone() {
                    let v = x32(buf, at.input, offset4(&q.input_shape, b, y, x, c));
                    sum += v * v;
                    count += 1;
                }
            }
            let v = l2(p, sum, count).ok_or(KernelError::shape(OP, ShapeFault::EmptyWindow))?;
            put32(buf, at.output, first + c, v);
        }
        Ok(())
    })
}

/// Prepares L2_POOL_2D: float32 only (an int8 or other input refused as TFLM refuses it).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let x = cx.input(0)?;
    cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
    Prepared::of::<L2Pool2dF32>(cx, prepare_f32(cx)?)
}

/// The L2_POOL_2D kernel, float32.
pub struct L2Pool2dF32;

impl Kernel for L2Pool2dF32 {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 1;
    type Params = PoolF32Params;

    #[inline]
    fn run(p: &PoolF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        l2_pool_f32(p, x, io.out_f32()?)
    }

    fn contract(p: &PoolF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.pool))
    }

    fn run_in_place(
        p: &PoolF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        l2_pool_f32_in_place(p, io.buf, io.at)?;
        Ok(4 * p.pool.output_shape.iter().product::<usize>())
    }
}
