//! AVERAGE_POOL_2D, int8: `reference_integer_ops::AveragePool` (the window clipped to the
//! input, the average rounded half away from zero); parameters and window shared with
//! MAX_POOL_2D ([`crate::ops::pooling::pool_2d`]); and float32 ([`AveragePool2dF32`]); int16
//! ([`AveragePool2dI16`]: the same arithmetic on `int16_t`, the int16 clamp).

use synaptic_tflite::code;

use crate::contract::Contract;
use core::ops::Range;

use crate::contract::Direction;
use crate::error::{KernelError, LoadError, ShapeFault};
use crate::ops::common::{offset4, word, Int8};
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
    let depth = p.output_shape[3];
    let mut sums = [0i32; CHUNK];
    for_each_pixel(&p.output_shape, Direction::Forward, |b, oy, ox, first| {
        let w = Win::new(OP, p, b, 0, oy, ox)?;
        for_each_chunk(depth, Direction::Forward, |c0, n| {
            w.sums(p, input, c0, n, &mut sums);
            for (o, &sum) in output[first + c0..][..n].iter_mut().zip(&sums) {
                *o = average(sum, w.count, p);
            }
        });
        Ok(())
    })
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
    let mut sums = [0i32; CHUNK];
    for_each_pixel(&p.output_shape, at.direction, |b, oy, ox, first| {
        let w = Win::new(OP, p, b, at.input, oy, ox)?;
        // A chunk's sums read before its outputs are written (reads earlier than the
        // element order's, writes in its order of chunks: the contract's order still).
        for_each_chunk(depth, at.direction, |c0, n| {
            w.sums(p, buf, c0, n, &mut sums);
            let out = &mut buf[at.output + first + c0..][..n];
            for (o, &sum) in out.iter_mut().zip(&sums) {
                *o = average(sum, w.count, p) as u8;
            }
        });
        Ok(())
    })
}

/// Eight channels a group of lanes ([`Win::sums`]).
const GROUP: usize = 8;

/// The channels summed in one call, four groups: one call's setup for 32 outputs (a group
/// a call cost person_detect's 3 × 3 pool 4,000 more instructions); its sums on the stack.
const CHUNK: usize = 4 * GROUP;

/// The channel chunks of `depth` channels in `dir`: `f(first, n)` for each, `n` up to
/// [`CHUNK`] (the last, or first backward, the remainder).
#[inline(always)]
fn for_each_chunk(depth: usize, dir: Direction, mut f: impl FnMut(usize, usize)) {
    for k in ordered(depth.div_ceil(CHUNK), dir) {
        let c0 = k * CHUNK;
        f(c0, CHUNK.min(depth - c0));
    }
}

/// One output pixel's window: its rows and columns clipped to the input, their count (not
/// zero), `base` the offset of its batch's first input.
struct Win {
    base: usize,
    ys: Range<usize>,
    xs: Range<usize>,
    count: i32,
}

impl Win {
    /// The window of output pixel (`b`, `oy`, `ox`), the input at `at`; an error if it is
    /// entirely in the padding (and the tensor has channels).
    #[inline(always)]
    fn new(
        op: &'static str,
        p: &PoolParams,
        b: usize,
        at: usize,
        oy: usize,
        ox: usize,
    ) -> Result<Self, KernelError> {
        let (ys, xs) = p.window_at(oy, ox);
        let count = (ys.len() * xs.len()) as i32;
        if count == 0 && p.input_shape[3] > 0 {
            return Err(KernelError::shape(op, ShapeFault::EmptyWindow));
        }
        let base = at + offset4(&p.input_shape, b, 0, 0, 0);
        Ok(Win {
            base,
            ys,
            xs,
            count,
        })
    }

    /// The window sums of channels `c0..c0 + n` (`n` ≤ [`CHUNK`]) into `sums[..n]`. A whole
    /// group of eight channels of a window of at most 257 inputs as two words a pixel,
    /// summed in 16-bit lanes (each byte biased to `0..=255`, two lanes a word: `255 · 257`
    /// fits; the bias taken off once): M4 kws_ref_model's 25 × 5 pool 94,488 → 25,534
    /// instructions (one byte a step through a 4-D index before). Otherwise one channel at
    /// a time.
    #[inline(never)]
    fn sums<X: Int8>(
        &self,
        p: &PoolParams,
        src: &[X],
        c0: usize,
        n: usize,
        sums: &mut [i32; CHUNK],
    ) {
        let [_, _, in_w, depth] = p.input_shape;
        let (ys, xs) = (self.ys.clone(), self.xs.clone());
        let mut done = 0;
        if (1..=257).contains(&self.count) {
            const LOW: u32 = 0x00FF_00FF;
            let span = (xs.len() - 1) * depth + GROUP;
            let bias = 128 * self.count;
            for (g, out) in sums[..n].chunks_exact_mut(GROUP).enumerate() {
                let (mut e0, mut o0, mut e1, mut o1) = (0u32, 0u32, 0u32, 0u32);
                let mut start = self.base + (ys.start * in_w + xs.start) * depth + c0 + g * GROUP;
                for _ in ys.clone() {
                    let Some(row) = src.get(start..start + span) else {
                        return self.each(p, src, c0, n, sums, done);
                    };
                    start += in_w * depth;
                    // The row's pixels `depth` apart, the last one `GROUP` long.
                    let mut rest = row;
                    while let Some(&[a, b, c, d, e, f, g, h]) = rest.first_chunk::<GROUP>() {
                        rest = rest.get(depth..).unwrap_or_default();
                        let w0 = word(&[a, b, c, d]) ^ 0x8080_8080;
                        let w1 = word(&[e, f, g, h]) ^ 0x8080_8080;
                        e0 = e0.wrapping_add(w0 & LOW);
                        o0 = o0.wrapping_add((w0 >> 8) & LOW);
                        e1 = e1.wrapping_add(w1 & LOW);
                        o1 = o1.wrapping_add((w1 >> 8) & LOW);
                    }
                }
                let lanes = [e0, o0, e0 >> 16, o0 >> 16, e1, o1, e1 >> 16, o1 >> 16];
                for (s, l) in out.iter_mut().zip(lanes) {
                    *s = (l & 0xFFFF) as i32 - bias;
                }
                done += GROUP;
            }
        }
        self.each(p, src, c0, n, sums, done);
    }

    /// Channels `c0 + from..c0 + n` of [`Self::sums`] one at a time (the window within the
    /// input: the kernels' checks).
    fn each<X: Int8>(
        &self,
        p: &PoolParams,
        src: &[X],
        c0: usize,
        n: usize,
        sums: &mut [i32; CHUNK],
        from: usize,
    ) {
        let [_, _, in_w, depth] = p.input_shape;
        for (k, s) in sums[..n].iter_mut().enumerate().skip(from) {
            let mut acc = 0i32;
            for y in self.ys.clone() {
                let row = self.base + (y * in_w) * depth + c0 + k;
                for x in self.xs.clone() {
                    acc += src[row + x * depth].value();
                }
            }
            *s = acc;
        }
    }
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
    if crate::ops::pooling::pool_2d::is_i16(cx) {
        return Prepared::of::<AveragePool2dI16>(
            cx,
            crate::ops::pooling::pool_2d::prepare_i16(cx)?,
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

/// AVERAGE_POOL_2D, int16 (`reference_integer_ops::AveragePool` on `int16_t`): per output, the
/// `int32` sum of the clipped window (at most 2^16 inputs: no overflow) divided by its count,
/// rounded half away from zero, clamped. A window entirely in the padding is an error (TFLM
/// returns an error for it too).
pub fn average_pool_i16(
    p: &PoolParams,
    input: &[i16],
    output: &mut [i16],
) -> Result<(), KernelError> {
    const OP: &str = "AVERAGE_POOL_2D";
    p.check_i16(OP, input, output)?;
    let depth = p.input_shape[3];
    let mut empty = false;
    p.for_each_window(|b, ys, xs, oy, ox| {
        let count = (ys.len() * xs.len()) as i32;
        if count == 0 {
            empty |= depth > 0;
            return;
        }
        for c in 0..depth {
            let mut acc = 0i32;
            for y in ys.clone() {
                for x in xs.clone() {
                    acc += i32::from(input[offset4(&p.input_shape, b, y, x, c)]);
                }
            }
            let avg = if acc > 0 {
                (acc + count / 2) / count
            } else {
                (acc - count / 2) / count
            };
            output[offset4(&p.output_shape, b, oy, ox, c)] = avg.clamp(p.act_min, p.act_max) as i16;
        }
    });
    if empty {
        return Err(KernelError::shape(OP, ShapeFault::EmptyWindow));
    }
    Ok(())
}

/// The AVERAGE_POOL_2D kernel, int16 (no in-place run: its output has its own place).
pub struct AveragePool2dI16;

impl Kernel for AveragePool2dI16 {
    const NAME: &'static str = "AVERAGE_POOL_2D";
    const MAX_INPUTS: usize = 1;
    type Params = PoolParams;

    fn run(p: &PoolParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        average_pool_i16(p, x, io.out_i16()?)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;
    use crate::math::{Padding, QuantParams};
    use crate::ops::pooling::pool_2d::PoolOptions;

    /// TFLM's `reference_integer_ops::AveragePool` as it reads: per output, per channel, the
    /// clipped window summed one input at a time.
    fn reference(p: &PoolParams, input: &[i8]) -> Vec<i8> {
        let mut out = vec![0i8; p.output_shape.iter().product()];
        p.for_each_window(|b, ys, xs, oy, ox| {
            for c in 0..p.input_shape[3] {
                let (mut acc, mut count) = (0i32, 0i32);
                for y in ys.clone() {
                    for x in xs.clone() {
                        acc += i32::from(input[offset4(&p.input_shape, b, y, x, c)]);
                        count += 1;
                    }
                }
                out[offset4(&p.output_shape, b, oy, ox, c)] = average(acc, count, p);
            }
        });
        out
    }

    /// The word lanes (groups of eight channels, windows of up to 257 inputs), the
    /// remainder channels and the larger windows one channel at a time, against the
    /// reference: extreme inputs (all −128, all 127: the lanes' bounds) and pseudo-random.
    #[test]
    fn sums_match_the_reference() {
        let mut r: u32 = 0x2545_F491;
        let q = QuantParams::new(0.5, -3);
        for (h, w, c, fh, fw, stride) in [
            (25, 5, 64, 25, 5, 1),
            (8, 8, 16, 8, 8, 1),
            (3, 3, 13, 3, 3, 2),
            (17, 17, 9, 16, 16, 1),
            (17, 17, 8, 17, 16, 1),
            (20, 20, 10, 20, 20, 1),
            (7, 9, 24, 3, 4, 2),
            (6, 5, 41, 2, 3, 1),
        ] {
            for padding in [Padding::Valid, Padding::Same] {
                let opts = PoolOptions {
                    padding,
                    stride_h: stride,
                    stride_w: stride,
                    filter_h: fh,
                    filter_w: fw,
                    activation: crate::math::Activation::None,
                };
                let (oh, _) = crate::math::compute_padding("", padding, h, fh, stride, 1).unwrap();
                let (ow, _) = crate::math::compute_padding("", padding, w, fw, stride, 1).unwrap();
                let p = PoolParams::new("", &opts, &[1, h, w, c], &[1, oh, ow, c], q, q).unwrap();
                for fill in 0..3 {
                    let input: Vec<i8> = (0..h * w * c)
                        .map(|_| match fill {
                            0 => -128,
                            1 => 127,
                            _ => {
                                r ^= r << 13;
                                r ^= r >> 17;
                                r ^= r << 5;
                                r as i8
                            }
                        })
                        .collect();
                    let mut out = vec![0i8; oh * ow * c];
                    average_pool(&p, &input, &mut out).unwrap();
                    assert_eq!(out, reference(&p, &input), "{h}x{w}x{c} {fh}x{fw} {fill}");
                }
            }
        }
    }
}
