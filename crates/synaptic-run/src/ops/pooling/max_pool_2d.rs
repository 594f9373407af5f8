//! MAX_POOL_2D, int8: `reference_integer_ops::MaxPool` (the window clipped to the input);
//! parameters and window shared with AVERAGE_POOL_2D ([`crate::ops::pooling::pool_2d`]); and float32
//! ([`MaxPool2dF32`]); int16 ([`MaxPool2dI16`], the int8 geometry and checks, the int16 clamp).

use synaptic_tflite::code;

use crate::contract::Contract;
use crate::error::{KernelError, LoadError};
use crate::ops::common::offset4;
use crate::ops::in_place::{check_window, for_each_pixel, ordered, put32, x32, InPlace};
use crate::ops::pooling::pool_2d::{clamp_max, contract, contract_f32, PoolF32Params, PoolParams};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::MAX_POOL_2D];

/// MAX_POOL_2D, int8.
pub fn max_pool(p: &PoolParams, input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    p.check("MAX_POOL_2D", input, output)?;
    let depth = p.input_shape[3];
    p.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let mut max = i8::MIN;
            for y in ys.clone() {
                for x in xs.clone() {
                    max = max.max(input[offset4(&p.input_shape, b, y, x, c)]);
                }
            }
            output[offset4(&p.output_shape, b, oy, ox, c)] = clamp_max(max, p);
        }
    });
    Ok(())
}

/// MAX_POOL_2D ([`max_pool`]) with input and output in `buf`.
pub fn max_pool_in_place(p: &PoolParams, buf: &mut [u8], at: InPlace) -> Result<(), KernelError> {
    check_window("MAX_POOL_2D", || contract(p), buf, &at)?;
    let depth = p.output_shape[3];
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = p.window_at(oy, ox);
        for c in ordered(depth, at.direction) {
            let mut max = i8::MIN;
            for y in ys.clone() {
                let row = at.input + offset4(&p.input_shape, b, y, 0, c);
                for x in xs.clone() {
                    max = max.max(buf[row + x * depth] as i8);
                }
            }
            buf[at.output + first + c] = clamp_max(max, p) as u8;
        }
        Ok(())
    })
}

/// MAX_POOL_2D, float32, as `reference_ops::MaxPool` (float): per output, from `f32::MIN`,
/// `max = std::max(max, x)` (`max < x ? x : max`: a NaN input is skipped) over the clipped
/// window, clamped.
pub fn max_pool_f32(
    p: &PoolF32Params,
    input: &[f32],
    output: &mut [f32],
) -> Result<(), KernelError> {
    p.check("MAX_POOL_2D", input, output)?;
    let q = &p.pool;
    let depth = q.input_shape[3];
    q.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let mut max = f32::MIN;
            for y in ys.clone() {
                for x in xs.clone() {
                    let v = input[offset4(&q.input_shape, b, y, x, c)];
                    if max < v {
                        max = v;
                    }
                }
            }
            output[offset4(&q.output_shape, b, oy, ox, c)] = p.range.apply(max);
        }
    });
    Ok(())
}

/// MAX_POOL_2D, float32 ([`max_pool_f32`]) with input and output in `buf` (little-endian
/// floats), each output in the plain kernel's order of comparisons.
pub fn max_pool_f32_in_place(
    p: &PoolF32Params,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "MAX_POOL_2D";
    let q = &p.pool;
    check_window(OP, || contract_f32(q), buf, &at)?;
    let depth = q.output_shape[3];
    for_each_pixel(&q.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = q.window_at(oy, ox);
        for c in ordered(depth, at.direction) {
            let mut max = f32::MIN;
            for y in ys.clone() {
                for x in xs.clone() {
                    let v = x32(buf, at.input, offset4(&q.input_shape, b, y, x, c));
                    if max < v {
                        max = v;
                    }
                }
            }
            put32(buf, at.output, first + c, p.range.apply(max));
        }
        Ok(())
    })
}

/// Prepares MAX_POOL_2D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if crate::ops::pooling::pool_2d::is_float(cx) {
        return Prepared::of::<MaxPool2dF32>(cx, crate::ops::pooling::pool_2d::prepare_f32(cx)?);
    }
    if crate::ops::pooling::pool_2d::is_i16(cx) {
        return Prepared::of::<MaxPool2dI16>(cx, crate::ops::pooling::pool_2d::prepare_i16(cx)?);
    }
    Prepared::of::<MaxPool2d>(cx, crate::ops::pooling::pool_2d::prepare(cx)?)
}

/// The MAX_POOL_2D kernel, int8.
pub struct MaxPool2d;

impl Kernel for MaxPool2d {
    const NAME: &'static str = "MAX_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolParams;

    #[inline]
    fn run(p: &PoolParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i8(0)?;
        max_pool(p, x, io.out_i8()?)
    }

    fn contract(p: &PoolParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &PoolParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        max_pool_in_place(p, io.buf, io.at)?;
        Ok(p.output_shape.iter().product())
    }
}

/// The MAX_POOL_2D kernel, float32.
pub struct MaxPool2dF32;

impl Kernel for MaxPool2dF32 {
    const NAME: &'static str = "MAX_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolF32Params;

    #[inline]
    fn run(p: &PoolF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        max_pool_f32(p, x, io.out_f32()?)
    }

    fn contract(p: &PoolF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.pool))
    }

    fn run_in_place(
        p: &PoolF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        max_pool_f32_in_place(p, io.buf, io.at)?;
        Ok(4 * p.pool.output_shape.iter().product::<usize>())
    }
}

/// MAX_POOL_2D, int16 (`reference_integer_ops::MaxPool` on `int16_t`): per output, the
/// maximum of the clipped window from `int16` min, clamped to the activation's range.
pub fn max_pool_i16(p: &PoolParams, input: &[i16], output: &mut [i16]) -> Result<(), KernelError> {
    p.check_i16("MAX_POOL_2D", input, output)?;
    let depth = p.input_shape[3];
    p.for_each_window(|b, ys, xs, oy, ox| {
        for c in 0..depth {
            let mut max = i16::MIN;
            for y in ys.clone() {
                for x in xs.clone() {
                    max = max.max(input[offset4(&p.input_shape, b, y, x, c)]);
                }
            }
            output[offset4(&p.output_shape, b, oy, ox, c)] =
                i32::from(max).clamp(p.act_min, p.act_max) as i16;
        }
    });
    Ok(())
}

/// The MAX_POOL_2D kernel, int16 (no in-place run: its output has its own place).
pub struct MaxPool2dI16;

impl Kernel for MaxPool2dI16 {
    const NAME: &'static str = "MAX_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolParams;

    fn run(p: &PoolParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        max_pool_i16(p, x, io.out_i16()?)
    }
}
