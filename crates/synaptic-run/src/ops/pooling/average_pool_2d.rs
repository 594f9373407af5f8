//! AVERAGE_POOL_2D, int8: `reference_integer_ops::AveragePool` (the window clipped to the
//! input, the average rounded half away from zero); parameters and window shared with
//! MAX_POOL_2D ([`crate::ops::pooling::pool_2d`]); and float32 ([`AveragePool2dF32`]).

use synaptic_tflite::code;

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, ShapeFault};
use crate::ops::common::offset4;
use crate::ops::in_place::{check_window, for_each_pixel, ordered, put32, x32, InPlace};
use crate::ops::pooling::pool_2d::{average, contract, contract_f32, PoolF32Params, PoolParams};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::AVERAGE_POOL_2D];

/// AVERAGE_POOL_2D, int8. A window entirely in the padding is an error (TFLM returns an
/// error for it too).
pub fn average_pool(p: &PoolParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    p.check(OP, input, output)?;
    let depth = p.input_shape[3];
    let mut empty = false;
    p.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let mut acc: i32 = 0;
            let mut count: i32 = 0;
            for y in ys.clone() {
                for x in xs.clone() {
                    acc += i32::from(input[offset4(&p.input_shape, b, y, x, c)]);
                    count += 1;
                }
            }
            if count == 0 {
                empty = true;
                return;
            }
            output[offset4(&p.output_shape, b, oy, ox, c)] = average(acc, count, p);
        }
    });
    if empty {
        return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
    }
    Ok(())
}

/// AVERAGE_POOL_2D ([`average_pool`]) with input and output in `buf`.
pub fn average_pool_in_place(
    p: &PoolParams,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    check_window(OP, || contract(p), buf, &at)?;
    let depth = p.output_shape[3];
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.window_at(oy, ox);
        let count = (ys.len() * xs.len()) as i32;
        if count == 0 && depth > 0 {
            return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
        }
        for c in ordered(depth, at.direction) {
            let mut acc: i32 = 0;
            for y in ys.clone() {
                let row = at.input + offset4(&p.input_shape, b, y, 0, c);
                for x in xs.clone() {
                    acc += i32::from(buf[row + x * depth] as i8);
                }
            }
            buf[at.output + first + c] = average(acc, count, p) as u8;
        }
        Ok(())
    })
}

/// AVERAGE_POOL_2D, float32, as `reference_ops::AveragePool` (float): per output, the sum of
/// the clipped window in row-major order from `0`, divided by the count (a float), clamped.
pub fn average_pool_f32(
    p: &PoolF32Params,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    p.check(OP, input, output)?;
    let q = &p.pool;
    let depth = q.input_shape[3];
    let mut empty = false;
    q.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let mut total = 0.0f32;
            let mut count = 0.0f32;
            for y in ys.clone() {
                for x in xs.clone() {
                    total += input[offset4(&q.input_shape, b, y, x, c)];
                    count += 1.0;
                }
            }
            if count == 0.0 {
                empty = true;
                return;
            }
            output[offset4(&q.output_shape, b, oy, ox, c)] = p.range.apply(total / count);
        }
    });
    if empty {
        return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
    }
    Ok(())
}

/// AVERAGE_POOL_2D, float32 ([`average_pool_f32`]) with input and output in `buf`
/// (little-endian floats), each output in the plain kernel's order of operations.
pub fn average_pool_f32_in_place(
    p: &PoolF32Params,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    let q = &p.pool;
    check_window(OP, || contract_f32(q), buf, &at)?;
    let depth = q.output_shape[3];
    for_each_pixel(&q.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = q.window_at(oy, ox);
        if (ys.is_empty() || xs.is_empty()) && depth > 0 {
            return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
        }
        for c in ordered(depth, at.direction) {
            let (mut total, mut count) = (0.0f32, 0.0f32);
            for y in ys.clone() {
                for x in xs.clone() {
                    total += x32(buf, at.input, offset4(&q.input_shape, b, y, x, c));
                    count += 1.0;
                }
            }
            put32(buf, at.output, first + c, p.range.apply(total / count));
        }
        Ok(())
    })
}

/// Prepares AVERAGE_POOL_2D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if crate::ops::pooling::pool_2d::is_float(cx) {
        return Prepared::of::<AveragePool2dF32>(
            cx,
            crate::ops::pooling::pool_2d::prepare_f32(cx)?,
        );
    }
    Prepared::of::<AveragePool2d>(cx, crate::ops::pooling::pool_2d::prepare(cx)?)
}

/// The AVERAGE_POOL_2D kernel, int8.
pub struct AveragePool2d;

impl Kernel for AveragePool2d {
    const NAME: &'static str = "AVERAGE_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolParams;

    #[inline]
    fn run(p: &PoolParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        average_pool(p, x, io.out_i8()?)
    }

    fn contract(p: &PoolParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &PoolParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        average_pool_in_place(p, io.buf, io.at)?;
        Ok(p.output_shape.iter().product())
    }
}

/// The AVERAGE_POOL_2D kernel, float32.
pub struct AveragePool2dF32;

impl Kernel for AveragePool2dF32 {
    const NAME: &'static str = "AVERAGE_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolF32Params;

    #[inline]
    fn run(p: &PoolF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        average_pool_f32(p, x, io.out_f32()?)
    }

    fn contract(p: &PoolF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.pool))
    }

    fn run_in_place(
        p: &PoolF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        average_pool_f32_in_place(p, io.buf, io.at)?;
        Ok(4 * p.pool.output_shape.iter().product::<usize>())
    }
}
