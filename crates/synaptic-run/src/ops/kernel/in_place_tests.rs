//! Property tests of [`super`]: random geometries (kernel 1–7, stride 1–3, dilation 1–2,
//! SAME/VALID, channel counts, depth multipliers, pool sizes, broadcasts) and random deltas
//! inside the contract's safe range, run overlapped in one buffer, must give exactly the plain
//! kernel's bytes; the delta just outside the range must be refused by the entry point and,
//! run anyway (verification off), must corrupt the output for some geometries — so the derived
//! bounds are tight, not vacuous. Case counts are scaled down under Miri.

use crate::contract::{Contract, Direction, SafeOverlap};
use crate::error::KernelError;
use crate::math::{compute_padding, Activation, Padding, QuantParams};
use crate::ops::conv::conv_2d::{
    conv2d, conv2d_dsp_bytes, conv2d_f32, conv2d_f32_in_place, conv2d_in_place,
    conv2d_scratch_bytes, ConvF32Params, ConvOptions, ConvParams,
};
use crate::ops::conv::depthwise_conv_2d::{
    depthwise_conv2d, depthwise_conv2d_f32, depthwise_conv2d_f32_in_place,
    depthwise_conv2d_in_place, depthwise_conv2d_scratch_bytes, DepthwiseOptions,
};
use crate::ops::elementwise::add::{add, AddParams};
use crate::ops::elementwise::binary;
use crate::ops::elementwise::dequantize::{
    dequantize, dequantize_i8_in_place, dequantize_wide_in_place, DequantizeWideParams,
};
use crate::ops::elementwise::logistic::{logistic, logistic_in_place, LogisticParams};
use crate::ops::elementwise::mul::{mul, MulParams};
use crate::ops::elementwise::quantize::{
    quantize_f32, quantize_f32_i16_in_place, quantize_f32_i8_in_place, requantize,
    requantize_i8_in_place, requantize_int_in_place, requantize_value, RequantizeIntParams,
    RequantizeParams,
};
use crate::ops::float::FloatRange;
use crate::ops::matmul::fully_connected::FC_ROW_BUFFER;
use crate::ops::matmul::fully_connected::{
    fully_connected, fully_connected_in_place, fully_connected_rows, FullyConnectedOptions,
    FullyConnectedParams,
};
use crate::ops::pooling::average_pool_2d::{
    average_pool, average_pool_f32, average_pool_f32_in_place, average_pool_in_place,
};
use crate::ops::pooling::max_pool_2d::{
    max_pool, max_pool_f32, max_pool_f32_in_place, max_pool_in_place,
};
use crate::ops::pooling::pool_2d::{PoolF32Params, PoolOptions, PoolParams};
use crate::ops::reduction::softmax::{softmax, softmax_in_place, SoftmaxParams};
use crate::ops::shape::reshape::{copy, copy_in_place};
use crate::ops::*;
use proptest::prelude::*;
use std::vec;
use std::vec::Vec;
use synaptic_mem::Scratch;

extern crate std;

/// An overlapped run of one kernel on a buffer.
type Run<'a> = dyn Fn(&mut [u8], InPlace) -> Result<(), KernelError> + 'a;

/// One family's property (returns how often one byte past the bound corrupted the output).
type Property = fn(u64) -> Result<usize, TestCaseError>;

const CASES: u32 = if cfg!(miri) { 3 } else { 1000 };

/// xorshift64*: the geometry and data of one case from its seed.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `lo..=hi`.
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() >> 33) as usize % (hi - lo + 1)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next() as u8).collect()
    }
    fn i8s(&mut self, n: usize) -> Vec<i8> {
        (0..n).map(|_| self.next() as i8).collect()
    }
    fn padding(&mut self) -> Padding {
        if self.next() & 1 == 0 {
            Padding::Same
        } else {
            Padding::Valid
        }
    }
    fn activation(&mut self) -> Activation {
        [Activation::None, Activation::Relu, Activation::Relu6][self.range(0, 2)]
    }
    fn quant(&mut self) -> QuantParams {
        QuantParams::new(
            0.01 + self.range(0, 100) as f32 / 500.0,
            self.range(0, 20) as i32 - 10,
        )
    }
    /// Per-channel multipliers in `[2^30, 2^31)` and shifts in `-8..=0`.
    fn tables(&mut self, n: usize) -> (Vec<i32>, Vec<i32>) {
        let m = (0..n)
            .map(|_| (1 << 30) + (self.next() >> 34) as i32)
            .collect();
        let s = (0..n).map(|_| -(self.range(0, 8) as i32)).collect();
        (m, s)
    }
}

/// How to place the tensors: the safe delta (in `dir`) nearest the contract's bound, or a
/// random one a little further away.
fn safe_delta(s: &SafeOverlap, dir: Direction, rng: &mut Rng) -> i64 {
    let slack = rng.range(0, 3) as i64 * 16 * i64::from(rng.next() & 1 == 0);
    match dir {
        Direction::Forward => s.forward_max.min(s.in_bytes) - slack,
        Direction::Backward => s.backward_min.unwrap().max(-s.out_bytes) + slack,
    }
}

/// The delta `past` bytes past the bound in `dir`, if it makes the tensors share a byte.
fn unsafe_delta(s: &SafeOverlap, dir: Direction, past: i64) -> Option<i64> {
    let d = match dir {
        Direction::Forward => s.forward_max.checked_add(past)?,
        Direction::Backward => s.backward_min?.checked_sub(past)?,
    };
    (!s.disjoint(d) && s.direction(d).is_none()).then_some(d)
}

/// A buffer of junk with `input` at `in_at` and room for `out_len` bytes at `in_at + delta`.
fn layout_for(input: &[u8], out_len: usize, delta: i64, rng: &mut Rng) -> (Vec<u8>, InPlace) {
    let in_at = (-delta).max(0) as usize + rng.range(0, 3);
    let out_at = (in_at as i64 + delta) as usize;
    let len = (in_at + input.len()).max(out_at + out_len) + rng.range(0, 3);
    let mut buf = rng.bytes(len);
    buf[in_at..in_at + input.len()].copy_from_slice(input);
    (buf, InPlace::new(in_at, out_at, Direction::Forward))
}

/// Outcome of one overlapped run against the plain kernel's `expected` bytes.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Equal,
    Differs,
    Refused,
}

/// Runs `run` on the input placed at `delta` in `dir` (verification `verify`); compares the
/// output bytes with `expected`.
fn run_at(
    input: &[u8],
    expected: &[u8],
    delta: i64,
    dir: Direction,
    verify: bool,
    rng: &mut Rng,
    run: &Run<'_>,
) -> Outcome {
    let (mut buf, mut at) = layout_for(input, expected.len(), delta, rng);
    at.direction = dir;
    at.verify = verify;
    match run(&mut buf, at) {
        Err(_) => Outcome::Refused,
        Ok(()) if &buf[at.output..at.output + expected.len()] == expected => Outcome::Equal,
        Ok(()) => Outcome::Differs,
    }
}

/// One case: the plain kernel's bytes vs overlapped runs at a safe delta (each direction the
/// contract has) and at the first unsafe delta. Returns how often the unsafe run corrupted the
/// output (for the tightness checks).
fn case(
    contract: &Contract,
    input: &[u8],
    expected: &[u8],
    rng: &mut Rng,
    run: &Run<'_>,
) -> Result<usize, TestCaseError> {
    case_past(contract, input, expected, rng, run, 1)
}

/// [`case`], the corruption counted `past` bytes past the bound (the first byte past it is
/// refused all the same): a kernel that writes a chunk of elements after reading for all of
/// them (the convolutions' [`crate::ops::conv::conv_2d::BLOCK`] channels of a pixel) is safe a
/// little past its element-by-element contract, which stays conservative, tight to within a
/// chunk.
fn case_past(
    contract: &Contract,
    input: &[u8],
    expected: &[u8],
    rng: &mut Rng,
    run: &Run<'_>,
    past: i64,
) -> Result<usize, TestCaseError> {
    let s = contract.safe_overlap().unwrap();
    let mut broke = 0;
    let dirs: &[Direction] = if contract.backward {
        &[Direction::Forward, Direction::Backward]
    } else {
        &[Direction::Forward]
    };
    for &dir in dirs {
        let d = safe_delta(&s, dir, rng);
        prop_assert!(s.safe(d, dir), "{d} {dir:?} {s:?}");
        let got = run_at(input, expected, d, dir, true, rng, run);
        prop_assert_eq!(got, Outcome::Equal, "delta {} {:?} {:?}", d, dir, s);
        // Disjoint, either way: the plain kernel's placement.
        let far = s.in_bytes + rng.range(0, 40) as i64;
        prop_assert_eq!(
            run_at(input, expected, far, dir, true, rng, run),
            Outcome::Equal
        );
        if let Some(u) = unsafe_delta(&s, dir, 1) {
            prop_assert_eq!(
                run_at(input, expected, u, dir, true, rng, run),
                Outcome::Refused
            );
        }
        if let Some(u) = unsafe_delta(&s, dir, past) {
            if run_at(input, expected, u, dir, false, rng, run) == Outcome::Differs {
                broke += 1;
            }
        }
    }
    Ok(broke)
}

fn as_u8(v: &[i8]) -> Vec<u8> {
    v.iter().map(|&x| x as u8).collect()
}

/// A random convolution geometry (None if the constructor refuses it).
fn conv_case(rng: &mut Rng, depthwise: bool) -> Option<(ConvParams, [usize; 4])> {
    let b = rng.range(1, 2);
    let (h, w) = (rng.range(1, 10), rng.range(1, 10));
    let (kh, kw) = (rng.range(1, 7), rng.range(1, 7));
    let opts = ConvOptions {
        padding: rng.padding(),
        stride_h: rng.range(1, 3),
        stride_w: rng.range(1, 3),
        dilation_h: rng.range(1, 2),
        dilation_w: rng.range(1, 2),
        activation: rng.activation(),
    };
    let (oh, _) = compute_padding("", opts.padding, h, kh, opts.stride_h, opts.dilation_h).ok()?;
    let (ow, _) = compute_padding("", opts.padding, w, kw, opts.stride_w, opts.dilation_w).ok()?;
    if oh == 0 || ow == 0 {
        return None;
    }
    let (qi, qo) = (rng.quant(), rng.quant());
    if depthwise {
        // Past one chunk of lanes and its remainder, by multiplier; past one block of
        // channels (multiplier 1) and its remainder, now and then; many channels (the row
        // kernel's segments, several to a row).
        let block = crate::ops::conv::conv_2d::BLOCK;
        let c = match rng.next() % 8 {
            0 | 1 => rng.range(block - 3, block + 7),
            2 => 4 * rng.range(16, 64),
            _ => rng.range(1, 9),
        };
        let dm = if rng.next() & 1 == 0 {
            1
        } else {
            rng.range(2, 6)
        };
        let f = [1, kh, kw, c * dm];
        let d = DepthwiseOptions {
            conv: opts,
            depth_multiplier: dm,
        };
        let p = ConvParams::depthwise(&d, &[b, h, w, c], &f, &[b, oh, ow, c * dm], qi, qo).ok()?;
        Some((p, f))
    } else {
        // Filters per group past one chunk of lanes and its remainder; without groups, past
        // one block of filters and its remainder now and then.
        let groups = rng.range(1, 2);
        let fd = rng.range(1, 6);
        let block = crate::ops::conv::conv_2d::BLOCK;
        let oc = if groups == 1 && rng.next() % 4 == 0 {
            rng.range(block - 3, block + 7)
        } else {
            groups * rng.range(1, 9)
        };
        let f = [oc, kh, kw, fd];
        let p = ConvParams::conv2d(&opts, &[b, h, w, fd * groups], &f, &[b, oh, ow, oc], qi, qo)
            .ok()?;
        Some((p, f))
    }
}

fn conv_property(seed: u64, depthwise: bool) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let Some((p, f)) = conv_case(&mut rng, depthwise) else {
        return Ok(0);
    };
    let input = rng.i8s(p.input_shape.iter().product());
    let filter = rng.i8s(f.iter().product());
    // Now and then biases past the row kernel's fast requantization (its general path).
    let shift = if rng.next() % 4 == 0 { 1 } else { 12 };
    let bias: Vec<i32> = (0..p.output_shape[3])
        .map(|_| rng.next() as i32 >> shift)
        .collect();
    let (m, s) = rng.tables(p.output_shape[3]);
    let mut expected = vec![0i8; p.output_shape.iter().product()];
    // The kernel's scratch block, as the interpreter sizes it (16 bytes more: a Vec's start
    // is not 16-byte aligned), full of junk: the kernel writes it before it reads it.
    let scratch_bytes = if depthwise {
        depthwise_conv2d_scratch_bytes(&p)
    } else {
        conv2d_scratch_bytes(&p)
    };
    let junk = rng.i8s(scratch_bytes + 16);
    let mut scratch_buf: Vec<u8> = junk.iter().map(|&b| b as u8).collect();
    let plain = |out: &mut [i8], scratch: &mut Scratch<'_>| {
        let (m, s, bias) = (&m[..], &s[..], Some(&bias[..]));
        if depthwise {
            depthwise_conv2d(&p, m, s, &input, &filter, bias, out, scratch)
        } else {
            conv2d(&p, m, s, &input, &filter, bias, out, scratch)
        }
    };
    // Too small a block is a clear error, never a wrong output (half of what every ISA's
    // kernel takes: the DSP extension's own bytes left out).
    let staged = if depthwise { 0 } else { conv2d_dsp_bytes(&p) };
    if scratch_bytes > 0 {
        let mut short = vec![0u8; (scratch_bytes - staged) / 2];
        let e = plain(&mut expected, &mut Scratch::new(&mut short)).unwrap_err();
        prop_assert!(
            matches!(
                e,
                KernelError::Unsupported {
                    reason: crate::error::Unsupported::Scratch,
                    ..
                }
            ),
            "{:?}",
            e
        );
    }
    plain(&mut expected, &mut Scratch::new(&mut scratch_buf)).unwrap();
    // The plain kernel (chunked channels) against TFLM's loop, element by element.
    let reference = if depthwise {
        depthwise_reference(&p, &m, &s, &input, &filter, &bias)
    } else {
        conv_reference(&p, &m, &s, &input, &filter, &bias)
    };
    prop_assert_eq!(&expected, &reference);
    let run = |buf: &mut [u8], at: InPlace| {
        let mut block: Vec<u8> = junk.iter().map(|&b| b as u8).collect();
        let (m, s, bias, scratch) = (
            &m[..],
            &s[..],
            Some(&bias[..]),
            &mut Scratch::new(&mut block),
        );
        if depthwise {
            depthwise_conv2d_in_place(&p, m, s, &filter, bias, buf, at, scratch)
        } else {
            conv2d_in_place(&p, m, s, &filter, bias, buf, at, scratch)
        }
    };
    let c = crate::ops::conv::conv_2d::contract(&p, depthwise);
    // Both write a block of a pixel's channels after reading for all of them.
    let past = crate::ops::conv::conv_2d::BLOCK as i64;
    case_past(&c, &as_u8(&input), &as_u8(&expected), &mut rng, &run, past)
}

/// `reference_integer_ops::DepthwiseConvPerChannel`'s loop, one output element at a time
/// (what [`depthwise_conv2d`] computes in chunks of channels).
fn depthwise_reference(
    p: &ConvParams,
    m: &[i32],
    s: &[i32],
    input: &[i8],
    filter: &[i8],
    bias: &[i32],
) -> Vec<i8> {
    let [batches, in_h, in_w, in_d] = p.input_shape;
    let [_, f_h, f_w, _] = p.filter_shape;
    let [_, out_h, out_w, out_d] = p.output_shape;
    let dm = p.depth_multiplier;
    let mut out = vec![0i8; batches * out_h * out_w * out_d];
    for b in 0..batches {
        for oy in 0..out_h {
            for ox in 0..out_w {
                for ic in 0..in_d {
                    for mi in 0..dm {
                        let oc = mi + ic * dm;
                        let mut acc: i32 = 0;
                        for fy in 0..f_h {
                            for fx in 0..f_w {
                                let y = (oy * p.stride_h + p.dilation_h * fy) as isize
                                    - p.pad_h as isize;
                                let x = (ox * p.stride_w + p.dilation_w * fx) as isize
                                    - p.pad_w as isize;
                                if y < 0 || x < 0 || y >= in_h as isize || x >= in_w as isize {
                                    continue;
                                }
                                let xv = input
                                    [((b * in_h + y as usize) * in_w + x as usize) * in_d + ic];
                                let wv = filter[(fy * f_w + fx) * out_d + oc];
                                acc = acc.wrapping_add(
                                    i32::from(wv).wrapping_mul(i32::from(xv) + p.input_offset),
                                );
                            }
                        }
                        acc = acc.wrapping_add(bias[oc]);
                        let v = crate::math::multiply_by_quantized_multiplier(acc, m[oc], s[oc])
                            .wrapping_add(p.output_offset);
                        out[((b * out_h + oy) * out_w + ox) * out_d + oc] =
                            v.max(p.act_min).min(p.act_max) as i8;
                    }
                }
            }
        }
    }
    out
}

/// `reference_integer_ops::ConvPerChannel`'s loop, one output element at a time (what
/// [`conv2d`] computes in chunks of filters).
fn conv_reference(
    p: &ConvParams,
    m: &[i32],
    s: &[i32],
    input: &[i8],
    filter: &[i8],
    bias: &[i32],
) -> Vec<i8> {
    let [batches, in_h, in_w, in_d] = p.input_shape;
    let [_, f_h, f_w, f_d] = p.filter_shape;
    let [_, out_h, out_w, out_d] = p.output_shape;
    let per_group = out_d / (in_d / f_d);
    let mut out = vec![0i8; batches * out_h * out_w * out_d];
    for b in 0..batches {
        for oy in 0..out_h {
            for ox in 0..out_w {
                for oc in 0..out_d {
                    let g = oc / per_group;
                    let mut acc: i32 = 0;
                    for fy in 0..f_h {
                        for fx in 0..f_w {
                            let y =
                                (oy * p.stride_h + p.dilation_h * fy) as isize - p.pad_h as isize;
                            let x =
                                (ox * p.stride_w + p.dilation_w * fx) as isize - p.pad_w as isize;
                            if y < 0 || x < 0 || y >= in_h as isize || x >= in_w as isize {
                                continue;
                            }
                            for c in 0..f_d {
                                let xv = input[((b * in_h + y as usize) * in_w + x as usize)
                                    * in_d
                                    + g * f_d
                                    + c];
                                let wv = filter[((oc * f_h + fy) * f_w + fx) * f_d + c];
                                acc = acc.wrapping_add(
                                    i32::from(wv).wrapping_mul(i32::from(xv) + p.input_offset),
                                );
                            }
                        }
                    }
                    acc = acc.wrapping_add(bias[oc]);
                    let v = crate::math::multiply_by_quantized_multiplier(acc, m[oc], s[oc])
                        .wrapping_add(p.output_offset);
                    out[((b * out_h + oy) * out_w + ox) * out_d + oc] =
                        v.max(p.act_min).min(p.act_max) as i8;
                }
            }
        }
    }
    out
}

/// Random floats in [-2, 2) (multiples of 2^-10: finite, with rounding in the sums).
fn f32s(rng: &mut Rng, n: usize) -> Vec<f32> {
    (0..n)
        .map(|_| (rng.next() >> 52) as f32 / 1024.0 - 2.0)
        .collect()
}

fn f32_bytes(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The float32 convolutions: the int8 geometries, float data, every activation range.
fn conv_f32_property(seed: u64, depthwise: bool) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let Some((conv, f)) = conv_case(&mut rng, depthwise) else {
        return Ok(0);
    };
    let p = ConvF32Params {
        conv,
        range: FloatRange::new(rng.activation()),
    };
    let input = f32s(&mut rng, conv.input_shape.iter().product());
    let filter = f32_bytes(&f32s(&mut rng, f.iter().product()));
    let bias = (rng.next() & 1 == 0).then(|| f32_bytes(&f32s(&mut rng, conv.output_shape[3])));
    let mut expected = vec![0f32; conv.output_shape.iter().product()];
    let plain = if depthwise {
        depthwise_conv2d_f32
    } else {
        conv2d_f32
    };
    plain(&p, &input, &filter, bias.as_deref(), &mut expected).unwrap();
    let run = |buf: &mut [u8], at: InPlace| {
        if depthwise {
            depthwise_conv2d_f32_in_place(&p, &filter, bias.as_deref(), buf, at)
        } else {
            conv2d_f32_in_place(&p, &filter, bias.as_deref(), buf, at)
        }
    };
    let c = crate::ops::conv::conv_2d::contract_f32(&conv, depthwise);
    case(
        &c,
        &f32_bytes(&input),
        &f32_bytes(&expected),
        &mut rng,
        &run,
    )
}

/// A random pooling geometry and kind (average or max), None if refused.
fn pool_case(rng: &mut Rng) -> Option<(PoolParams, bool)> {
    let (b, h, w, c) = (
        rng.range(1, 2),
        rng.range(1, 10),
        rng.range(1, 10),
        // Past a group of eight (AVERAGE_POOL_2D's word lanes) and its remainder.
        rng.range(1, 20),
    );
    let opts = PoolOptions {
        padding: rng.padding(),
        stride_h: rng.range(1, 3),
        stride_w: rng.range(1, 3),
        filter_h: rng.range(1, 5),
        filter_w: rng.range(1, 5),
        activation: rng.activation(),
    };
    let (oh, _) = compute_padding("", opts.padding, h, opts.filter_h, opts.stride_h, 1).ok()?;
    let (ow, _) = compute_padding("", opts.padding, w, opts.filter_w, opts.stride_w, 1).ok()?;
    if oh == 0 || ow == 0 {
        return None;
    }
    let q = rng.quant();
    let avg = rng.next() & 1 == 0;
    let op = if avg {
        "AVERAGE_POOL_2D"
    } else {
        "MAX_POOL_2D"
    };
    let p = PoolParams::new(op, &opts, &[b, h, w, c], &[b, oh, ow, c], q, q).ok()?;
    Some((p, avg))
}

fn pool_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let Some((p, avg)) = pool_case(&mut rng) else {
        return Ok(0);
    };
    let [b, h, w, c] = p.input_shape;
    let [_, oh, ow, _] = p.output_shape;
    let input = rng.i8s(b * h * w * c);
    let mut expected = vec![0i8; b * oh * ow * c];
    let plain = if avg { average_pool } else { max_pool };
    if plain(&p, &input, &mut expected).is_err() {
        return Ok(0); // a window entirely in the padding: refused by both
    }
    let run = |buf: &mut [u8], at: InPlace| {
        if avg {
            average_pool_in_place(&p, buf, at)
        } else {
            max_pool_in_place(&p, buf, at)
        }
    };
    case(
        &crate::ops::pooling::pool_2d::contract(&p),
        &as_u8(&input),
        &as_u8(&expected),
        &mut rng,
        &run,
    )
}

/// The float32 poolings: the int8 geometries, float data.
fn pool_f32_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let Some((pool, avg)) = pool_case(&mut rng) else {
        return Ok(0);
    };
    let p = PoolF32Params {
        pool,
        range: FloatRange::new(rng.activation()),
    };
    let input = f32s(&mut rng, pool.input_shape.iter().product());
    let mut expected = vec![0f32; pool.output_shape.iter().product()];
    let plain = if avg { average_pool_f32 } else { max_pool_f32 };
    if plain(&p, &input, &mut expected).is_err() {
        return Ok(0); // a window entirely in the padding: refused by both
    }
    let run = |buf: &mut [u8], at: InPlace| {
        if avg {
            average_pool_f32_in_place(&p, buf, at)
        } else {
            max_pool_f32_in_place(&p, buf, at)
        }
    };
    let c = crate::ops::pooling::pool_2d::contract_f32(&pool);
    case(
        &c,
        &f32_bytes(&input),
        &f32_bytes(&expected),
        &mut rng,
        &run,
    )
}

fn fc_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    // Rows up to FC_ROW_BUFFER bytes are buffered, longer ones re-read: both drawn.
    let (b, ad, od) = (rng.range(1, 4), rng.range(1, 100), rng.range(1, 24));
    let per_channel = rng.next() & 1 == 0;
    let scales: Vec<f32> = vec![0.02; if per_channel { od } else { 1 }];
    let opts = FullyConnectedOptions {
        activation: rng.activation(),
        weights_format: 0,
    };
    let p = FullyConnectedParams::new(
        &opts,
        &[b, ad],
        &[od, ad],
        &[b, od],
        rng.quant(),
        &scales,
        rng.range(0, 4) as i32 - 2,
        rng.quant(),
    )
    .unwrap();
    let input = rng.i8s(b * ad);
    let filter = rng.i8s(od * ad);
    let bias: Vec<i32> = (0..od).map(|_| rng.next() as i32 >> 12).collect();
    let (m, s) = rng.tables(p.table_len());
    let mut expected = vec![0i8; b * od];
    fully_connected(
        &p,
        &m[..],
        &s[..],
        &input,
        &filter,
        Some(&bias[..]),
        &mut expected,
    )
    .unwrap();
    let run = |buf: &mut [u8], at: InPlace| {
        fully_connected_in_place(&p, &m[..], &s[..], &filter, Some(&bias[..]), buf, at)
    };
    case(
        &crate::ops::matmul::fully_connected::contract(&p),
        &as_u8(&input),
        &as_u8(&expected),
        &mut rng,
        &run,
    )
}

/// [`fully_connected_rows`] (short rows, a row at a time through the plain kernel writing
/// `u8` outputs into the buffer, as the interpreter runs it) against the plain kernel: output
/// depths past the row buffer, per-tensor and per-channel tables.
fn fc_rows_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let (b, ad, od) = (
        rng.range(1, 4),
        rng.range(1, FC_ROW_BUFFER),
        rng.range(1, 150),
    );
    let per_channel = rng.next() & 1 == 0;
    let scales: Vec<f32> = vec![0.02; if per_channel { od } else { 1 }];
    let opts = FullyConnectedOptions {
        activation: rng.activation(),
        weights_format: 0,
    };
    let p = FullyConnectedParams::new(
        &opts,
        &[b, ad],
        &[od, ad],
        &[b, od],
        rng.quant(),
        &scales,
        rng.range(0, 4) as i32 - 2,
        rng.quant(),
    )
    .unwrap();
    let input = rng.i8s(b * ad);
    let filter = rng.i8s(od * ad);
    let bias: Vec<i32> = (0..od).map(|_| rng.next() as i32 >> 12).collect();
    let (m, s) = rng.tables(p.table_len());
    let mut expected = vec![0i8; b * od];
    fully_connected(
        &p,
        &m[..],
        &s[..],
        &input,
        &filter,
        Some(&bias[..]),
        &mut expected,
    )
    .unwrap();
    let run = |buf: &mut [u8], at: InPlace| {
        fully_connected_rows(&p, buf, at, |x, out| {
            let one = FullyConnectedParams { batches: 1, ..p };
            fully_connected(&one, &m[..], &s[..], x, &filter, Some(&bias[..]), out)
        })
    };
    case(
        &crate::ops::matmul::fully_connected::contract(&p),
        &as_u8(&input),
        &as_u8(&expected),
        &mut rng,
        &run,
    )
}

fn elementwise_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let shape = [
        rng.range(1, 3),
        rng.range(1, 6),
        rng.range(1, 6),
        rng.range(1, 5),
    ];
    let n: usize = shape.iter().product();
    let input = rng.i8s(n);
    let kind = rng.range(0, 9);
    let mut expected = vec![0i8; n];
    let (contract, expected_bytes): (Contract, Vec<u8>);
    let run: std::boxed::Box<Run<'static>>;
    match kind {
        0 | 1 => {
            // ADD / MUL, the overlapped input `which`, the other one maybe broadcast.
            let which = rng.range(0, 1);
            let other_shape = if rng.next() & 1 == 0 {
                shape
            } else {
                [1, 1, shape[2], shape[3]]
            };
            let other = rng.i8s(other_shape.iter().product());
            let (s1, s2) = if which == 0 {
                (&shape, &other_shape)
            } else {
                (&other_shape, &shape)
            };
            let (q1, q2, qo) = (rng.quant(), rng.quant(), rng.quant());
            let act = rng.activation();
            if kind == 0 {
                let p = AddParams::new(act, s1, s2, &shape, q1, q2, qo).unwrap();
                if which == 0 {
                    add(&p, &input, &other, &mut expected).unwrap();
                } else {
                    add(&p, &other, &input, &mut expected).unwrap();
                }
                run = std::boxed::Box::new(move |buf, at| {
                    binary::run_in_place(&p, which, &other, buf, at)
                });
            } else {
                let p = MulParams::new(act, s1, s2, &shape, q1, q2, qo).unwrap();
                if which == 0 {
                    mul(&p, &input, &other, &mut expected).unwrap();
                } else {
                    mul(&p, &other, &input, &mut expected).unwrap();
                }
                run = std::boxed::Box::new(move |buf, at| {
                    binary::run_in_place(&p, which, &other, buf, at)
                });
            }
            contract = Contract::elementwise(n, 1, 1);
            expected_bytes = as_u8(&expected);
        }
        2 => {
            let p = LogisticParams::new(rng.quant(), QuantParams::new(1.0 / 256.0, -128)).unwrap();
            logistic(&p, &input, &mut expected).unwrap();
            run = std::boxed::Box::new(move |buf, at| logistic_in_place(&p, n, buf, at));
            contract = Contract::elementwise(n, 1, 1);
            expected_bytes = as_u8(&expected);
        }
        3 => {
            let p = RequantizeParams::new(rng.quant(), rng.quant()).unwrap();
            requantize(&p, &input, &mut expected).unwrap();
            run = std::boxed::Box::new(move |buf, at| requantize_i8_in_place(&p, n, buf, at));
            contract = Contract::elementwise(n, 1, 1);
            expected_bytes = as_u8(&expected);
        }
        4 => {
            // DEQUANTIZE int8 → float32 (output 4 bytes per element).
            let q = rng.quant();
            let mut out = vec![0f32; n];
            dequantize(q, &input, &mut out).unwrap();
            run = std::boxed::Box::new(move |buf, at| dequantize_i8_in_place(q, n, buf, at));
            contract = Contract::elementwise(n, 1, 4);
            expected_bytes = out.iter().flat_map(|f| f.to_ne_bytes()).collect();
        }
        5 => {
            // QUANTIZE float32 → int8: the input is the floats' bytes.
            let floats: Vec<f32> = input.iter().map(|&x| f32::from(x) * 0.37).collect();
            let q = rng.quant();
            quantize_f32(q, &floats, &mut expected).unwrap();
            let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_ne_bytes()).collect();
            let c = Contract::elementwise(n, 4, 1);
            let run = move |buf: &mut [u8], at: InPlace| quantize_f32_i8_in_place(q, n, buf, at);
            return case(&c, &bytes, &as_u8(&expected), &mut rng, &run);
        }
        6 => {
            // QUANTIZE between integer types (1-, 2- and 4-byte elements either side): int8 →
            // uint8, int16, int32; int16 → int16; int32 → int8, int16; uint8 → int8.
            let pairs = [(0u32, 1u32), (0, 2), (0, 3), (2, 2), (3, 0), (3, 2), (1, 0)];
            let (from, to) = pairs[rng.range(0, 6)];
            let p = RequantizeIntParams {
                requantize: RequantizeParams::new(rng.quant(), rng.quant()).unwrap(),
                from,
                to,
            };
            let xs: Vec<i32> = input
                .iter()
                .map(|&x| match from {
                    0 => i32::from(x),
                    1 => i32::from(x as u8),
                    _ => i32::from(x) * 131,
                })
                .collect();
            let bytes: Vec<u8> = xs
                .iter()
                .flat_map(|&x| match from {
                    0 | 1 => vec![x as u8],
                    2 => (x as i16).to_le_bytes().to_vec(),
                    _ => x.to_le_bytes().to_vec(),
                })
                .collect();
            let want: Vec<u8> = xs
                .iter()
                .flat_map(|&x| match to {
                    0 => vec![requantize_value::<i32, i8>(&p.requantize, x) as u8],
                    1 => vec![requantize_value::<i32, u8>(&p.requantize, x)],
                    2 => requantize_value::<i32, i16>(&p.requantize, x)
                        .to_le_bytes()
                        .to_vec(),
                    _ => requantize_value::<i32, i32>(&p.requantize, x)
                        .to_le_bytes()
                        .to_vec(),
                })
                .collect();
            let w = |t: u32| [1, 1, 2, 4][t as usize];
            let c = Contract::elementwise(n, w(from), w(to));
            let run = move |buf: &mut [u8], at: InPlace| requantize_int_in_place(&p, n, buf, at);
            return case(&c, &bytes, &want, &mut rng, &run);
        }
        7 => {
            // DEQUANTIZE int16 or uint8 → float32.
            let p = DequantizeWideParams {
                input: rng.quant(),
                int16: rng.next() & 1 == 0,
            };
            let mut out = vec![0f32; n];
            let bytes: Vec<u8> = if p.int16 {
                let xs: Vec<i16> = input.iter().map(|&x| i16::from(x) * 199).collect();
                dequantize(p.input, &xs, &mut out).unwrap();
                xs.iter().flat_map(|x| x.to_le_bytes()).collect()
            } else {
                let xs: Vec<u8> = input.iter().map(|&x| x as u8).collect();
                dequantize(p.input, &xs, &mut out).unwrap();
                xs
            };
            let c = Contract::elementwise(n, 1 + usize::from(p.int16), 4);
            let want: Vec<u8> = out.iter().flat_map(|f| f.to_le_bytes()).collect();
            let run = move |buf: &mut [u8], at: InPlace| dequantize_wide_in_place(&p, n, buf, at);
            return case(&c, &bytes, &want, &mut rng, &run);
        }
        8 => {
            // QUANTIZE float32 → int16.
            let floats: Vec<f32> = input.iter().map(|&x| f32::from(x) * 7.3).collect();
            let q = rng.quant();
            let mut out = vec![0i16; n];
            quantize_f32(q, &floats, &mut out).unwrap();
            let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
            let want: Vec<u8> = out.iter().flat_map(|x| x.to_le_bytes()).collect();
            let c = Contract::elementwise(n, 4, 2);
            let run = move |buf: &mut [u8], at: InPlace| quantize_f32_i16_in_place(q, n, buf, at);
            return case(&c, &bytes, &want, &mut rng, &run);
        }
        _ => {
            // RESHAPE / SQUEEZE: a byte copy (nothing at delta 0).
            copy("RESHAPE", &input, &mut expected).unwrap();
            run = std::boxed::Box::new(move |buf, at| copy_in_place("RESHAPE", n, buf, at));
            contract = Contract::elementwise(n, 1, 1);
            expected_bytes = as_u8(&expected);
        }
    }
    case(&contract, &as_u8(&input), &expected_bytes, &mut rng, &*run)
}

fn softmax_property(seed: u64) -> Result<usize, TestCaseError> {
    let mut rng = Rng::new(seed);
    let shape = [rng.range(1, 4), rng.range(1, 20)];
    let n = shape[0] * shape[1];
    let p = SoftmaxParams::new(
        1.0,
        &shape,
        rng.quant(),
        QuantParams::new(1.0 / 256.0, -128),
    )
    .unwrap();
    let input = rng.i8s(n);
    let mut expected = vec![0i8; n];
    softmax(&p, &input, &mut expected).unwrap();
    let run = |buf: &mut [u8], at: InPlace| softmax_in_place(&p, buf, at);
    case(
        &crate::ops::reduction::softmax::contract(&p),
        &as_u8(&input),
        &as_u8(&expected),
        &mut rng,
        &run,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn conv2d_overlapped_equals_plain(seed in any::<u64>()) {
        conv_property(seed, false)?;
    }

    #[test]
    fn depthwise_overlapped_equals_plain(seed in any::<u64>()) {
        conv_property(seed, true)?;
    }

    #[test]
    fn conv2d_f32_overlapped_equals_plain(seed in any::<u64>()) {
        conv_f32_property(seed, false)?;
    }

    #[test]
    fn depthwise_f32_overlapped_equals_plain(seed in any::<u64>()) {
        conv_f32_property(seed, true)?;
    }

    #[test]
    fn pooling_overlapped_equals_plain(seed in any::<u64>()) {
        pool_property(seed)?;
    }

    #[test]
    fn pooling_f32_overlapped_equals_plain(seed in any::<u64>()) {
        pool_f32_property(seed)?;
    }

    #[test]
    fn fully_connected_overlapped_equals_plain(seed in any::<u64>()) {
        fc_property(seed)?;
    }

    #[test]
    fn fully_connected_rows_overlapped_equals_plain(seed in any::<u64>()) {
        fc_rows_property(seed)?;
    }

    #[test]
    fn elementwise_overlapped_equal_plain(seed in any::<u64>()) {
        elementwise_property(seed)?;
    }

    #[test]
    fn softmax_overlapped_equals_plain(seed in any::<u64>()) {
        softmax_property(seed)?;
    }
}

/// The bounds are tight: over seeded geometries of every family, running one byte past the
/// bound (with the check turned off) corrupts the output in some cases (CONV_2D, which writes
/// a chunk of filters after reading for all of them: `LANES` bytes past it).
#[test]
fn one_byte_past_the_bound_breaks() {
    let seeds = if cfg!(miri) { 6 } else { 400 };
    let families: [(&str, Property); 10] = [
        ("CONV_2D", |s| conv_property(s, false)),
        ("DEPTHWISE_CONV_2D", |s| conv_property(s, true)),
        ("CONV_2D float32", |s| conv_f32_property(s, false)),
        ("DEPTHWISE_CONV_2D float32", |s| conv_f32_property(s, true)),
        ("POOL", pool_property),
        ("POOL float32", pool_f32_property),
        ("FULLY_CONNECTED", fc_property),
        ("FULLY_CONNECTED rows", fc_rows_property),
        ("ELEMENTWISE", elementwise_property),
        ("SOFTMAX", softmax_property),
    ];
    for (name, f) in families {
        let broke: usize = (0..seeds).map(|s| f(0xabc0_0000 + s).unwrap()).sum();
        if !cfg!(miri) {
            assert!(
                broke > 0,
                "{name}: no geometry broke one byte past its bound"
            );
        }
    }
}

#[test]
fn person_detect_peak_runs_backward_sixteen_bytes_up() {
    // The example: 1×1 CONV_2D 48×48×8 → 48×48×16, output 16 bytes after the input:
    // 36,880 bytes hold both; forward there is refused, backward equals the plain kernel.
    let mut rng = Rng::new(7);
    let (h, w) = if cfg!(miri) { (3, 3) } else { (48, 48) };
    let opts = ConvOptions {
        padding: Padding::Valid,
        stride_h: 1,
        stride_w: 1,
        dilation_h: 1,
        dilation_w: 1,
        activation: Activation::Relu6,
    };
    let f = [16, 1, 1, 8];
    let p = ConvParams::conv2d(
        &opts,
        &[1, h, w, 8],
        &f,
        &[1, h, w, 16],
        rng.quant(),
        rng.quant(),
    )
    .unwrap();
    let input = rng.i8s(h * w * 8);
    let filter = rng.i8s(16 * 8);
    let (m, s) = rng.tables(16);
    let mut expected = vec![0i8; h * w * 16];
    let mut block = vec![0u8; conv2d_scratch_bytes(&p) + 16];
    let (m, s) = (&m[..], &s[..]);
    conv2d::<i8, i8, i8, [i32], [i32]>(
        &p,
        m,
        s,
        &input,
        &filter,
        None,
        &mut expected,
        &mut Scratch::new(&mut block),
    )
    .unwrap();
    let mut buf = vec![0u8; 16 + h * w * 16];
    buf[..h * w * 8].copy_from_slice(&as_u8(&input));
    let fwd = InPlace::new(0, 16, Direction::Forward);
    let mut run = |buf: &mut [u8], at| {
        conv2d_in_place::<i8, [i32], [i32]>(
            &p,
            m,
            s,
            &filter,
            None,
            buf,
            at,
            &mut Scratch::new(&mut block),
        )
    };
    assert!(run(&mut buf, fwd).is_err());
    let back = InPlace::new(0, 16, Direction::Backward);
    run(&mut buf, back).unwrap();
    assert_eq!(&buf[16..], &as_u8(&expected)[..]);
    if !cfg!(miri) {
        assert_eq!(buf.len(), 36_880);
    }
}
