//! CONV_2D, int8 activations, int8 per-channel (or per-tensor) weights, int32 bias; and
//! float32 ([`Conv2dF32`]: `reference_ops::Conv`, float); int16 activations ([`Conv2dI16`],
//! 16x8: [`crate::ops::conv::conv_i16`]).
//!
//! Mirrors `reference_integer_ops::ConvPerChannel` with the preparation of
//! `micro/kernels/conv_common.cc`: padding from `ComputePaddingHeightWidth`, the per-channel
//! multipliers of `PopulateConvolutionQuantizationParams` (the program's table, derived by
//! [`crate::math::per_channel_multipliers`]) and the activation clamp. The filter zero point is
//! ignored, as TFLM's int8 kernels ignore it (symmetric weights). Grouped convolution (input
//! depth a multiple of the filter depth) is supported as in TFLM. [`ConvParams`], its window
//! taps ([`Taps`]) and the accumulator's output stage are shared with DEPTHWISE_CONV_2D
//! ([`crate::ops::conv::depthwise_conv_2d`]).
//!
//! Overlapped ([`Conv2d`]'s `run_in_place`): the output pixel loop in the plain kernel's order
//! (per output pixel, the window clipped to the input once, the channels in chunks, each
//! chunk's reads before its writes); its contract, element by element, re-reads the whole
//! window for each output channel ([`window`]).

use synaptic_mem::Scratch;
use synaptic_tflite::{code, TensorType};

use crate::contract::{Access, Channels, Contract, Direction, Window};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{
    activation_range_i8, compute_padding, int8_zero_point, multiply_by_quantized_multiplier,
};
use crate::math::{Activation, Padding, QuantParams, RightRequantizer};
use crate::ops::common::{check_nhwc_io, dot2, nhwc, offset4, size, Int32s, Int8, Int8Out};
use crate::ops::float::{F32s, FloatRange, LeF32};
use crate::ops::in_place::{check_window, for_each_pixel, ordered, put32, InPlace};
use crate::ops::paths::{has, linked, pick};
use crate::ops::tables::{Constants, Table};
use crate::ops::{
    paths, AllOps, Geometry, InPlaceOperands, Kernel, Kind, OpSet, Operands, Prep, Prepared,
};
use core::marker::PhantomData;

// The ISA variant: the DSP extension's loops in assembly (its own file, its `unsafe` there).
#[cfg(synaptic_dsp)]
#[allow(unsafe_code)]
pub(crate) mod dsp;

pub use super::conv_i16::Conv2dI16;
pub use super::conv_i4::Conv2dI4;

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::CONV_2D];

/// The options of a CONV_2D (`Conv2DOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvOptions {
    /// `padding`.
    pub padding: Padding,
    /// `stride_h`.
    pub stride_h: usize,
    /// `stride_w`.
    pub stride_w: usize,
    /// `dilation_h_factor`.
    pub dilation_h: usize,
    /// `dilation_w_factor`.
    pub dilation_w: usize,
    /// `fused_activation_function`.
    pub activation: Activation,
}

/// Everything a convolution kernel needs besides the data and the per-channel tables: made
/// only by [`ConvParams::conv2d`] / [`ConvParams::depthwise`], which check every invariant the
/// kernels' loops rely on (shapes consistent and within [`crate::limits::MAX_TENSOR_SIZE`], window
/// extents within `int32`, zero points in int8's range, a non-empty activation range).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConvParams {
    /// Input shape `[n, h, w, c]`.
    pub(crate) input_shape: [usize; 4],
    /// Filter shape: `[out_c, kh, kw, in_c / groups]` (conv) or `[1, kh, kw, out_c]` (depthwise).
    pub(crate) filter_shape: [usize; 4],
    /// Output shape `[n, oh, ow, out_c]`.
    pub(crate) output_shape: [usize; 4],
    /// `-input_zero_point`.
    pub(crate) input_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// Vertical stride.
    pub(crate) stride_h: usize,
    /// Horizontal stride.
    pub(crate) stride_w: usize,
    /// Vertical dilation.
    pub(crate) dilation_h: usize,
    /// Horizontal dilation.
    pub(crate) dilation_w: usize,
    /// Padding rows before the input.
    pub(crate) pad_h: usize,
    /// Padding columns before the input.
    pub(crate) pad_w: usize,
    /// Depth multiplier (depthwise only; 1 for a convolution).
    pub(crate) depth_multiplier: usize,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

// Load-time code called from many operators: one copy (flash), not one per caller.
#[inline(never)]
pub(crate) fn spatial(
    op: &'static str,
    opts: &ConvOptions,
    input_shape: &[usize; 4],
    filter_hw: (usize, usize),
    output_shape: &[usize; 4],
) -> Result<(usize, usize), KernelError> {
    let (out_h, pad_h) = compute_padding(
        op,
        opts.padding,
        input_shape[1],
        filter_hw.0,
        opts.stride_h,
        opts.dilation_h,
    )?;
    let (out_w, pad_w) = compute_padding(
        op,
        opts.padding,
        input_shape[2],
        filter_hw.1,
        opts.stride_w,
        opts.dilation_w,
    )?;
    if out_h != output_shape[1] || out_w != output_shape[2] {
        return Err(KernelError::shape(op, ShapeFault::OutputSpatial));
    }
    if input_shape[0] != output_shape[0] {
        return Err(KernelError::shape(op, ShapeFault::BatchOrDepth));
    }
    Ok((pad_h, pad_w))
}

impl ConvParams {
    /// Prepares a CONV_2D: int8 input/output quantizations, shapes `[n,h,w,c]`,
    /// filter `[out_c, kh, kw, in_c / groups]`.
    #[inline(always)]
    pub fn conv2d(
        opts: &ConvOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "CONV_2D";
        let i = nhwc(OP, Operand::Input(0), input_shape)?;
        let f = nhwc(OP, Operand::Filter, filter_shape)?;
        let o = nhwc(OP, Operand::Output, output_shape)?;
        for s in [&i, &f, &o] {
            size(OP, s)?;
        }
        if f[0] != o[3] {
            return Err(KernelError::shape(OP, ShapeFault::FilterChannels));
        }
        if f[3] == 0 || i[3] % f[3] != 0 {
            return Err(KernelError::shape(OP, ShapeFault::FilterDepth));
        }
        let groups = i[3] / f[3];
        if groups == 0 || o[3] % groups != 0 {
            return Err(KernelError::shape(OP, ShapeFault::Groups));
        }
        let (pad_h, pad_w) = spatial(OP, opts, &i, (f[1], f[2]), &o)?;
        let (act_min, act_max) = activation_range_i8(OP, opts.activation, output)?;
        Ok(ConvParams {
            input_shape: i,
            filter_shape: f,
            output_shape: o,
            input_offset: -int8_zero_point(OP, input)?,
            output_offset: int8_zero_point(OP, output)?,
            stride_h: opts.stride_h,
            stride_w: opts.stride_w,
            dilation_h: opts.dilation_h,
            dilation_w: opts.dilation_w,
            pad_h,
            pad_w,
            depth_multiplier: 1,
            act_min,
            act_max,
        })
    }

    /// The number of output channels: the length of the per-channel tables.
    pub fn output_channels(&self) -> usize {
        self.output_shape[3]
    }

    // Not inlined: run once per invoke, it would otherwise change how the kernel's loops
    // are register-allocated (the plain plan's instructions rose 0.4% when it grew).
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    pub(crate) fn check<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
        &self,
        op: &'static str,
        multipliers: &T,
        shifts: &T,
        input: usize,
        filter: &[W],
        bias: Option<&B>,
        output: usize,
    ) -> Result<(), KernelError> {
        check_tables(op, self, multipliers, shifts, filter, bias)?;
        check_nhwc_io(op, (&self.input_shape, input), (&self.output_shape, output))
    }
}

/// The taps of one spatial axis of a convolution window clipped to the input: the filter taps
/// `taps` whose input coordinate `o·stride − pad + f·dilation` lies inside the input, the first
/// of them at input coordinate `first` (shared with DEPTHWISE_CONV_2D).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taps {
    /// The filter taps inside the input.
    pub taps: core::ops::Range<usize>,
    /// The input coordinate of the first tap.
    pub first: usize,
    /// The distance between taps' input coordinates (the dilation).
    pub dilation: usize,
}

impl Taps {
    /// The taps of output position `o` along an axis of `size` inputs, a filter of `k` taps.
    fn new(o: usize, stride: usize, pad: usize, k: usize, dilation: usize, size: usize) -> Taps {
        let start = (o * stride) as isize - pad as isize;
        let (size, k, dil) = (size as isize, k as isize, dilation as isize);
        let (f_first, f_end) = if dil == 0 {
            // Every tap at `start`: all inside or none.
            (0, if start >= 0 && start < size { k } else { 0 })
        } else if size - 1 - start < 0 {
            (0, 0)
        } else {
            // The smallest f with start + f·dil ≥ 0; one past the largest with ≤ size − 1.
            let first = if start >= 0 {
                0
            } else {
                (-start + dil - 1) / dil
            };
            (first, ((size - 1 - start) / dil + 1).min(k))
        };
        if f_first >= f_end {
            return Taps {
                taps: 0..0,
                first: 0,
                dilation,
            };
        }
        Taps {
            taps: f_first as usize..f_end as usize,
            first: (start + f_first * dil) as usize,
            dilation,
        }
    }

    /// `(tap, input coordinate)` of every tap inside the input, ascending.
    #[inline(always)]
    pub fn iter(&self) -> impl Iterator<Item = (usize, usize)> {
        let (f0, x0, dil) = (self.taps.start, self.first, self.dilation);
        self.taps.clone().map(move |f| (f, x0 + (f - f0) * dil))
    }
}

impl ConvParams {
    /// The taps of output pixel `(oy, ox)` inside the input: rows and columns.
    #[inline]
    pub(crate) fn taps_at(&self, oy: usize, ox: usize) -> (Taps, Taps) {
        (self.taps_y(oy), self.taps_x(ox))
    }

    /// The window's rows at output row `oy` ([`Self::taps_at`]).
    #[inline(always)]
    pub(crate) fn taps_y(&self, oy: usize) -> Taps {
        let [_, in_h, _, _] = self.input_shape;
        let f_h = self.filter_shape[1];
        Taps::new(oy, self.stride_h, self.pad_h, f_h, self.dilation_h, in_h)
    }

    /// The window's columns at output column `ox` ([`Self::taps_at`]).
    #[inline(always)]
    pub(crate) fn taps_x(&self, ox: usize) -> Taps {
        let [_, _, in_w, _] = self.input_shape;
        let f_w = self.filter_shape[2];
        Taps::new(ox, self.stride_w, self.pad_w, f_w, self.dilation_w, in_w)
    }
}

/// `acc` plus the products of the weights `ws` with the inputs `xs` offset by `input_offset`,
/// wrapping (shared with DEPTHWISE_CONV_2D).
#[inline(always)]
pub(crate) fn dot<X: Int8, W: Int8>(acc: i32, xs: &[X], ws: &[W], input_offset: i32) -> i32 {
    let mac = |acc: i32, (&x, &w): (&X, &W)| {
        acc.wrapping_add(w.value().wrapping_mul(x.value() + input_offset))
    };
    // Four products a step (in order), then the rest.
    let n = xs.len().min(ws.len());
    let (xs, ws) = (&xs[..n], &ws[..n]);
    let (x4, w4) = (xs.chunks_exact(4), ws.chunks_exact(4));
    let (xr, wr) = (x4.remainder(), w4.remainder());
    let acc = x4
        .zip(w4)
        .fold(acc, |acc, (x, w)| x.iter().zip(w).fold(acc, mac));
    xr.iter().zip(wr).fold(acc, mac)
}

/// The output value of an accumulator (shared with DEPTHWISE_CONV_2D): `max` then `min`,
/// as TFLM clamps (never a panic, whatever the bounds).
#[inline]
pub(crate) fn requantize(acc: i32, multiplier: i32, shift: i32, p: &ConvParams) -> i8 {
    let v = multiply_by_quantized_multiplier(acc, multiplier, shift).wrapping_add(p.output_offset);
    v.max(p.act_min).min(p.act_max) as i8
}

/// Whether each of the `n` output channels has a [`RightRequantizer`] for its accumulators,
/// `taps` products a channel plus its bias ([`RightRequantizer::for_accumulator`]; shared
/// with DEPTHWISE_CONV_2D): its kernels then build one per channel without checks.
pub(crate) fn right_requantized<B: Int32s + ?Sized, T: Int32s + ?Sized>(
    multipliers: &T,
    shifts: &T,
    bias: Option<&B>,
    n: usize,
    taps: usize,
) -> bool {
    multipliers.count() >= n
        && shifts.count() >= n
        && bias.is_none_or(|b| b.count() >= n)
        && (0..n).all(|c| {
            let b = bias.map_or(0, |b| b.at(c));
            RightRequantizer::for_accumulator(multipliers.at(c), shifts.at(c), b, taps).is_some()
        })
}

/// The output values of the accumulators of channels `c .. c + n` (`n` of [`LANES`]; shared
/// with DEPTHWISE_CONV_2D): bias added, [`requantize`]d. A whole chunk reads its four biases
/// and table entries with one bounds check each.
#[inline(always)]
pub(crate) fn requantize_chunk<B: Int32s + ?Sized, T: Int32s + ?Sized>(
    acc: [i32; LANES],
    c: usize,
    n: usize,
    bias: Option<&B>,
    multipliers: &T,
    shifts: &T,
    p: &ConvParams,
) -> [i8; LANES] {
    let mut out = [0i8; LANES];
    if n == LANES {
        let b = bias.map_or([0; LANES], |b| b.at4(c));
        let (m, s) = (multipliers.at4(c), shifts.at4(c));
        for j in 0..LANES {
            out[j] = requantize(acc[j].wrapping_add(b[j]), m[j], s[j], p);
        }
    } else {
        for (j, (o, &acc)) in out.iter_mut().zip(&acc[..n]).enumerate() {
            let b = bias.map_or(0, |b| b.at(c + j));
            *o = requantize(
                acc.wrapping_add(b),
                multipliers.at(c + j),
                shifts.at(c + j),
                p,
            );
        }
    }
    out
}

/// CONV_2D, int8 (`ConvPerChannel`): `multipliers`/`shifts` hold one entry per output channel.
/// Input and output as `i8` or as their bytes (what the interpreter passes: one copy of the
/// kernel for its plain and overlapped runs). The output channels of a pixel are computed
/// `LANES` at a time (`Filters`), each input value read once for all of them. `scratch`
/// holds at least [`conv2d_scratch_bytes`] bytes.
// Inlined into the interpreter's `run_kernel`: one frame under the pixel loop, not two.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn conv2d<X: Int8, O: Int8Out, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    input: &[X],
    filter: &[W],
    bias: Option<&B>,
    output: &mut [O],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    conv2d_linked::<AllOps, X, O, W, B, T>(
        p,
        multipliers,
        shifts,
        input,
        filter,
        bias,
        output,
        scratch,
    )
}

/// [`conv2d`] in an image that links only the paths of `L` ([`OpSet::PATHS`]): parameters of
/// a path not linked are refused ([`Unsupported::NotLinked`]).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn conv2d_linked<
    L: OpSet,
    X: Int8,
    O: Int8Out,
    W: Int8,
    B: Int32s + ?Sized,
    T: Int32s + ?Sized,
>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    input: &[X],
    filter: &[W],
    bias: Option<&B>,
    output: &mut [O],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    linked::<L>("CONV_2D", conv_paths(p))?;
    p.check(
        "CONV_2D",
        multipliers,
        shifts,
        input.len(),
        filter,
        bias,
        output.len(),
    )?;
    run_plain(
        &Filters::<_, _, _, L>::new(p, multipliers, shifts, filter, bias),
        input,
        output,
        scratch,
    )
}

/// CONV_2D's path ([`paths`]) for `p`: its filter's kind, whatever the ISA.
pub(crate) fn conv_paths(p: &ConvParams) -> u64 {
    match filter_kind(p) {
        (true, _) if p.input_shape[3] <= MAX_WINDOW => paths::CONV_POINTWISE,
        (true, _) => paths::CONV_POINTWISE_DEEP,
        (false, true) => paths::CONV_GATHERED,
        (false, false) => paths::CONV_GENERAL,
    }
}

/// A convolution whose output channels are computed in chunks of up to [`BLOCK`] (CONV_2D's
/// `Filters`, DEPTHWISE_CONV_2D's `Channels`): what the one pixel loop of the plain
/// ([`run_plain`]) and the overlapped ([`run_overlapped`]) kernels asks of it.
pub(crate) trait Lanes {
    /// One chunk of a pixel's output channels.
    type Chunk: Copy;
    /// The operator's name (errors).
    const OP: &'static str;
    /// What a chunk gathers of its window (kept across pixels, taken once a call from the
    /// operator's scratch block).
    type Window<'s>;
    /// The pixel loop's temporaries from `scratch` (as the kernel's buffer-size function
    /// sized them), zeroed; `None` if the block cannot hold them.
    fn temps<'s>(&self, scratch: &mut Scratch<'s>) -> Option<Temps<'s, Self::Window<'s>>>;
    /// The parameters.
    fn params(&self) -> &ConvParams;
    /// Whether the image links the pixel loop for these lanes (false: every parameters its
    /// paths let in run [`Lanes::whole`]).
    #[inline(always)]
    fn pixels_linked() -> bool {
        true
    }
    /// Calls `f(chunk, first channel, channels)` on the chunks of one pixel, together each
    /// output channel once, in `dir` order.
    fn pixel(&self, dir: Direction, f: impl FnMut(Self::Chunk, usize, usize));
    /// Writes the output values of `chunk` (as many as `out` holds: at most [`BLOCK`]) of the
    /// pixel whose window is `ys` × `xs`, the batch's input at `x[x_b]` (`win`: the loop's
    /// gathered window, for the kernels that gather one).
    #[allow(clippy::too_many_arguments)]
    fn chunk<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        c: Self::Chunk,
        out: &mut [i8],
        win: &mut Self::Window<'_>,
    );
    /// Gathers into `win`, before a pixel's chunks, what they all read of its window, when
    /// the kernel does (CONV_2D's [`Filters::gather1`]); by default nothing.
    #[inline(always)]
    fn gather1<X: Int8>(
        &self,
        _x: &[X],
        _x_b: usize,
        _ys: &Taps,
        _xs: &Taps,
        _win: &mut Self::Window<'_>,
    ) {
    }
    /// Runs the whole operator another way when the kernel has one for its parameters (the
    /// depthwise row kernel), with [`each_pixel`]'s `input` and `write` and its rule: every
    /// batch of outputs is written after all of its reads, the batches in `dir` order of
    /// their pixels. False: the pixel loop runs.
    #[inline(always)]
    fn whole<X: Int8, S: ?Sized>(
        &self,
        _dir: Direction,
        _scratch: &mut Scratch<'_>,
        _s: &mut S,
        _input: &impl Fn(&S) -> &[X],
        _write: &mut impl FnMut(&mut S, usize, &[i8]),
    ) -> Result<bool, KernelError> {
        Ok(false)
    }
    /// Whether the pixel loop takes two pixels at a time: all that both read gathered at
    /// once ([`Lanes::gather2`]), then their outputs a block of channels at a time
    /// ([`Lanes::outputs2`]).
    #[inline(always)]
    fn pairs(&self) -> bool {
        false
    }
    /// Gathers into `win` every input value two pixels' outputs read, `a` and `b`, each given
    /// as its batch's input offset and window (only called when [`Lanes::pairs`]).
    fn gather2<X: Int8>(
        &self,
        _x: &[X],
        _a: (usize, &Taps, &Taps),
        _b: (usize, &Taps, &Taps),
        _win: &mut Self::Window<'_>,
    ) {
    }
    /// The output values of channels `oc ..` (`oa.len()` = `ob.len()` of them, at most
    /// half a [`BLOCK`]) of the two pixels [`Lanes::gather2`] gathered into `win` (only called when
    /// [`Lanes::pairs`]).
    fn outputs2(&self, _win: &Self::Window<'_>, _oc: usize, _oa: &mut [i8], _ob: &mut [i8]) {}
    /// Whether [`Lanes::gather2`] pads the windows to whole quads (DSP extension: a
    /// convolution whose taps are not whole words of input), their outputs then by
    /// [`Lanes::outputs2_padded`].
    #[cfg(synaptic_dsp)]
    #[inline(always)]
    fn padded(&self) -> bool {
        false
    }
    /// [`Lanes::outputs2`] of windows padded to whole quads ([`Lanes::padded`]).
    #[cfg(synaptic_dsp)]
    fn outputs2_padded(&self, win: &Self::Window<'_>, oc: usize, oa: &mut [i8], ob: &mut [i8]) {
        self.outputs2(win, oc, oa, ob)
    }
}

/// What a convolution's pixel loop keeps across pixels, taken once a call from the
/// operator's scratch block ([`Lanes::temps`]; none on the stack): a chunk's output values
/// ([`Temps::values`]: with [`Lanes::pairs`], half of them for each of two pixels) and what
/// its chunks gather of their windows.
pub(crate) struct Temps<'s, Wn> {
    values: &'s mut [i8],
    window: Wn,
}

impl<'s, Wn> Temps<'s, Wn> {
    /// The values for `p` (zeroed), then the window from `window`; `None` if `scratch` cannot
    /// hold them.
    #[inline(always)]
    pub(crate) fn take(
        scratch: &mut Scratch<'s>,
        p: &ConvParams,
        window: impl FnOnce(&mut Scratch<'s>) -> Option<Wn>,
    ) -> Option<Self> {
        let values = zeroed(scratch.take::<i8>(Self::values(p))?);
        Some(Temps {
            values,
            window: window(scratch)?,
        })
    }

    /// The output values of a chunk (at most [`BLOCK`], and at most a pixel's channels) or
    /// of two pixels' chunks (half each): `min(BLOCK, 2 · out_d)`.
    const fn values(p: &ConvParams) -> usize {
        let od = p.output_shape[3].saturating_mul(2);
        if od < BLOCK {
            od
        } else {
            BLOCK
        }
    }

    /// The scratch bytes of [`Temps::take`]'s values for `p` (the window's are its own).
    pub(crate) const fn bytes(p: &ConvParams) -> usize {
        Scratch::span::<i8>(Self::values(p))
    }
}

/// `v`, every element 0 (scratch holds an earlier operator's bytes: none is ever read).
#[inline(always)]
pub(crate) fn zeroed<T: Default + Copy>(v: &mut [T]) -> &mut [T] {
    v.fill(T::default());
    v
}

/// The pixel loop of both drivers: every output pixel in `dir` order, its chunks (or, with
/// [`Lanes::pairs`], two pixels at a time, the last alone) computed from `input(s)` and
/// written by `write(s, output index, values)`. Each chunk or pair reads before it writes,
/// and nothing is written between a pair's two pixels, so a read only ever comes earlier
/// and a write later than in the contract's one-element-a-step order.
#[inline(always)]
fn each_pixel<K: Lanes, X: Int8, S: ?Sized>(
    k: &K,
    dir: Direction,
    scratch: &mut Scratch<'_>,
    s: &mut S,
    input: impl Fn(&S) -> &[X],
    mut write: impl FnMut(&mut S, usize, &[i8]),
) -> Result<(), KernelError> {
    if k.whole(dir, scratch, s, &input, &mut write)? {
        return Ok(());
    }
    if !K::pixels_linked() {
        return Err(KernelError::unsupported(K::OP, Unsupported::NotLinked));
    }
    pixels(k, dir, scratch, s, input, write)
}

/// [`each_pixel`]'s loop. Not inlined: a kernel that runs whole another way
/// ([`Lanes::whole`]) has none of its frame under it.
#[inline(never)]
fn pixels<K: Lanes, X: Int8, S: ?Sized>(
    k: &K,
    dir: Direction,
    scratch: &mut Scratch<'_>,
    s: &mut S,
    input: impl Fn(&S) -> &[X],
    mut write: impl FnMut(&mut S, usize, &[i8]),
) -> Result<(), KernelError> {
    let p = k.params();
    let pixel = p.input_shape[1] * p.input_shape[2] * p.input_shape[3];
    let Some(mut t) = k.temps(scratch) else {
        return Err(KernelError::unsupported(K::OP, Unsupported::Scratch));
    };
    let pairs = k.pairs();
    let mut pending: Option<(usize, Taps, Taps, usize)> = None;
    // The window's rows, made once per output row.
    let mut row: (usize, Taps) = (0, p.taps_y(0));
    for_each_pixel(&p.output_shape, dir, |b, oy, ox, first| {
        if row.0 != oy {
            row = (oy, p.taps_y(oy));
        }
        // The row's taps by reference, the pending pixel's in place: no copies on the stack.
        let (ys, xs) = (&row.1, p.taps_x(ox));
        if pairs {
            match &pending {
                None => pending = Some((b * pixel, ys.clone(), xs, first)),
                Some((xa, ysa, xsa, fa)) => {
                    let ab = ((*xa, ysa, xsa), (b * pixel, ys, &xs));
                    pair(k, &mut t, s, &input, &mut write, ab, (*fa, Some(first)));
                    pending = None;
                }
            }
            return Ok(());
        }
        k.gather1(input(s), b * pixel, ys, &xs, &mut t.window);
        k.pixel(dir, |c, oc, n| {
            let v = &mut t.values[..n];
            k.chunk(input(s), b * pixel, ys, &xs, c, v, &mut t.window);
            write(s, first + oc, v);
        });
        Ok(())
    })?;
    // The last pixel of an odd count: a pair with itself, one of its outputs written (one
    // kernel for every pixel of a kernel that pairs them).
    if let Some((x_b, ys, xs, first)) = pending {
        let a = (x_b, &ys, &xs);
        pair(k, &mut t, s, &input, &mut write, (a, a), (first, None));
    }
    Ok(())
}

/// The pixels `a` and `b` of a kernel that takes them in pairs ([`Lanes::pairs`]): every
/// read of both ([`Lanes::gather2`]), then their outputs half a chunk's values at a time
/// ([`Lanes::outputs2`]), written at output index `at.0` for `a` and `at.1` for `b` (`None`:
/// `b`'s not written, a pixel paired with itself).
#[inline(always)]
fn pair<'s, K: Lanes, X: Int8, S: ?Sized>(
    k: &K,
    t: &mut Temps<'s, K::Window<'s>>,
    s: &mut S,
    input: &impl Fn(&S) -> &[X],
    write: &mut impl FnMut(&mut S, usize, &[i8]),
    (a, b): ((usize, &Taps, &Taps), (usize, &Taps, &Taps)),
    at: (usize, Option<usize>),
) {
    k.gather2(input(s), a, b, &mut t.window);
    // The outputs' function, chosen once a pair (one call site: its arguments set up once).
    #[cfg(synaptic_dsp)]
    let outputs2 = if k.padded() {
        K::outputs2_padded
    } else {
        K::outputs2
    };
    #[cfg(not(synaptic_dsp))]
    let outputs2 = K::outputs2;
    let od = k.params().output_shape[3];
    let half = t.values.len() / 2;
    let (va, vb) = t.values.split_at_mut(half);
    for oc in (0..od).step_by(half.max(1)) {
        let n = (od - oc).min(half);
        let (va, vb) = (&mut va[..n], &mut vb[..n]);
        outputs2(k, &t.window, oc, va, vb);
        write(s, at.0 + oc, va);
        if let Some(b_at) = at.1 {
            write(s, b_at + oc, vb);
        }
    }
}

/// Runs `k` from `input` into `output` (the plain kernel), pixels and chunks forward, its
/// temporaries (if it takes any: [`Lanes::whole`]) from `scratch`.
#[inline(always)]
pub(crate) fn run_plain<K: Lanes, X: Int8, O: Int8Out>(
    k: &K,
    input: &[X],
    output: &mut [O],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    each_pixel(
        k,
        Direction::Forward,
        scratch,
        &mut (input, output),
        |io| io.0,
        |io, at, v| put(&mut io.1[at..][..v.len()], v),
    )
}

/// Runs `k` with input and output in `buf` (the overlapped kernel, placement already
/// checked): each chunk's (or pair's) reads before any of its writes, the chunks and pixels
/// in `at.direction` ([`each_pixel`]). A read only ever comes earlier and a write later
/// than in the contract's one-element-a-step order, so every placement the contract
/// accepts stays safe.
#[inline(always)]
pub(crate) fn run_overlapped<K: Lanes>(
    k: &K,
    buf: &mut [u8],
    at: InPlace,
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    each_pixel(
        k,
        at.direction,
        scratch,
        buf,
        |b| &b[at.input..],
        |b, i, v| put(&mut b[at.output + i..][..v.len()], v),
    )
}

/// Writes the values `v` of a chunk or pair to `o` (one length): at most eight (a pixel of
/// few channels: micro_speech's eight) one by one, unrolled, not through a `memcpy` call
/// (some fifty instructions for eight bytes); more by the loop, on the DSP extension a word
/// at a time (M4 person_detect 19.36 M → 19.16 M instructions).
#[inline(always)]
fn put<O: Int8Out>(o: &mut [O], v: &[i8]) {
    if v.len() <= 8 {
        if let (Ok(d), Ok(s)) = (<&mut [O; 8]>::try_from(&mut *o), <&[i8; 8]>::try_from(v)) {
            // Exactly eight: whole, as a block.
            *d = s.map(O::from_i8);
            return;
        }
        for j in 0..8 {
            if let (Some(d), Some(&s)) = (o.get_mut(j), v.get(j)) {
                *d = O::from_i8(s);
            }
        }
    } else {
        // The DSP extension: the whole words by `dsp::copy_words`, the last bytes
        // one at a time.
        #[cfg(synaptic_dsp)]
        let (o, v) = {
            let done = dsp::copy_words(o, v);
            (&mut o[done..], &v[done.min(v.len())..])
        };
        for (d, &s) in o.iter_mut().zip(v) {
            *d = O::from_i8(s);
        }
    }
}

/// The filters of a CONV_2D: what every output pixel shares (tables, filter, groups).
pub(crate) struct Filters<'a, W, B: ?Sized, T: ?Sized, L> {
    /// The paths linked (`L::PATHS`: a test constant where the image links few).
    linked: PhantomData<L>,
    p: &'a ConvParams,
    multipliers: &'a T,
    shifts: &'a T,
    filter: &'a [W],
    bias: Option<&'a B>,
    /// Output channels per group.
    per_group: usize,
    /// A filter row's taps are one run of input bytes (no groups, no dilation across).
    rows: bool,
    /// A 1×1 filter without groups ([`Filters::pointwise`]).
    pointwise: bool,
    /// Every output channel has a [`RightRequantizer`] for its accumulators
    /// ([`RightRequantizer::for_accumulator`]): [`Filters::output`] takes the fast one.
    right: bool,
    /// [`Filters::right`] and the activation range all of int8 (no activation, or a ReLU at
    /// zero point −128): the clamp one saturation (`SSAT`), its bounds in no register (not
    /// on Armv6-M, which has no `SSAT`: its code as without).
    #[cfg(not(synaptic_v6m))]
    full: bool,
    /// [`Filters::full`] and [`staged`]: the pairs' windows padded to whole quads, their
    /// outputs by [`Lanes::outputs2_padded`].
    #[cfg(synaptic_dsp)]
    padded: bool,
    /// [`one_window`]: each pixel's window gathered once ([`Filters::gather_one`]).
    #[cfg(synaptic_dsp)]
    one: bool,
    /// [`staged`]: the pairs' windows staged ([`Filters::staged2`]; decided once a call, not
    /// a pixel pair).
    #[cfg(synaptic_dsp)]
    staged: bool,
    /// The taps a packed sum of the portable pair path takes before it is split
    /// ([`Gathered::span`]).
    #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
    span: usize,
}

/// Output channels a convolution computes together: four accumulators in registers.
pub(crate) const LANES: usize = 4;

impl<'a, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Filters<'a, W, B, T, L> {
    pub(crate) fn new(
        p: &'a ConvParams,
        multipliers: &'a T,
        shifts: &'a T,
        filter: &'a [W],
        bias: Option<&'a B>,
    ) -> Self {
        let [_, _, _, in_d] = p.input_shape;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let taps = f_h * f_w * f_d;
        let right = right_requantized(multipliers, shifts, bias, p.output_shape[3], taps);
        let (pointwise, _) = filter_kind(p);
        Filters {
            linked: PhantomData,
            p,
            multipliers,
            shifts,
            filter,
            bias,
            per_group: (p.output_shape[3] / (in_d / f_d.max(1)).max(1)).max(1),
            rows: f_d == in_d && p.dilation_w == 1,
            pointwise,
            right,
            #[cfg(not(synaptic_v6m))]
            full: right && p.act_min == -128 && p.act_max == 127,
            #[cfg(synaptic_dsp)]
            padded: right && p.act_min == -128 && p.act_max == 127 && staged(p),
            #[cfg(synaptic_dsp)]
            one: one_window(p),
            #[cfg(synaptic_dsp)]
            staged: staged(p),
            #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
            span: packed_span(p, filter),
        }
    }
}

/// The taps of `p`'s filter a packed sum of the portable pair path ([`Gathered`]) may take
/// before it is split: a whole filter when every filter's weights' magnitudes sum to less
/// than 2²² / 255 (its products with values within ±255 then sum to less than 2²² in
/// magnitude, checked once a call over the filter, only when it is longer than
/// [`PACKED_TAPS`] and the output has at least half as many pixels as it has taps: the
/// check costs about four instructions a weight, one pass saves about 55 a filter and pixel
/// pair), else [`PACKED_TAPS`].
#[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
fn packed_span<W: Int8>(p: &ConvParams, filter: &[W]) -> usize {
    let [_, f_h, f_w, f_d] = p.filter_shape;
    let k = f_h * f_w * f_d;
    let [n, o_h, o_w, _] = p.output_shape;
    let small = |f: &[W]| f.iter().map(|w| w.value().unsigned_abs()).sum::<u32>() < (1 << 22) / 255;
    if k > PACKED_TAPS
        && (n * o_h * o_w).saturating_mul(2) >= k
        && pairable(p)
        && filter.chunks(k).all(small)
    {
        k
    } else {
        PACKED_TAPS
    }
}

/// Whether `p`'s filter is 1×1 without groups ([`Filters::pointwise`]) and whether it is one
/// without groups of at most [`MAX_WINDOW`] weights (gathered, two pixels at a time:
/// [`Filters::gathered2`]).
fn filter_kind(p: &ConvParams) -> (bool, bool) {
    let [_, f_h, f_w, f_d] = p.filter_shape;
    let ungrouped = f_d == p.input_shape[3];
    (
        ungrouped && f_h == 1 && f_w == 1,
        ungrouped && f_h * f_w * f_d <= MAX_WINDOW,
    )
}

/// Whether the pixel loop may take `p`'s pixels two at a time on some ISA ([`Lanes::pairs`]:
/// on the DSP extension).
fn pairable(p: &ConvParams) -> bool {
    let (pointwise, gathered) = filter_kind(p);
    (pointwise && p.input_shape[3] <= MAX_WINDOW) || gathered
}

/// Whether the DSP extension's pair path stages `p`'s windows ([`Filters::staged2`]): a
/// gathered filter, not 1×1, whose taps are not whole words of input (an input depth not a
/// multiple of four: kws_ref_model's and pretrainedResnet_quant's first layers, one and
/// three channels), its rows runs of input (no dilation across). Its scratch holds both
/// windows' bytes as well, on every ISA (a program's pool fits any target's kernels).
#[cfg_attr(not(synaptic_dsp), allow(dead_code))]
fn staged(p: &ConvParams) -> bool {
    dsp_window(p) == DspWindow::Staged
}

/// The values of each window CONV_2D's pixel loop gathers for `p` ([`Gathered`]; 0: none):
/// a filter's weights when they are at most [`MAX_WINDOW`], else a 1×1 filter's input
/// channels when two pixels may be taken at a time.
fn gathered_values(p: &ConvParams) -> usize {
    let [_, f_h, f_w, f_d] = p.filter_shape;
    match filter_kind(p) {
        (_, true) => f_h * f_w * f_d,
        (true, false) if pairable(p) => p.input_shape[3],
        _ => 0,
    }
}

/// The scratch bytes [`conv2d`] and [`conv2d_in_place`] take for `p` (CMSIS-NN's
/// `arm_convolve_s8_get_buffer_size`): a chunk's output values and, with a filter of at most
/// 320 weights, the gathered windows of two pixels (the most any ISA's kernel takes: a
/// program's pool fits every target).
///
/// ```
/// use synaptic_run::math::{Activation, Padding, QuantParams};
/// use synaptic_run::ops::conv::conv_2d::{conv2d_scratch_bytes, ConvOptions, ConvParams};
/// let opts = ConvOptions {
///     padding: Padding::Same,
///     stride_h: 1,
///     stride_w: 1,
///     dilation_h: 1,
///     dilation_w: 1,
///     activation: Activation::None,
/// };
/// let q = QuantParams::new(0.5, 0);
/// let p = ConvParams::conv2d(&opts, &[1, 8, 8, 3], &[16, 3, 3, 3], &[1, 8, 8, 16], q, q)
///     .unwrap();
/// // Two pixels' 16 output values, two windows of 27 input values (16 B per four), and
/// // (three input channels: not whole words) both windows' bytes staged, 28 each.
/// assert_eq!(conv2d_scratch_bytes(&p), 32 + 112 + 64);
/// ```
pub fn conv2d_scratch_bytes(p: &ConvParams) -> usize {
    Temps::<()>::bytes(p) + Gathered::bytes(gathered_values(p)) + conv2d_dsp_bytes(p)
}

/// Whether the DSP extension's one-pixel loop gathers each of `p`'s windows once, offset, for
/// all its chunks of four filters ([`Filters::gather1`], then [`dsp::dot4_quads`]): a
/// filter without groups, not 1×1, of more weights than a pair of windows may take
/// ([`MAX_WINDOW`]: pretrainedResnet_quant's 3×3×64) and at most twice as many (its one
/// window, 2 B a value, then takes no more scratch than a pair of the largest paired
/// windows), its taps whole words of input (an input depth a multiple of four) and its rows
/// runs of input. Its scratch holds the window on every ISA.
#[cfg_attr(not(synaptic_dsp), allow(dead_code))]
fn one_window(p: &ConvParams) -> bool {
    dsp_window(p) == DspWindow::One
}

/// The part of [`conv2d_scratch_bytes`] only the DSP extension's kernel takes: both windows'
/// input bytes staged ([`staged`]) or one window gathered ([`one_window`]), or 0.
pub(crate) fn conv2d_dsp_bytes(p: &ConvParams) -> usize {
    let k = p.filter_shape[1..].iter().product::<usize>();
    match dsp_window(p) {
        // Both windows' bytes.
        DspWindow::Staged => Scratch::span::<u8>(k.div_ceil(4) * 8),
        // Two words a quad.
        DspWindow::One => Scratch::span::<u32>(k / 2),
        DspWindow::Pairs => 0,
    }
}

/// How the DSP extension's pixel loop gathers `p`'s windows beyond the pair path's own.
#[derive(PartialEq)]
enum DspWindow {
    /// As every ISA does (or not at all).
    Pairs,
    /// [`staged`].
    Staged,
    /// [`one_window`].
    One,
}

/// [`staged`] and [`one_window`]: a filter without groups, not 1×1, its rows runs of input
/// (no dilation across), of at most [`MAX_WINDOW`] weights whose taps are not whole words
/// of input (staged), or of up to twice as many whose taps are (one window).
fn dsp_window(p: &ConvParams) -> DspWindow {
    let [_, f_h, f_w, f_d] = p.filter_shape;
    let k = f_h * f_w * f_d;
    if f_d != p.input_shape[3] || f_h * f_w == 1 || p.dilation_w != 1 {
        DspWindow::Pairs
    } else if k <= MAX_WINDOW && f_d % 4 != 0 {
        DspWindow::Staged
    } else if k > MAX_WINDOW && k <= 2 * MAX_WINDOW && f_d % 4 == 0 {
        DspWindow::One
    } else {
        DspWindow::Pairs
    }
}

impl<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Lanes for Filters<'_, W, B, T, L> {
    /// Output channels `oc .. oc + n` of one group.
    type Chunk = (usize, usize);
    const OP: &'static str = "CONV_2D";
    type Window<'s> = Gathered<'s>;

    #[inline(always)]
    fn temps<'s>(&self, scratch: &mut Scratch<'s>) -> Option<Temps<'s, Gathered<'s>>> {
        Temps::take(scratch, self.p, |s| {
            #[cfg(synaptic_dsp)]
            let g = if one_window(self.p) {
                Gathered::take_one(s, self.p.filter_shape[1..].iter().product())
            } else {
                Gathered::take(s, gathered_values(self.p), staged(self.p))
            };
            #[cfg(not(synaptic_dsp))]
            let g = Gathered::take(s, gathered_values(self.p));
            #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
            let g = g.map(|g| Gathered {
                span: self.span,
                ..g
            });
            g
        })
    }

    fn params(&self) -> &ConvParams {
        self.p
    }

    /// A 1×1 filter without groups: blocks of up to [`BLOCK`] filters ([`Filters::pointwise`]);
    /// otherwise [`LANES`] channels of one group at a time, then one at a time (a filter of at
    /// most [`MAX_WINDOW`] weights never comes here: its pixels go in pairs).
    #[inline(always)]
    fn pixel(&self, dir: Direction, mut f: impl FnMut((usize, usize), usize, usize)) {
        let out_d = self.p.output_shape[3];
        if self.pointwise {
            for k in ordered(out_d.div_ceil(BLOCK), dir) {
                let oc = k * BLOCK;
                let n = (out_d - oc).min(BLOCK);
                f((oc, n), oc, n)
            }
            return;
        }
        let groups = out_d / self.per_group;
        for g in ordered(groups, dir) {
            let base = g * self.per_group;
            lane_chunks(self.per_group, LANES, dir, |j, n| {
                f((base + j, n), base + j, n)
            });
        }
    }

    /// A 1×1 filter without groups over at most [`MAX_WINDOW`] input channels, or another
    /// filter without groups of at most [`MAX_WINDOW`] weights: two pixels at a time
    /// ([`Filters::pointwise2`], [`Filters::gathered2`], then [`Lanes::outputs2`]), on every
    /// ISA: two filters over two pixels read each input value and weight once for four
    /// products ([`Gathered::pair_dot2`]; M3: kws_ref_model 16.6 → 15.1 M instructions).
    /// Not on Armv6-M (no `MLA`, the smallest flash: the pair paths are not linked there; its
    /// filters take the general path), but in its unit tests.
    #[inline(always)]
    fn pairs(&self) -> bool {
        if !has::<L>(SINGLE_PATHS) {
            // Only pair paths linked (so only their parameters come here).
            return true;
        }
        has::<L>(PAIR_PATHS) && pairable(self.p) && !NO_PAIRS
    }

    fn gather2<X: Int8>(
        &self,
        x: &[X],
        a: (usize, &Taps, &Taps),
        b: (usize, &Taps, &Taps),
        win: &mut Gathered<'_>,
    ) {
        if pick::<L>(self.pointwise, paths::CONV_POINTWISE, paths::CONV_GATHERED) {
            self.pointwise2(x, a, b, win)
        } else {
            self.gathered2(x, a, b, win)
        }
    }

    /// A filter at a time over both windows ([`Gathered::pair_dot1`]: each word of weights
    /// read once, and split once on the DSP extension, for both pixels), its bias and
    /// requantization shared. Not inlined: its registers its own.
    #[inline(never)]
    fn outputs2(&self, win: &Gathered<'_>, oc: usize, oa: &mut [i8], ob: &mut [i8]) {
        // The DSP extension's fast path takes the pairs of filters of whole quads; the rest
        // (none, or a last filter) and every other case the general path below.
        #[cfg(synaptic_dsp)]
        let (oc, oa, ob) = {
            let [_, f_h, f_w, f_d] = self.p.filter_shape;
            if self.full && (f_h * f_w * f_d) % 4 == 0 && win.k % 4 == 0 {
                let done = self.outputs2_right::<true, false>(win, oc, oa, ob);
                (oc + done, &mut oa[done..], &mut ob[done..])
            } else {
                (oc, oa, ob)
            }
        };
        // The Cortex-M3: the pairs of filters with each channel's requantizer made once for
        // both pixels and the clamp chosen once a call; the rest (a last filter) below.
        #[cfg(synaptic_mla)]
        let (oc, oa, ob) = if self.right {
            let done = if self.full {
                self.outputs2_right::<true, false>(win, oc, oa, ob)
            } else {
                self.outputs2_right::<false, false>(win, oc, oa, ob)
            };
            if done == oa.len() {
                return;
            }
            (oc + done, &mut oa[done..], &mut ob[done..])
        } else {
            (oc, oa, ob)
        };
        let [_, f_h, f_w, f_d] = self.p.filter_shape;
        let k = (f_h * f_w * f_d).max(1);
        let ws = &self.filter[oc * k..][..oa.len() * k];
        let acc_of = |c: usize| self.bias.map_or(0, |b| b.at(c));
        // Two filters at a time ([`Gathered::pair_dot2`]), then the last one alone.
        let mut c = oc;
        let (mut pa, mut pb) = (oa.chunks_exact_mut(2), ob.chunks_exact_mut(2));
        for ((w, o), q) in ws.chunks_exact(2 * k).zip(&mut pa).zip(&mut pb) {
            let (w0, w1) = w.split_at(k);
            // Portable: the pair's biases, multipliers and shifts read with one bounds check a
            // table (measured slower on the DSP extension's build: there as before).
            #[cfg(not(synaptic_dsp))]
            {
                let [c0, c1] = self.bias.map_or([0; 2], |b| b.at2(c));
                let [a0, b0, a1, b1] = win.pair_dot2([c0, c0, c1, c1], w0, w1);
                let ([m0, m1], [s0, s1]) = (self.multipliers.at2(c), self.shifts.at2(c));
                o[0] = self.output_by(a0, m0, s0);
                q[0] = self.output_by(b0, m0, s0);
                o[1] = self.output_by(a1, m1, s1);
                q[1] = self.output_by(b1, m1, s1);
            }
            #[cfg(synaptic_dsp)]
            {
                let (c0, c1) = (acc_of(c), acc_of(c + 1));
                let [a0, b0, a1, b1] = win.pair_dot2([c0, c0, c1, c1], w0, w1);
                o[0] = self.output(a0, c);
                q[0] = self.output(b0, c);
                o[1] = self.output(a1, c + 1);
                q[1] = self.output(b1, c + 1);
            }
            c += 2;
        }
        if let ([o], [q]) = (pa.into_remainder(), pb.into_remainder()) {
            let b0 = acc_of(c);
            let (a0, c0) = win.pair_dot1((b0, b0), &ws[ws.len() - k..]);
            *o = self.output(a0, c);
            *q = self.output(c0, c);
        }
    }

    #[cfg(synaptic_dsp)]
    #[inline(always)]
    fn padded(&self) -> bool {
        // Staged windows: a gathered filter's.
        self.padded && has::<L>(paths::CONV_GATHERED)
    }

    /// [`Lanes::outputs2`] of a staged window ([`Filters::staged2`], `win.k` whole quads):
    /// its pairs of filters by [`Filters::outputs2_right`], the rest (those whose padded
    /// weights would pass the tensor's end, a last filter) by [`Lanes::outputs2`]. Apart:
    /// none of its code in the usual pairs' frame.
    #[cfg(synaptic_dsp)]
    #[inline(never)]
    fn outputs2_padded(&self, win: &Gathered<'_>, oc: usize, oa: &mut [i8], ob: &mut [i8]) {
        let k = self.p.filter_shape[1..].iter().product::<usize>();
        let done = if win.k == k.div_ceil(4) * 4 {
            self.outputs2_right::<true, true>(win, oc, oa, ob)
        } else {
            0
        };
        if done < oa.len() {
            self.outputs2(win, oc + done, &mut oa[done..], &mut ob[done..]);
        }
    }

    /// [`one_window`] on the DSP extension: the pixel's window, offset, in `win` (one run of
    /// whole words a window row, 0 at the taps outside the input, which TFLM skips).
    #[cfg(synaptic_dsp)]
    #[inline(always)]
    fn gather1<X: Int8>(&self, x: &[X], x_b: usize, ys: &Taps, xs: &Taps, win: &mut Gathered<'_>) {
        // One window: a general filter's.
        if self.one && has::<L>(paths::CONV_GENERAL) {
            self.gather_one(x, x_b, ys, xs, win);
        }
    }

    // Not inlined: one copy for the plain and the overlapped kernel, and the call's fresh
    // registers beat the inlined loop's spills (M4: pretrainedResnet_quant 49.1 M → 47.8 M
    // instructions, 7.6 KB less flash).
    #[inline(never)]
    fn chunk<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        (oc, n): (usize, usize),
        out: &mut [i8],
        _win: &mut Self::Window<'_>,
    ) {
        // The 1×1 filters whose pixels go one at a time, or the others'.
        if pick::<L>(
            self.pointwise,
            SINGLE_POINTWISE,
            SINGLE_PATHS & !SINGLE_POINTWISE,
        ) {
            return self.pointwise(x, x_b, ys, xs, oc, out);
        }
        // The pixel's window gathered once ([`Filters::gather_one`]): four filters in one
        // block.
        #[cfg(synaptic_dsp)]
        if self.one && n == LANES && has::<L>(paths::CONV_GENERAL) {
            let k: usize = self.p.filter_shape[1..].iter().product();
            if _win.k == k {
                let acc = dsp::dot4_quads([0; LANES], _win.v, &self.filter[oc * k..], k, k / 4);
                let v =
                    requantize_chunk(acc, oc, n, self.bias, self.multipliers, self.shifts, self.p);
                for (o, v) in out.iter_mut().zip(v) {
                    *o = v;
                }
                return;
            }
        }
        let v = self.lanes(x, x_b, ys, xs, oc, n);
        for (o, v) in out.iter_mut().zip(v) {
            *o = v;
        }
    }
}

/// Output channels of one pixel a convolution computes in one call ([`Filters::block`];
/// DEPTHWISE_CONV_2D's blocks too): their values on the stack.
pub(crate) const BLOCK: usize = 64;

/// Armv6-M outside tests: every filter's pixels one at a time ([`Lanes::pairs`]).
const NO_PAIRS: bool = cfg!(synaptic_v6m) && !cfg!(test);

/// The paths ([`paths`]) whose pixels go in pairs on this target.
const PAIR_PATHS: u64 = if NO_PAIRS {
    0
} else {
    paths::CONV_POINTWISE | paths::CONV_GATHERED
};

/// The paths whose pixels go one at a time on this target.
const SINGLE_PATHS: u64 = paths::CONV_POINTWISE_DEEP
    | paths::CONV_GENERAL
    | if NO_PAIRS {
        paths::CONV_POINTWISE | paths::CONV_GATHERED
    } else {
        0
    };

/// The 1×1 paths among [`SINGLE_PATHS`] ([`Filters::pointwise`]'s).
const SINGLE_POINTWISE: u64 =
    paths::CONV_POINTWISE_DEEP | if NO_PAIRS { paths::CONV_POINTWISE } else { 0 };

impl<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Filters<'_, W, B, T, L> {
    /// The output value of channel `c` whose accumulator (bias added) is `acc`,
    /// [`requantize`]d; when [`Filters::right`], by the channel's [`RightRequantizer`], the
    /// same value in a shorter sequence (a branch the same way for the whole operator: one
    /// copy of each kernel, not one for each way).
    #[inline(always)]
    fn output(&self, acc: i32, c: usize) -> i8 {
        self.output_by(acc, self.multipliers.at(c), self.shifts.at(c))
    }

    /// [`Filters::output`] of a channel whose multiplier and shift are `m` and `s`.
    #[inline(always)]
    fn output_by(&self, acc: i32, m: i32, s: i32) -> i8 {
        let p = self.p;
        if self.right {
            let v = RightRequantizer::new_checked(m, s)
                .apply(acc)
                .wrapping_add(p.output_offset);
            #[cfg(not(synaptic_v6m))]
            if self.full {
                return v.clamp(-128, 127) as i8;
            }
            v.max(p.act_min).min(p.act_max) as i8
        } else {
            requantize(acc, m, s, p)
        }
    }

    /// [`Lanes::outputs2`]'s pairs of filters when [`Filters::right`] and the window is whole
    /// quads (DSP extension): each channel's [`RightRequantizer`] made once for both pixels,
    /// the activation's clamp (`FULL`: all of int8, one `SSAT`) chosen once a call, not at
    /// every output; the same values as [`Filters::output`]. A window padded to whole quads
    /// (`win.k` past the filter's `k` weights, its values there 0) reads each filter's
    /// weights to `win.k`, the next filter's first (times 0): every pair but one whose last
    /// filter ends the tensor. Returns the channels written (the last of an odd count, and
    /// such a pair, are left to the general path).
    #[cfg(any(synaptic_dsp, synaptic_mla))]
    #[inline(always)]
    fn outputs2_right<const FULL: bool, const PAD: bool>(
        &self,
        win: &Gathered<'_>,
        oc: usize,
        oa: &mut [i8],
        ob: &mut [i8],
    ) -> usize {
        let p = self.p;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let k = (f_h * f_w * f_d).max(1);
        let (off, lo, hi) = (p.output_offset, p.act_min, p.act_max);
        let fin = |r: &RightRequantizer, a: i32| -> i8 {
            let v = r.apply(a).wrapping_add(off);
            if FULL {
                v.clamp(-128, 127) as i8
            } else {
                v.max(lo).min(hi) as i8
            }
        };
        let rq =
            |c: usize| RightRequantizer::new_checked(self.multipliers.at(c), self.shifts.at(c));
        let put = |[a0, b0, a1, b1]: [i32; 4], o: &mut [i8], q: &mut [i8], c: usize| {
            if FULL {
                // The whole int8 range: each channel's pair in assembly (`requant::requant2`).
                let (m, s) = (self.multipliers, self.shifts);
                let (v0, w0) = crate::ops::conv::requant::requant2(a0, b0, m.at(c), s.at(c), off);
                let (v1, w1) =
                    crate::ops::conv::requant::requant2(a1, b1, m.at(c + 1), s.at(c + 1), off);
                (o[0], q[0], o[1], q[1]) = (v0 as i8, w0 as i8, v1 as i8, w1 as i8);
                return;
            }
            let (r0, r1) = (rq(c), rq(c + 1));
            o[0] = fin(&r0, a0);
            q[0] = fin(&r0, b0);
            o[1] = fin(&r1, a1);
            q[1] = fin(&r1, b1);
        };
        let mut pairs = oa.len().min(ob.len()) / 2;
        let mut c = oc;
        let (pa, pb) = (oa.chunks_exact_mut(2), ob.chunks_exact_mut(2));
        if PAD {
            // Pairs `c, c + 1` whose second filter's `win.k` weights are inside the tensor:
            // `(c + 1)·k + win.k ≤ len`, `c = oc + 2j`.
            let fit = (self.filter.len().saturating_sub(win.k) / k).saturating_sub(oc);
            pairs = pairs.min(fit.div_ceil(2));
            let end = oc * k + 2 * pairs * k + win.k.saturating_sub(k);
            let Some(ws) = self.filter.get(oc * k..end) else {
                return 0;
            };
            for ((j, o), q) in (0..pairs).zip(pa).zip(pb) {
                // From each filter's first weight on: the block reads `win.k` of each.
                let (w0, w1) = (&ws[2 * j * k..], &ws[(2 * j + 1) * k..]);
                let [c0, c1] = self.bias.map_or([0; 2], |b| b.at2(c));
                put(win.pair_dot2_quads([c0, c0, c1, c1], w0, w1), o, q, c);
                c += 2;
            }
            return 2 * pairs;
        }
        let ws = &self.filter[oc * k..][..2 * pairs * k];
        // The whole range with the record's tables: each pair's multipliers and shifts walked
        // with its weights (no index, no bounds check a pair); the loop below then serves the
        // padded windows and the narrower activations only (one copy of this path in flash).
        #[cfg(synaptic_dsp)]
        if FULL {
            let n = 2 * pairs;
            let ms = self.multipliers.words().and_then(|w| w.get(oc..oc + n));
            let ss = self.shifts.words().and_then(|w| w.get(oc..oc + n));
            if let (Some(ms), Some(ss)) = (ms, ss) {
                let rq = crate::ops::conv::requant::requant2;
                for ((((w, o), q), m), s) in ws
                    .chunks_exact(2 * k)
                    .zip(pa)
                    .zip(pb)
                    .zip(ms.chunks_exact(2))
                    .zip(ss.chunks_exact(2))
                {
                    let (w0, w1) = w.split_at(k);
                    let [c0, c1] = self.bias.map_or([0; 2], |b| b.at2(c));
                    let [a0, b0, a1, b1] = win.pair_dot2_quads([c0, c0, c1, c1], w0, w1);
                    let (v0, u0) = rq(a0, b0, m[0] as i32, s[0] as i32, off);
                    let (v1, u1) = rq(a1, b1, m[1] as i32, s[1] as i32, off);
                    (o[0], q[0], o[1], q[1]) = (v0 as i8, u0 as i8, v1 as i8, u1 as i8);
                    c += 2;
                }
                return 2 * pairs;
            }
            // Tables not the record's words (never, for the kernel's own): the general path.
            return 0;
        }
        for ((w, o), q) in ws.chunks_exact(2 * k).zip(pa).zip(pb) {
            let (w0, w1) = w.split_at(k);
            // The pair's biases: one bounds check.
            let [c0, c1] = self.bias.map_or([0; 2], |b| b.at2(c));
            put(win.pair_dot2_quads([c0, c0, c1, c1], w0, w1), o, q, c);
            c += 2;
        }
        2 * pairs
    }

    /// A 1×1 filter without groups: the output values of filters `oc ..` (`out.len()` of
    /// them) at the pixel whose input tap is `ys` × `xs` (none: padding), two filters at a
    /// time ([`dot2`]: each input word read once for both), the block's filters one run of
    /// weights walked a pair at a time (no bounds inside). Not inlined into the chunk: the
    /// general path's registers stay its own.
    #[inline(never)]
    fn pointwise<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        oc: usize,
        out: &mut [i8],
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let off = p.input_offset;
        let xr = if ys.taps.is_empty() || xs.taps.is_empty() {
            &x[..0]
        } else {
            &x[x_b + (ys.first * in_w + xs.first) * in_d..][..in_d]
        };
        let d = in_d.max(1);
        let ws = &self.filter[oc * d..][..out.len() * d];
        let acc_of = |c: usize| self.bias.map_or(0, |b| b.at(c));
        let mut c = oc;
        let mut outs = out.chunks_exact_mut(2);
        for (w, o) in ws.chunks_exact(2 * d).zip(&mut outs) {
            let (w0, w1) = w.split_at(d);
            let (a0, a1) = dot2(acc_of(c), acc_of(c + 1), xr, w0, w1, off);
            o[0] = self.output(a0, c);
            o[1] = self.output(a1, c + 1);
            c += 2;
        }
        if let [o] = outs.into_remainder() {
            let a = dot(acc_of(c), xr, &ws[ws.len() - d..], off);
            *o = self.output(a, c);
        }
    }

    /// A 1×1 filter without groups at two pixels: both pixels' inputs, offset, gathered into
    /// `win` (0 for a pixel in the padding, which has no input: its accumulators keep the
    /// bias, as [`Filters::pointwise`]'s). Not inlined: its registers its own.
    #[inline(never)]
    fn pointwise2<X: Int8>(
        &self,
        x: &[X],
        a: (usize, &Taps, &Taps),
        b: (usize, &Taps, &Taps),
        win: &mut Gathered<'_>,
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let run = |(x_b, ys, xs): (usize, &Taps, &Taps)| {
            (!ys.taps.is_empty() && !xs.taps.is_empty())
                .then(|| &x[x_b + (ys.first * in_w + xs.first) * in_d..][..in_d])
        };
        let (xa, xb) = (run(a), run(b));
        // Portable (not Armv6-M): both pixels' inputs packed in one pass.
        #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
        if let (Some(ra), Some(rb)) = (xa, xb) {
            win.begin_pair(in_d, true);
            win.set_both_runs(0, ra, rb, p.input_offset);
            return;
        }
        // The DSP extension: both pixels' whole quads in one block.
        #[cfg(synaptic_dsp)]
        if let (Some(ra), Some(rb)) = (xa, xb) {
            if win.set_both_quads(ra, rb, p.input_offset) {
                return;
            }
        }
        win.begin_pair(in_d, xa.is_some() && xb.is_some());
        for (q, xq) in [xa, xb].into_iter().enumerate() {
            if let Some(xq) = xq {
                win.set_pair_run(q, 0, xq, p.input_offset);
            }
        }
    }

    /// A filter without groups of at most [`MAX_WINDOW`] weights at two pixels: both
    /// windows' input values, offset, gathered into `win` (0 at the taps outside the input,
    /// which TFLM skips). Not inlined: its registers its own.
    #[inline(never)]
    fn gathered2<X: Int8>(
        &self,
        x: &[X],
        a: (usize, &Taps, &Taps),
        b: (usize, &Taps, &Taps),
        win: &mut Gathered<'_>,
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let k = f_h * f_w * f_d;
        let whole =
            |(_, ys, xs): (usize, &Taps, &Taps)| ys.taps.len() == f_h && xs.taps.len() == f_w;
        // Portable (not Armv6-M): two whole windows packed in one pass, a filter row one run
        // when its taps are adjacent inputs.
        #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
        if whole(a) && whole(b) {
            win.begin_pair(k, true);
            let ((xa_b, ysa, xsa), (xb_b, ysb, xsb)) = (a, b);
            let off = p.input_offset;
            for ((fy, ya), (_, yb)) in ysa.iter().zip(ysb.iter()) {
                if self.rows {
                    let n = f_w * f_d;
                    let ra = &x[xa_b + (ya * in_w + xsa.first) * in_d..][..n];
                    let rb = &x[xb_b + (yb * in_w + xsb.first) * in_d..][..n];
                    win.set_both_runs(fy * n, ra, rb, off);
                    continue;
                }
                for ((fx, xa), (_, xb)) in xsa.iter().zip(xsb.iter()) {
                    let ra = &x[xa_b + (ya * in_w + xa) * in_d..][..f_d];
                    let rb = &x[xb_b + (yb * in_w + xb) * in_d..][..f_d];
                    win.set_both_runs((fy * f_w + fx) * f_d, ra, rb, off);
                }
            }
            return;
        }
        #[cfg(synaptic_dsp)]
        if self.staged && self.staged2(x, a, b, win) {
            return;
        }
        // DSP: two whole windows whose rows are runs of whole words, a row of both in one
        // block ([`dsp::pair_quads`]; tap by tap, a quad at a time: some 9 instructions
        // a value, M4 pretrainedResnet_quant's 3×3×16).
        #[cfg(synaptic_dsp)]
        if self.rows && (f_w * f_d) % 4 == 0 && whole(a) && whole(b) && win.v.len() >= k {
            let ((xa_b, ysa, xsa), (xb_b, ysb, xsb)) = (a, b);
            let n = f_w * f_d;
            let pair = (p.input_offset as u32 & 0xffff) * 0x1_0001;
            for ((fy, ya), (_, yb)) in ysa.iter().zip(ysb.iter()) {
                let ra = &x[xa_b + (ya * in_w + xsa.first) * in_d..][..n];
                let rb = &x[xb_b + (yb * in_w + xsb.first) * in_d..][..n];
                dsp::pair_quads(&mut win.v[fy * n..], ra, rb, pair);
            }
            win.k = k;
            return;
        }
        win.begin_pair(k, whole(a) && whole(b));
        for (q, (x_b, ys, xs)) in [a, b].into_iter().enumerate() {
            for (fy, in_y) in ys.iter() {
                if self.rows {
                    // A row's taps inside the input: one run of input.
                    let n = xs.taps.len() * f_d;
                    let xt = &x[x_b + (in_y * in_w + xs.first) * in_d..][..n];
                    let at = (fy * f_w + xs.taps.start) * f_d;
                    win.set_pair_run(q, at, xt, p.input_offset);
                    continue;
                }
                for (fx, in_x) in xs.iter() {
                    let xt = &x[x_b + (in_y * in_w + in_x) * in_d..][..f_d];
                    win.set_pair_run(q, (fy * f_w + fx) * f_d, xt, p.input_offset);
                }
            }
        }
    }

    /// [`Filters::gathered2`] of a filter [`staged`] (its taps not whole words of input), on
    /// the DSP extension: each window's input bytes copied in the filter's order to `win`'s
    /// staging bytes, a row's taps inside the input one run (words, then the last bytes), the
    /// input zero point at every tap outside it and at a last part-quad's (0 once offset:
    /// what TFLM skips adds nothing), then both windows' quads in one block
    /// ([`dsp::pair_quads`]); the windows hold whole quads (`win.k` a multiple of
    /// four). Per value some 3 instructions, where one at a time into the quads' halfwords
    /// took some 40 (M4 pretrainedResnet_quant's first layer, three channels). `false`,
    /// nothing set, when not staged. Not inlined: its code once, apart from the usual
    /// gather's.
    #[cfg(synaptic_dsp)]
    #[inline(never)]
    fn staged2<X: Int8>(
        &self,
        x: &[X],
        a: (usize, &Taps, &Taps),
        b: (usize, &Taps, &Taps),
        win: &mut Gathered<'_>,
    ) -> bool {
        let p = self.p;
        let kq = p.filter_shape[1..].iter().product::<usize>().div_ceil(4) * 4;
        if !self.staged || win.stage.len() < 2 * kq || win.v.len() < kq {
            return false;
        }
        let (sa, sb) = win.stage.split_at_mut(kq);
        self.stage(x, a, sa);
        self.stage(x, b, &mut sb[..kq]);
        let pair = (p.input_offset as u32 & 0xffff) * 0x1_0001;
        let (sa, sb) = win.stage.split_at(kq);
        if !dsp::pair_quads(&mut win.v[..kq], sa, &sb[..kq], pair) {
            return false;
        }
        win.k = kq;
        true
    }

    /// [`Filters::staged2`]'s bytes of one window (`(x_b, ys, xs)`) in `s` (`⌈k/4⌉·4` of
    /// them). Not inlined: once for both windows.
    #[cfg(synaptic_dsp)]
    #[inline(never)]
    fn stage<X: Int8>(&self, x: &[X], (x_b, ys, xs): (usize, &Taps, &Taps), s: &mut [u8]) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let (k, row) = (f_h * f_w * f_d, f_w * f_d);
        // The byte whose offset value is 0: the zero point (int8, checked at load).
        let zp = p.input_offset.wrapping_neg() as u8;
        if ys.taps.len() == f_h && xs.taps.len() == f_w {
            s.get_mut(k..).unwrap_or_default().fill(zp);
        } else {
            s.fill(zp);
        }
        let (at, n) = (xs.taps.start * f_d, xs.taps.len() * f_d);
        for (fy, in_y) in ys.iter() {
            let (Some(src), Some(dst)) = (
                x.get(x_b + (in_y * in_w + xs.first) * in_d..)
                    .and_then(|r| r.get(..n)),
                s.get_mut(fy * row + at..).and_then(|r| r.get_mut(..n)),
            ) else {
                continue;
            };
            let done = dsp::copy_words(dst, src);
            for (d, s) in dst[done..].iter_mut().zip(&src[done..]).take(3) {
                *d = s.byte();
            }
        }
    }

    /// [`Lanes::gather1`] of a [`one_window`] filter: the window at `ys` × `xs` of the batch
    /// at `x[x_b]`, offset, into `win` (its rows one run each, whole words: the input depth
    /// a multiple of four), all 0 first unless the window is whole. Not inlined: once a
    /// pixel, its registers its own.
    #[cfg(synaptic_dsp)]
    #[inline(never)]
    fn gather_one<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        win: &mut Gathered<'_>,
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let k = f_h * f_w * f_d;
        if win.v.len() < k / 2 {
            win.k = 0;
            return;
        }
        if ys.taps.len() != f_h || xs.taps.len() != f_w {
            win.v[..k / 2].fill(0);
        }
        let (at, n) = (xs.taps.start * f_d, xs.taps.len() * f_d);
        for (fy, in_y) in ys.iter() {
            let xr = &x[x_b + (in_y * in_w + xs.first) * in_d..][..n];
            win.set_words(2, 0, fy * f_w * f_d + at, xr, p.input_offset);
        }
        win.k = k;
    }

    /// The output values of the `n` (1 or [`LANES`]) filters from `oc` of one group over the
    /// window's taps. Not inlined: its registers its own.
    #[inline(never)]
    fn lanes<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        oc: usize,
        n: usize,
    ) -> [i8; LANES] {
        let acc = if n == LANES {
            self.taps::<LANES, X>(x, x_b, ys, xs, oc)
        } else {
            let [a] = self.taps::<1, X>(x, x_b, ys, xs, oc);
            [a, 0, 0, 0]
        };
        requantize_chunk(acc, oc, n, self.bias, self.multipliers, self.shifts, self.p)
    }

    /// The accumulators of `N` output channels from `oc` (one group) over the window's taps.
    /// Wrapping sums: the products in any order give TFLM's accumulator exactly.
    #[inline(always)]
    fn taps<const N: usize, X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        oc: usize,
    ) -> [i32; N] {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let [_, f_h, f_w, f_d] = p.filter_shape;
        let stride = f_h * f_w * f_d;
        let group_base = (oc / self.per_group) * f_d;
        let mut acc = [0i32; N];
        for (fy, in_y) in ys.iter() {
            let x_row = x_b + in_y * in_w * in_d + group_base;
            let w_row = (oc * f_h + fy) * f_w * f_d;
            if self.rows {
                let n = xs.taps.len() * f_d;
                let xr = &x[x_row + xs.first * in_d..][..n];
                dots(
                    &mut acc,
                    xr,
                    self.filter,
                    w_row + xs.taps.start * f_d,
                    stride,
                    p.input_offset,
                );
            } else {
                for (fx, in_x) in xs.iter() {
                    let xr = &x[x_row + in_x * in_d..][..f_d];
                    dots(
                        &mut acc,
                        xr,
                        self.filter,
                        w_row + fx * f_d,
                        stride,
                        p.input_offset,
                    );
                }
            }
        }
        acc
    }
}

/// The most weights of a filter whose window CONV_2D gathers ([`Filters::gathered2`]), and the
/// most values of each of two windows it gathers together ([`Gathered::begin_pair`]); the
/// windows are the operator's scratch ([`Gathered::bytes`]: 4 B a value, both windows).
pub(crate) const MAX_WINDOW: usize = 320;

// A filter window's input values, offset, gathered for the dot products: one layout per ISA,
// each its own file ([`Gathered`]).
#[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
mod gathered;
#[cfg(synaptic_dsp)]
mod gathered_dsp;
#[cfg(all(not(synaptic_dsp), synaptic_v6m))]
mod gathered_v6m;
// The packed pair windows' dot products on the Thumb-2 cores without the DSP extension, in
// assembly (its own file, its `unsafe` there).
#[cfg(synaptic_mla)]
#[allow(unsafe_code)]
mod mla;
#[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
pub(crate) use gathered::Gathered;
#[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
use gathered::PACKED_TAPS;
#[cfg(synaptic_dsp)]
pub(crate) use gathered_dsp::Gathered;
#[cfg(all(not(synaptic_dsp), synaptic_v6m))]
pub(crate) use gathered_v6m::Gathered;

impl Gathered<'_> {
    /// The scratch bytes of [`Gathered::take`] for windows of `k` values, either ISA's
    /// layout (portable: `2k` values of 16 bits; DSP: `⌈k/4⌉` quads of four words): the
    /// same 16 B per four values, so a program's scratch pool fits the kernels of any target.
    pub(crate) const fn bytes(k: usize) -> usize {
        Scratch::span::<u32>(k.div_ceil(4).saturating_mul(4))
    }
}

/// Calls `f(j, n)` on `0..len` in chunks: `n = lanes` for the whole chunks, then `n = 1`;
/// ascending (`Forward`) or all descending (shared with DEPTHWISE_CONV_2D).
#[inline(always)]
pub(crate) fn lane_chunks(
    len: usize,
    lanes: usize,
    dir: Direction,
    mut f: impl FnMut(usize, usize),
) {
    let full = len / lanes * lanes;
    if dir == Direction::Forward {
        (0..full).step_by(lanes).for_each(|j| f(j, lanes));
        (full..len).for_each(|j| f(j, 1));
    } else {
        (full..len).rev().for_each(|j| f(j, 1));
        (0..full).step_by(lanes).rev().for_each(|j| f(j, lanes));
    }
}

/// `acc[j] += Σ (x[c] + offset) · w[w0 + j·stride + c]` over `c < x.len()`, for each of the `N`
/// filters ([`dot4`] for four, [`dot`] for one).
#[inline(always)]
fn dots<const N: usize, X: Int8, W: Int8>(
    acc: &mut [i32; N],
    x: &[X],
    w: &[W],
    w0: usize,
    stride: usize,
    offset: i32,
) {
    let n = x.len();
    if let Ok(a) = <&mut [i32; LANES]>::try_from(&mut acc[..]) {
        // Four filters (N is LANES: a constant test).
        let ws = [
            &w[w0..][..n],
            &w[w0 + stride..][..n],
            &w[w0 + 2 * stride..][..n],
            &w[w0 + 3 * stride..][..n],
        ];
        dot4(a, x, ws, offset);
    } else {
        for (j, a) in acc.iter_mut().enumerate() {
            *a = dot(*a, x, &w[w0 + j * stride..][..n], offset);
        }
    }
}

/// Four dot products sharing their input: `acc[j] += Σ (x[c] + offset) · w[j][c]` (portable:
/// each input read and offset once for the four filters).
#[cfg(not(synaptic_dsp))]
#[inline(always)]
fn dot4<X: Int8, W: Int8>(acc: &mut [i32; LANES], x: &[X], w: [&[W]; LANES], offset: i32) {
    dot4_scalar(acc, x, w, offset);
}

/// [`dot4`] one input at a time (the portable path; on the DSP extension, rows shorter than
/// two words, where the word loop's setup costs more than it saves).
#[inline(always)]
fn dot4_scalar<X: Int8, W: Int8>(acc: &mut [i32; LANES], x: &[X], w: [&[W]; LANES], offset: i32) {
    let n = x.len();
    let (w0, w1, w2, w3) = (&w[0][..n], &w[1][..n], &w[2][..n], &w[3][..n]);
    let [mut a0, mut a1, mut a2, mut a3] = *acc;
    for c in 0..n {
        let v = x[c].value() + offset;
        a0 = a0.wrapping_add(w0[c].value().wrapping_mul(v));
        a1 = a1.wrapping_add(w1[c].value().wrapping_mul(v));
        a2 = a2.wrapping_add(w2[c].value().wrapping_mul(v));
        a3 = a3.wrapping_add(w3[c].value().wrapping_mul(v));
    }
    *acc = [a0, a1, a2, a3];
}

/// [`dot4`] on the DSP extension, as two passes of two filters ([`dot2`]: what fits the
/// registers without spills).
#[cfg(synaptic_dsp)]
#[inline(always)]
fn dot4<X: Int8, W: Int8>(acc: &mut [i32; LANES], x: &[X], w: [&[W]; LANES], offset: i32) {
    if x.len() < 8 {
        return dot4_scalar(acc, x, w, offset);
    }
    let [a0, a1, a2, a3] = *acc;
    let (a0, a1) = dot2(a0, a1, x, w[0], w[1], offset);
    let (a2, a3) = dot2(a2, a3, x, w[2], w[3], offset);
    *acc = [a0, a1, a2, a3];
}

#[allow(clippy::too_many_arguments)]
pub(crate) fn check_tables<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    op: &'static str,
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
) -> Result<(), KernelError> {
    let channels = p.output_shape[3];
    KernelError::check_len(op, Operand::Multipliers, channels, multipliers.count())?;
    KernelError::check_len(op, Operand::Shifts, channels, shifts.count())?;
    KernelError::check_len(
        op,
        Operand::Filter,
        p.filter_shape.iter().product(),
        filter.len(),
    )?;
    if let Some(b) = bias {
        KernelError::check_len(op, Operand::Bias, channels, b.count())?;
    }
    Ok(())
}

/// CONV_2D ([`conv2d`]) with input and output in `buf`: the output channels of each pixel in
/// chunks (`Filters`), each chunk's window read before any of its outputs is written, the
/// chunks and pixels in `at.direction`. A read only ever comes earlier and a write later than
/// in the contract's one-element-a-step order, so every placement the contract accepts stays
/// safe. `scratch` holds at least [`conv2d_scratch_bytes`] bytes.
#[allow(clippy::too_many_arguments)]
pub fn conv2d_in_place<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    conv2d_in_place_linked::<AllOps, W, B, T>(
        p,
        multipliers,
        shifts,
        filter,
        bias,
        buf,
        at,
        scratch,
    )
}

/// [`conv2d_in_place`] with only the paths of `L`, as [`conv2d_linked`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn conv2d_in_place_linked<L: OpSet, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    const OP: &str = "CONV_2D";
    linked::<L>(OP, conv_paths(p))?;
    check_tables(OP, p, multipliers, shifts, filter, bias)?;
    check_window(OP, || contract(p, false), buf, &at)?;
    run_overlapped(
        &Filters::<_, _, _, L>::new(p, multipliers, shifts, filter, bias),
        buf,
        at,
        scratch,
    )
}

/// The sliding window of a prepared convolution: depthwise (`depthwise`: output channel `oc`
/// reads input channel `oc / multiplier`) or grouped.
pub fn window(p: &ConvParams, depthwise: bool) -> Window {
    let channels = if depthwise {
        Channels::Depthwise {
            multiplier: p.depth_multiplier,
        }
    } else {
        let depth = p.filter_shape[3];
        let groups = p.input_shape[3] / depth.max(1);
        Channels::Group {
            depth,
            filters_per_group: p.output_shape[3] / groups.max(1),
        }
    };
    Window {
        input: p.input_shape,
        output: p.output_shape,
        kernel: (p.filter_shape[1], p.filter_shape[2]),
        stride: (p.stride_h, p.stride_w),
        dilation: (p.dilation_h, p.dilation_w),
        pad: (p.pad_h, p.pad_w),
        channels,
    }
}

/// The access contract of a convolution (CONV_2D, or DEPTHWISE_CONV_2D with `depthwise`) for
/// its input 0: its window, forward or backward.
pub fn contract(p: &ConvParams, depthwise: bool) -> Contract {
    Contract {
        access: Access::Window(window(p, depthwise)),
        in_elems: p.input_shape.iter().product(),
        out_elems: p.output_shape.iter().product(),
        in_elem_bytes: 1,
        out_elem_bytes: 1,
        backward: true,
    }
}

/// How an operator of the family reads its options: its parameters from the input, filter and
/// output shapes and the input and output quantizations, checked (CONV_2D's [`conv2d_params`],
/// DEPTHWISE_CONV_2D's own).
pub(crate) type ParamsOf =
    fn(&Prep<'_, '_>, [&[usize]; 3], QuantParams, QuantParams) -> Result<ConvParams, LoadError>;

/// CONV_2D's [`ParamsOf`].
fn conv2d_params(
    cx: &Prep<'_, '_>,
    [xs, ws, os]: [&[usize]; 3],
    xq: QuantParams,
    oq: QuantParams,
) -> Result<ConvParams, LoadError> {
    let o = cx.op().conv2d_options()?;
    let c = ConvOptions {
        padding: cx.padding(o.padding)?,
        stride_w: o.stride_w.max(0) as usize,
        stride_h: o.stride_h.max(0) as usize,
        activation: cx.activation(o.fused_activation)?,
        dilation_w: o.dilation_w.max(0) as usize,
        dilation_h: o.dilation_h.max(0) as usize,
    };
    ConvParams::conv2d(&c, xs, ws, os, xq, oq).map_err(|e| cx.err(e))
}

/// Prepares an int8 operator of the family, its parameters by `params_of` and its program
/// constants by `constants` (CONV_2D and DEPTHWISE_CONV_2D share the tensors' checks and the
/// per-channel table).
pub(crate) fn prepare_conv<'m, K: Kernel<Params = ConvParams> + Kind>(
    cx: &Prep<'_, 'm>,
    params_of: ParamsOf,
    constants: impl FnOnce(&ConvParams) -> Result<Constants<'m>, LoadError>,
) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, w, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    cx.int8_activation(x, Operand::Input(0))?;
    cx.int8_activation(out, Operand::Output)?;
    if w.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(w, Operand::Filter)?;
    cx.quantized(&[x, out])?;
    // Read where it was returned (not moved out).
    let params = params_of(cx, [x.shape(), w.shape(), out.shape()], x.q, out.q);
    let p = match &params {
        Ok(p) => p,
        Err(e) => return Err(*e),
    };
    let channels = p.output_channels();
    let filter = cx.filter_scales(1, w, channels)?;
    cx.bias(2, channels)?;
    let table = Table::PerChannel {
        name: cx.name(),
        channels,
        input: x.q.scale,
        filter,
        output: out.q.scale,
    };
    let constants = constants(p)?;
    Prepared::with::<K>(cx, *p, table, constants)
}

/// Whether the operator's input is float32 and this build has the float kernels (the float
/// kernel then prepares it).
pub(crate) fn is_float(cx: &Prep<'_, '_>) -> bool {
    crate::ops::float::BUILT && cx.input_ty(0) == Some(TensorType::Float32)
}

/// Prepares a float32 operator of the family (DEPTHWISE_CONV_2D with `depthwise`), its
/// geometry by `params_of`: float activations, filter and bias (a hybrid model, int8 weights,
/// is refused as TFLM refuses it).
pub(crate) fn prepare_conv_f32(
    cx: &Prep<'_, '_>,
    depthwise: bool,
    params_of: ParamsOf,
) -> Result<ConvF32Params, LoadError> {
    cx.inputs(2, 3)?;
    let (x, w, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    cx.activation_of(x, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(out, Operand::Output, TensorType::Float32)?;
    if w.ty != TensorType::Float32 {
        return Err(cx.unsupported(Unsupported::Hybrid));
    }
    cx.constant(w, Operand::Filter)?;
    // The geometry checks of the int8 kernels, with a unit quantization (unused).
    let unit = QuantParams::new(1.0, 0);
    let conv = params_of(cx, [x.shape(), w.shape(), out.shape()], unit, unit)?;
    cx.bias_of(2, conv.output_channels(), TensorType::Float32)?;
    let activation = if depthwise {
        cx.op().depthwise_conv2d_options()?.fused_activation
    } else {
        cx.op().conv2d_options()?.fused_activation
    };
    Ok(ConvF32Params {
        conv,
        range: FloatRange::new(cx.activation(activation)?),
    })
}

/// A prepared float32 convolution (CONV_2D or DEPTHWISE_CONV_2D): the int8 kernels'
/// geometry (its offsets and clamp unused) and the float activation range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ConvF32Params {
    /// Shapes, strides, dilation, padding (and the depth multiplier).
    pub(crate) conv: ConvParams,
    /// The fused activation's output range.
    pub(crate) range: FloatRange,
}

/// Checks a float convolution's slices against its shapes (`filter`, `bias`: float bytes).
pub(crate) fn check_f32(
    op: &'static str,
    p: &ConvParams,
    input: &[f32],
    filter: &[u8],
    bias: Option<&[u8]>,
    output: &[f32],
) -> Result<(), KernelError> {
    KernelError::check_len(
        op,
        Operand::Input(0),
        p.input_shape.iter().product(),
        input.len(),
    )?;
    check_f32_tables(op, p, filter, bias)?;
    KernelError::check_len(
        op,
        Operand::Output,
        p.output_shape.iter().product(),
        output.len(),
    )
}

/// Checks a float convolution's filter and bias (float bytes) against its shapes.
pub(crate) fn check_f32_tables(
    op: &'static str,
    p: &ConvParams,
    filter: &[u8],
    bias: Option<&[u8]>,
) -> Result<(), KernelError> {
    KernelError::check_len(
        op,
        Operand::Filter,
        p.filter_shape.iter().product(),
        filter.len() / 4,
    )?;
    if let Some(b) = bias {
        KernelError::check_len(op, Operand::Bias, p.output_shape[3], b.len() / 4)?;
    }
    Ok(())
}

/// The access contract of a float32 convolution for its input 0: the int8 kernels' window
/// over 4-byte elements (the same loops, the same order).
pub fn contract_f32(p: &ConvParams, depthwise: bool) -> Contract {
    contract(p, depthwise).with_elem_bytes(4, 4)
}

/// CONV_2D, float32, as `reference_ops::Conv` (float) computes it: per output, `total = 0`,
/// `total += x · w` over the window's rows, columns (taps outside the input skipped, not
/// added as zeros) and the group's input channels in order, then `total + bias` (`+ 0`
/// without a bias), clamped.
#[inline(never)]
pub fn conv2d_f32(
    p: &ConvF32Params,
    input: &[f32],
    filter: &[u8],
    bias: Option<&[u8]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    let c = &p.conv;
    check_f32("CONV_2D", c, input, filter, bias, output)?;
    let [batches, _, _, in_d] = c.input_shape;
    let f_d = c.filter_shape[3];
    let [_, out_h, out_w, out_d] = c.output_shape;
    let filters_per_group = out_d / (in_d / f_d);
    for b in 0..batches {
        for oy in 0..out_h {
            for ox in 0..out_w {
                let (ys, xs) = c.taps_at(oy, ox);
                for oc in 0..out_d {
                    let group_base = (oc / filters_per_group) * f_d;
                    let mut total = 0.0f32;
                    for (fy, in_y) in ys.iter() {
                        for (fx, in_x) in xs.iter() {
                            let i0 = offset4(&c.input_shape, b, in_y, in_x, group_base);
                            let w0 = offset4(&c.filter_shape, oc, fy, fx, 0);
                            let ws = &filter[4 * w0..4 * (w0 + f_d)];
                            for (&x, w) in input[i0..i0 + f_d].iter().zip(ws.chunks_exact(4)) {
                                total += x * f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                            }
                        }
                    }
                    let bias_value = bias.map_or(0.0, |bs| LeF32(bs).at(oc));
                    output[offset4(&c.output_shape, b, oy, ox, oc)] =
                        p.range.apply(total + bias_value);
                }
            }
        }
    }
    Ok(())
}

/// CONV_2D, float32 ([`conv2d_f32`]) with input and output in `buf` (little-endian
/// floats): each output element computed in the plain kernel's order of operations, then
/// written, the elements in `at.direction` order.
pub fn conv2d_f32_in_place(
    p: &ConvF32Params,
    filter: &[u8],
    bias: Option<&[u8]>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "CONV_2D";
    let c = &p.conv;
    check_f32_tables(OP, c, filter, bias)?;
    check_window(OP, || contract_f32(c, false), buf, &at)?;
    let in_d = c.input_shape[3];
    let f_d = c.filter_shape[3];
    let out_d = c.output_shape[3];
    let filters_per_group = out_d / (in_d / f_d);
    let (filter, bias) = (LeF32(filter), bias.map(LeF32));
    for_each_pixel(&c.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = c.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let group_base = (oc / filters_per_group) * f_d;
            let mut total = 0.0f32;
            for (fy, in_y) in ys.iter() {
                for (fx, in_x) in xs.iter() {
                    let i0 = offset4(&c.input_shape, b, in_y, in_x, group_base);
                    let w0 = offset4(&c.filter_shape, oc, fy, fx, 0);
                    let xs = buf[at.input + 4 * i0..][..4 * f_d].chunks_exact(4);
                    let ws = filter.0[4 * w0..][..4 * f_d].chunks_exact(4);
                    for (x, w) in xs.zip(ws) {
                        let x = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                        total += x * f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    }
                }
            }
            let bias_value = bias.map_or(0.0, |bs| bs.at(oc));
            put32(
                buf,
                at.output,
                first + oc,
                p.range.apply(total + bias_value),
            );
        }
        Ok(())
    })
}

/// Prepares CONV_2D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if cx.input_ty(0) == Some(TensorType::Int16) {
        return super::conv_i16::prepare::<Conv2dI16>(cx, false, conv2d_params);
    }
    if is_float(cx) {
        return Prepared::of::<Conv2dF32>(cx, prepare_conv_f32(cx, false, conv2d_params)?);
    }
    if cx.input_ty(1) == Some(TensorType::Int4) {
        return super::conv_i4::prepare_i4::<Conv2dI4>(cx, conv2d_params);
    }
    prepare_conv::<Conv2d>(cx, conv2d_params, |_| Ok(Constants::None))
}

/// The CONV_2D kernel, int8.
pub struct Conv2d;

impl Kernel for Conv2d {
    const NAME: &'static str = "CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvParams;

    #[inline]
    fn run(p: &ConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        Self::run_linked::<AllOps>(p, io)
    }

    const PATHS: bool = true;

    fn paths(p: &ConvParams, _constants: bool) -> u64 {
        conv_paths(p)
    }

    #[inline]
    fn run_linked<L: OpSet>(
        p: &ConvParams,
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        // The input and output checked int8, passed as their bytes (see `conv2d`).
        io.i8(0)?;
        io.out_i8()?;
        let (x, w, bias) = (io.bytes(0), io.bytes(1), io.bias(2));
        let out = io.out.bytes_mut();
        conv2d_linked::<L, _, _, _, _, _>(p, m, s, x, w, bias.as_ref(), out, &mut io.scratch)
    }

    fn contract(p: &ConvParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p, false))
    }

    fn run_in_place(
        p: &ConvParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        Self::run_in_place_linked::<AllOps>(p, io)
    }

    fn run_in_place_linked<L: OpSet>(
        p: &ConvParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        let (w, bias) = (io.bytes(1), io.bias(2));
        let (buf, at) = (&mut *io.buf, io.at);
        conv2d_in_place_linked::<L, _, _, _>(p, m, s, w, bias.as_ref(), buf, at, &mut io.scratch)?;
        Ok(p.output_shape.iter().product())
    }

    const SCRATCH: bool = true;

    fn scratch_bytes(p: &ConvParams) -> usize {
        conv2d_scratch_bytes(p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(ConvParams {
    input_shape: [usize; 4],
    filter_shape: [usize; 4],
    output_shape: [usize; 4],
    input_offset: i32,
    output_offset: i32,
    stride_h: usize,
    stride_w: usize,
    dilation_h: usize,
    dilation_w: usize,
    pad_h: usize,
    pad_w: usize,
    depth_multiplier: usize,
    act_min: i32,
    act_max: i32,
});

/// The CONV_2D kernel, float32.
pub struct Conv2dF32;

impl Kernel for Conv2dF32 {
    const NAME: &'static str = "CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvF32Params;

    #[inline]
    fn run(p: &ConvF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, w) = (io.f32(0)?, io.bytes(1));
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        conv2d_f32(p, x, w, bias, io.out_f32()?)
    }

    fn contract(p: &ConvF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.conv, false))
    }

    fn run_in_place(
        p: &ConvF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        conv2d_f32_in_place(p, io.bytes(1), bias, io.buf, io.at)?;
        Ok(4 * p.conv.output_shape.iter().product::<usize>())
    }
}

crate::format::codec::words!(ConvF32Params {
    conv: ConvParams,
    range: FloatRange,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::{Gathered, MAX_WINDOW};
    use std::vec::Vec;
    use synaptic_mem::Scratch;

    /// The gathered pair's dot products equal the plain sums at the extremes of their
    /// terms (`|x + offset|` = 255 against weights of −128 and 127, every tap alike: the
    /// largest sums a packed accumulator holds) and on mixed values, over every length
    /// around the packed sums' split, with and without a part of either window set.
    #[test]
    fn pair_dots_are_the_plain_sums() {
        let mut block = std::vec![0u8; Gathered::bytes(MAX_WINDOW) + 16];
        let mut seed = 0x9e37_79b9u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for k in [1, 2, 5, 127, 128, 129, 255, 256, 257, 300, MAX_WINDOW] {
            for case in 0..15 {
                let offset = [-127, 128, 0][case % 3];
                let (xa, xb, w0, w1): (Vec<i8>, Vec<i8>, Vec<i8>, Vec<i8>) = match case / 3 {
                    0 => {
                        let x = if offset > 0 { 127 } else { -128 };
                        let v = std::vec![x; k];
                        (v.clone(), v, std::vec![-128; k], std::vec![127; k])
                    }
                    1 => {
                        let x = if offset > 0 { 127 } else { -128 };
                        (
                            std::vec![x; k],
                            std::vec![!x; k],
                            std::vec![127; k],
                            std::vec![-128; k],
                        )
                    }
                    // The most magnitude a whole filter of 320 taps may have for one pass.
                    4 => {
                        let x = if offset > 0 { 127 } else { -128 };
                        (
                            std::vec![x; k],
                            std::vec![!x; k],
                            std::vec![51; k],
                            std::vec![-51; k],
                        )
                    }
                    _ => {
                        let mut r = |_| next() as i8;
                        let v: [Vec<i8>; 4] =
                            core::array::from_fn(|_| (0..k).map(&mut r).collect());
                        let [a, b, c, d] = v;
                        (a, b, c, d)
                    }
                };
                // Window b set only from `from` when `case` is odd (the rest 0, as a tap
                // outside the input).
                let from = if case % 2 == 1 { k / 3 } else { 0 };
                let mut scratch = Scratch::new(&mut block);
                let mut g = Gathered::take(&mut scratch, MAX_WINDOW).unwrap();
                g.begin_pair(k, from == 0);
                g.set_pair_run(0, 0, &xa, offset);
                g.set_pair_run(1, from, &xb[from..], offset);
                let dot = |x: &[i8], w: &[i8], skip: usize| -> i32 {
                    x.iter()
                        .zip(w)
                        .skip(skip)
                        .map(|(&x, &w)| (i32::from(x) + offset) * i32::from(w))
                        .sum()
                };
                let want = [
                    7 + dot(&xa, &w0, 0),
                    -9 + dot(&xb, &w0, from),
                    11 + dot(&xa, &w1, 0),
                    dot(&xb, &w1, from),
                ];
                assert_eq!(
                    g.pair_dot2([7, -9, 11, 0], &w0, &w1),
                    want,
                    "k {k} case {case}"
                );
                assert_eq!(
                    g.pair_dot1((7, -9), &w0),
                    (want[0], want[1]),
                    "k {k} case {case}"
                );
                // One pass over the whole filter where its weights allow it (`packed_span`);
                // both windows set in one pass (`set_both_runs`) alike.
                #[cfg(all(not(synaptic_dsp), not(synaptic_v6m)))]
                {
                    if from == 0 {
                        g.begin_pair(k, true);
                        g.set_both_runs(0, &xa, &xb, offset);
                        assert_eq!(
                            g.pair_dot2([7, -9, 11, 0], &w0, &w1),
                            want,
                            "k {k} case {case}, both runs"
                        );
                    }
                    let small = |w: &[i8]| {
                        w.iter().map(|w| w.unsigned_abs() as u32).sum::<u32>() < (1 << 22) / 255
                    };
                    if small(&w0) && small(&w1) {
                        g.span = k;
                        assert_eq!(
                            g.pair_dot2([7, -9, 11, 0], &w0, &w1),
                            want,
                            "k {k} case {case}, one pass"
                        );
                    }
                }
            }
        }
    }
}
