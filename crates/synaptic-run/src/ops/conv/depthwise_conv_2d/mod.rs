//! DEPTHWISE_CONV_2D, int8 activations, int8 per-channel (or per-tensor) weights, int32
//! bias, any depth multiplier; and float32 ([`DepthwiseConv2dF32`]); int16 activations
//! ([`DepthwiseConv2dI16`], 16x8: [`crate::ops::conv::conv_i16`]).
//!
//! Mirrors `reference_integer_ops::DepthwiseConvPerChannel` with the preparation of
//! `micro/kernels/depthwise_conv_common.cc`; its parameters, window taps and output stage are
//! CONV_2D's ([`crate::ops::conv::conv_2d`]). With multiplier 1 or a multiple of four and output
//! channels in fours (every depthwise layer of person_detect and kws_ref_model), the output
//! goes a row segment at a time (`Channels::rows`): per group of four channels its weights
//! split once, its words of the window rows gathered once (the input's zero point outside
//! the input), each pixel's nine taps in registers, the requantization by
//! [`RightRequantizer`] (a 3×3 filter on the DSP extension: the group's row in one block,
//! `dsp::quad3x3_row`).
//! Otherwise the output pixels in the plain kernel's order, the channels in chunks (blocks
//! of a tap at a time, or four in registers). Overlapped: each segment's or chunk's reads
//! before its writes.

use synaptic_mem::Scratch;
use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::contract::Direction;
use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::math::{activation_range_i8, int8_zero_point, QuantParams, RightRequantizer};
use crate::ops::common::{nhwc, offset4, size, Int32s, Int8, Int8Out};
use crate::ops::conv::conv_2d::{
    check_f32, check_f32_tables, check_tables, contract, contract_f32, is_float, lane_chunks,
    prepare_conv, prepare_conv_f32, requantize, requantize_chunk, right_requantized,
    run_overlapped, run_plain, spatial, zeroed, ConvF32Params, ConvOptions, ConvParams, Lanes,
    Taps, Temps, BLOCK, LANES,
};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check_window, for_each_pixel, ordered, put32, x32, InPlace};
use crate::ops::paths::{has, linked, pick};
use crate::ops::tables::Constants;
use crate::ops::{
    paths, AllOps, Geometry, InPlaceOperands, Kernel, OpSet, Operands, Prep, Prepared,
};
use core::marker::PhantomData;

// The multiply-accumulate primitives, one file per ISA (the same names in each).
#[cfg(not(synaptic_dsp))]
mod mac;
#[cfg(synaptic_dsp)]
mod mac_dsp;
#[cfg(not(synaptic_dsp))]
use mac::*;

pub use super::conv_i16::DepthwiseConv2dI16;
pub use super::conv_i4::DepthwiseConv2dI4;
#[cfg(synaptic_dsp)]
use mac_dsp::*;

// The ISA variants: the DSP extension's loops in assembly, and the `MLA` loops of the
// Thumb-2 cores without it (each its own file, its `unsafe` there).
#[cfg(synaptic_dsp)]
#[allow(unsafe_code)]
mod dsp;
#[cfg(synaptic_mla)]
#[allow(unsafe_code)]
mod mla;
#[cfg(any(synaptic_dsp, synaptic_mla))]
#[allow(unsafe_code)]
mod thumb2;

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::DEPTHWISE_CONV_2D];

/// The options of a DEPTHWISE_CONV_2D (`DepthwiseConv2DOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DepthwiseOptions {
    /// The convolution options.
    pub conv: ConvOptions,
    /// `depth_multiplier`: output channels per input channel.
    pub depth_multiplier: usize,
}

impl ConvParams {
    /// Prepares a DEPTHWISE_CONV_2D: filter `[1, kh, kw, in_c * depth_multiplier]`.
    #[inline(always)]
    pub fn depthwise(
        opts: &DepthwiseOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        const OP: &str = "DEPTHWISE_CONV_2D";
        let i = nhwc(OP, Operand::Input(0), input_shape)?;
        let f = nhwc(OP, Operand::Filter, filter_shape)?;
        let o = nhwc(OP, Operand::Output, output_shape)?;
        for s in [&i, &f, &o] {
            size(OP, s)?;
        }
        if f[0] != 1 {
            return Err(KernelError::shape(OP, ShapeFault::FilterFirstDim));
        }
        if f[3] != o[3] {
            return Err(KernelError::shape(OP, ShapeFault::FilterChannels));
        }
        // Checked: the product of two model fields wraps a 32-bit `usize`.
        if opts.depth_multiplier == 0 || i[3].checked_mul(opts.depth_multiplier) != Some(o[3]) {
            return Err(KernelError::shape(OP, ShapeFault::DepthMultiplier));
        }
        let (pad_h, pad_w) = spatial(OP, &opts.conv, &i, (f[1], f[2]), &o)?;
        let (act_min, act_max) = activation_range_i8(OP, opts.conv.activation, output)?;
        Ok(ConvParams {
            input_shape: i,
            filter_shape: f,
            output_shape: o,
            input_offset: -int8_zero_point(OP, input)?,
            output_offset: int8_zero_point(OP, output)?,
            stride_h: opts.conv.stride_h,
            stride_w: opts.conv.stride_w,
            dilation_h: opts.conv.dilation_h,
            dilation_w: opts.conv.dilation_w,
            pad_h,
            pad_w,
            depth_multiplier: opts.depth_multiplier,
            act_min,
            act_max,
        })
    }
}

/// The scratch bytes [`depthwise_conv2d`] and [`depthwise_conv2d_in_place`] take for `p`
/// (CMSIS-NN's `arm_depthwise_conv_s8_get_buffer_size`): the row kernel's segment of outputs
/// and its gathered window rows when it takes these parameters, else the pixel loop's
/// chunk values and (with a multiplier) one input channel's window values.
///
/// ```
/// use synaptic_run::math::{Activation, Padding, QuantParams};
/// use synaptic_run::ops::conv::conv_2d::{ConvOptions, ConvParams};
/// use synaptic_run::ops::conv::depthwise_conv_2d::{depthwise_conv2d_scratch_bytes, DepthwiseOptions};
/// let conv = ConvOptions {
///     padding: Padding::Same,
///     stride_h: 1,
///     stride_w: 1,
///     dilation_h: 1,
///     dilation_w: 1,
///     activation: Activation::None,
/// };
/// let opts = DepthwiseOptions { conv, depth_multiplier: 1 };
/// let q = QuantParams::new(0.5, 0);
/// let p = ConvParams::depthwise(&opts, &[1, 48, 48, 8], &[1, 3, 3, 8], &[1, 48, 48, 8], q, q)
///     .unwrap();
/// // A row of 48 pixels × 8 channels, and 3 window rows of 50 words.
/// assert_eq!(depthwise_conv2d_scratch_bytes(&p), 384 + 608);
/// ```
pub fn depthwise_conv2d_scratch_bytes(p: &ConvParams) -> usize {
    match row_segment(p) {
        Some(seg) => {
            let (outs, words) = row_buffers(p, seg);
            Scratch::span::<i8>(outs) + Scratch::span::<u32>(words)
        }
        None => Temps::<()>::bytes(p) + Scratch::span::<i16>(multiplier_taps(p)),
    }
}

/// The row kernel's buffers from `scratch` when it takes `p` (`None` when it does not), as
/// [`depthwise_conv2d_scratch_bytes`] sized them.
fn take_rows<'s>(
    p: &ConvParams,
    scratch: &mut Scratch<'s>,
) -> Result<Option<(usize, RowBufs<'s>)>, KernelError> {
    let Some(seg) = row_segment(p) else {
        return Ok(None);
    };
    let (outs, words) = row_buffers(p, seg);
    match (scratch.take::<i8>(outs), scratch.take::<u32>(words)) {
        (Some(out), Some(cols)) => Ok(Some((seg, RowBufs { out, cols }))),
        _ => Err(KernelError::unsupported(
            "DEPTHWISE_CONV_2D",
            Unsupported::Scratch,
        )),
    }
}

/// DEPTHWISE_CONV_2D, int8 (`DepthwiseConvPerChannel`), any depth multiplier: input and
/// output as `i8` or as their bytes (what the interpreter passes: one copy of the kernel for
/// both its plain and its overlapped runs). `scratch` holds at least
/// [`depthwise_conv2d_scratch_bytes`] bytes.
// Inlined into the interpreter's `run_kernel`: one frame under the pixel loop, not two.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub fn depthwise_conv2d<X: Int8, O: Int8Out, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    input: &[X],
    filter: &[W],
    bias: Option<&B>,
    output: &mut [O],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let ch = Channels::<_, _, _, AllOps>::new(p, multipliers, shifts, filter, bias);
    plain(&ch, input, output, scratch)
}

/// DEPTHWISE_CONV_2D's path ([`paths`]) for `p`: the row kernel's, a multiplier's gathered
/// window, or the channels'.
pub(crate) fn dw_paths(p: &ConvParams) -> u64 {
    if row_segment(p).is_some() {
        paths::DW_ROWS
    } else if multiplier_taps(p) > 0 {
        paths::DW_MULTIPLIER
    } else {
        paths::DW_CHANNELS
    }
}

/// [`depthwise_conv2d`] on the channels `ch` (and their tap pairs, if any).
fn plain<X: Int8, O: Int8Out, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet>(
    ch: &Channels<'_, W, B, T, L>,
    input: &[X],
    output: &mut [O],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let (p, filter) = (ch.p, ch.filter);
    linked::<L>("DEPTHWISE_CONV_2D", dw_paths(p))?;
    p.check(
        "DEPTHWISE_CONV_2D",
        ch.multipliers,
        ch.shifts,
        input.len(),
        filter,
        ch.bias,
        output.len(),
    )?;
    run_plain(ch, input, output, scratch)
}

/// DEPTHWISE_CONV_2D ([`depthwise_conv2d`]) with input and output in `buf`: the channels of
/// each output pixel in chunks (`Channels::pixel`), each chunk's taps read before any of its
/// outputs is written, the chunks and the pixels in `at.direction`. A read only ever comes
/// earlier and a write later than in the contract's one-element-a-step order, so every
/// placement the contract accepts stays safe. `scratch` holds at least
/// [`depthwise_conv2d_scratch_bytes`] bytes.
#[allow(clippy::too_many_arguments)]
pub fn depthwise_conv2d_in_place<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &ConvParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let ch = Channels::<_, _, _, AllOps>::new(p, multipliers, shifts, filter, bias);
    overlapped(&ch, buf, at, scratch)
}

/// [`depthwise_conv2d_in_place`] on the channels `ch` (and their tap pairs, if any).
fn overlapped<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet>(
    ch: &Channels<'_, W, B, T, L>,
    buf: &mut [u8],
    at: InPlace,
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    const OP: &str = "DEPTHWISE_CONV_2D";
    let p = ch.p;
    linked::<L>(OP, dw_paths(p))?;
    check_tables(OP, p, ch.multipliers, ch.shifts, ch.filter, ch.bias)?;
    check_window(OP, || contract(p, true), buf, &at)?;
    run_overlapped(ch, buf, at, scratch)
}

/// Output channels `oc .. oc + n` of one pixel, computed together ([`Channels::chunk`]).
#[derive(Debug, Clone, Copy)]
struct Chunk {
    oc: usize,
    ic: usize,
    n: usize,
    how: How,
}

/// How a chunk's accumulators are computed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum How {
    /// Multiplier 1, few channels: [`LANES`] channels in registers over the whole window
    /// ([`Channels::run4`]).
    Lanes,
    /// Multiplier 1: up to [`BLOCK`] channels in memory, a tap at a time
    /// ([`Channels::block`]).
    Block,
    /// A multiplier over 1, at most [`BLOCK`], and at most [`MAX_TAPS`] taps: every output of
    /// input channel `ic`, its window gathered once ([`Channels::multiplier`]).
    Multiplier,
    /// The outputs of the one input channel `ic` (a multiplier over 1), or one channel.
    Taps,
}

/// The most taps of a window whose values a depthwise convolution with a multiplier gathers
/// ([`Channels::multiplier`]; [`TapValues`], 2 B a tap of scratch).
const MAX_TAPS: usize = 128;

/// The taps whose values [`How::Multiplier`] gathers for `p` (0: `p` takes another way).
fn multiplier_taps(p: &ConvParams) -> usize {
    let (dm, taps) = (p.depth_multiplier, p.filter_shape[1] * p.filter_shape[2]);
    if dm != 1 && dm <= BLOCK && taps <= MAX_TAPS {
        taps
    } else {
        0
    }
}

/// Words of the filter's tap pairs (`tap_pair_word`) for `p`: four a pair of taps for each
/// four output channels, when the DSP multiplier path takes `p` (not the row kernel;
/// [`multiplier_taps`], the multiplier a multiple of four: micro_speech's 80 taps, eight
/// outputs: 320 words); 0 otherwise.
#[cfg_attr(synaptic_v6m, allow(dead_code))]
pub(crate) fn tap_pairs_len(p: &ConvParams) -> usize {
    let (taps, out_d) = (multiplier_taps(p), p.filter_shape[3]);
    if taps > 0 && p.depth_multiplier % LANES == 0 && out_d % LANES == 0 && row_segment(p).is_none()
    {
        (out_d / LANES) * taps.div_ceil(2) * LANES
    } else {
        0
    }
}

/// Word `i` of the filter's tap pairs (`filter` as the model stores it, `[1, f_h, f_w,
/// out_d]`): for output channels `4q + j` and taps `2k`, `2k + 1` (in window order), the
/// weight of tap `2k` in the bottom halfword and of tap `2k + 1` (0 past the last) in the
/// top, sign-extended: word `(q · pairs + k) · 4 + j`. `None` past the filter.
#[cfg(test)]
pub(crate) fn tap_pair_word(filter: &[u8], taps: usize, out_d: usize, i: usize) -> Option<u32> {
    let (j, qk) = (i % LANES, i / LANES);
    let pairs = taps.div_ceil(2);
    let (q, k) = (qk / pairs.max(1), qk % pairs.max(1));
    let c = q * LANES + j;
    let w = |t: usize| -> Option<u32> {
        if t >= taps {
            return Some(0);
        }
        let b = *filter.get(t.checked_mul(out_d)?.checked_add(c)?)?;
        Some(u32::from(b as i8 as i16 as u16))
    };
    (c < out_d).then_some(())?;
    Some(w(2 * k)? | w(2 * k + 1)? << 16)
}

/// The window of one input channel, its values offset (`x + input_offset`, within ±255) in
/// tap order, 0 at the taps outside the input (which TFLM skips): what
/// [`Channels::multiplier`] gathers once per pixel and input channel.
pub(crate) struct TapValues<'s> {
    v: &'s mut [i16],
}

/// The fewest channels a depthwise convolution with multiplier 1 computes in blocks (fewer:
/// [`How::Lanes`], whose registers beat the block's per-tap setup; M4, person_detect).
const BLOCK_FROM: usize = 32;

/// The channels of a depthwise convolution: what every output pixel shares (tables, filter).
/// Nothing in it is mutable: the kernels' loops read it through `&self`, whose fields the
/// compiler may then keep in registers.
struct Channels<'a, W, B: ?Sized, T: ?Sized, L> {
    /// The paths linked (`L::PATHS`: a test constant where the image links few).
    linked: PhantomData<L>,
    p: &'a ConvParams,
    multipliers: &'a T,
    shifts: &'a T,
    filter: &'a [W],
    bias: Option<&'a B>,
    /// Every output channel has a [`RightRequantizer`] for its accumulators
    /// ([`right_requantized`]): the row kernel takes the fast one.
    right: bool,
    /// The filter in tap pairs (`tap_pair_word`, the program's constants on the DSP extension;
    /// empty: none), what [`Channels::multiplier`] multiplies by `SMLAD`.
    pairs: &'a [u32],
    /// The Cortex-M3's pixel pairs ([`Channels::pixel_pairs`]): each output channel's input
    /// offset times its weights' sum, `off · Σ_t w` (the pairs' windows hold raw bytes, the
    /// zero point at the taps outside the input); `None`: the pixels one at a time.
    #[cfg(synaptic_mla)]
    folds: Option<[i32; FOLDS]>,
}

/// The most output channels the Cortex-M3's pixel pairs take ([`Channels::pixel_pairs`]).
#[cfg(synaptic_mla)]
const FOLDS: usize = 16;

/// A segment's window rows in the input ([`Channels::segment`]): `at[fy]`, the element of
/// window row `fy`'s first inside pixel (`usize::MAX`: outside the input), and, when the rows
/// inside are one run each the same step after the one before, `run` = (its first row, its
/// rows, the step): the Thumb-2 cores' gather takes them in one call ([`Channels::gather`]).
struct WinRows<'a> {
    at: &'a [usize],
    #[cfg_attr(not(any(synaptic_dsp, synaptic_mla)), allow(dead_code))]
    run: Option<(usize, usize, usize)>,
}

impl<'a> WinRows<'a> {
    /// The rows of `at`, their run found once a segment (not once a group).
    #[inline(always)]
    fn new(at: &'a [usize]) -> Self {
        let inside = |a: &usize| *a != usize::MAX;
        let run = at.iter().position(inside).and_then(|f0| {
            let a0 = at[f0];
            let rows = at[f0..].iter().take_while(|a| inside(a)).count();
            let step = at
                .get(f0 + 1)
                .filter(|a| inside(a))
                .map_or(usize::MAX, |&a| a.wrapping_sub(a0));
            let even = (0..rows).all(|r| at[f0 + r] == a0.wrapping_add(r.wrapping_mul(step)))
                && !at[f0 + rows..].iter().any(inside);
            even.then_some((f0, rows, step))
        });
        WinRows { at, run }
    }
}

/// The row kernel's buffers ([`Channels::rows`]), from the operator's scratch block
/// ([`Lanes::whole`]): one segment's outputs and one group's gathered window rows.
struct RowBufs<'a> {
    out: &'a mut [i8],
    cols: &'a mut [u32],
}

impl<'a, W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Channels<'a, W, B, T, L> {
    fn new(
        p: &'a ConvParams,
        multipliers: &'a T,
        shifts: &'a T,
        filter: &'a [W],
        bias: Option<&'a B>,
    ) -> Self {
        let [_, f_h, f_w, out_d] = p.filter_shape;
        Channels {
            linked: PhantomData,
            p,
            multipliers,
            shifts,
            filter,
            bias,
            right: right_requantized(multipliers, shifts, bias, out_d, f_h * f_w),
            pairs: &[],
            #[cfg(synaptic_mla)]
            folds: None,
        }
        .pixel_pairs()
    }

    /// These channels with the Cortex-M3's pixel pairs ([`Lanes::pairs`], [`mla::pair4`])
    /// when they take the parameters: the multiplier path ([`multiplier_taps`]) of one input
    /// channel without dilation across, a multiplier a multiple of four and at most [`FOLDS`], every channel's
    /// requantizer a right shift, an input offset whose negation is an int8 value (the
    /// windows' padding bytes) and a filter as long as its shape. Each channel's `off · Σ_t w`
    /// computed here, once a call.
    #[inline(always)]
    fn pixel_pairs(self) -> Self {
        #[cfg(synaptic_mla)]
        {
            let mut ch = self;
            let p = ch.p;
            let [_, f_h, f_w, out_d] = p.filter_shape;
            let off = p.input_offset;
            let k = f_h * f_w;
            let takes = has::<L>(paths::DW_MULTIPLIER)
                && ch.right
                && p.input_shape[3] == 1
                && p.dilation_w == 1
                && out_d % LANES == 0
                && out_d <= FOLDS
                && multiplier_taps(p) == k
                && i32::from(off.wrapping_neg() as i8) == off.wrapping_neg();
            if let (true, Some(w)) = (takes, ch.filter.get(..k * out_d)) {
                let mut folds = [0i32; FOLDS];
                for tap in w.chunks_exact(out_d) {
                    for (f, w) in folds.iter_mut().zip(tap) {
                        *f = f.wrapping_add(w.value());
                    }
                }
                ch.folds = Some(folds.map(|f| f.wrapping_mul(off)));
            }
            ch
        }
        #[cfg(not(synaptic_mla))]
        self
    }

    /// These channels with the filter's tap pairs `pairs` (the record's constants): used
    /// where they are exactly [`tap_pairs_len`] words for the parameters, else ignored.
    fn paired(mut self, pairs: &'a [u32]) -> Self {
        // (Only the DSP kernels multiply by them.)
        if cfg!(synaptic_dsp) && !pairs.is_empty() && pairs.len() == tap_pairs_len(self.p) {
            self.pairs = pairs;
        }
        self
    }

    /// The accumulators of `N` output channels from `c.oc`, all of input channel `c.ic`, over
    /// the window's taps: the weight of channel `c.oc + j` at tap `(fy, fx)` is at
    /// `(fy·f_w + fx)·out_d + c.oc + j`. Wrapping sums: the products in any order give TFLM's
    /// accumulator exactly.
    #[inline(always)]
    fn taps<const N: usize, X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        c: Chunk,
    ) -> [i32; N] {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let f_w = p.filter_shape[2];
        let out_d = p.output_shape[3];
        let x_step = in_d * p.dilation_w;
        let off = p.input_offset;
        let mut acc = [0i32; N];
        let n = xs.taps.len();
        if n == 0 {
            return acc;
        }
        for (fy, in_y) in ys.iter() {
            let xi = x_b + (in_y * in_w + xs.first) * in_d + c.ic;
            let wi = (fy * f_w + xs.taps.start) * out_d + c.oc;
            // The row's taps: inputs `x_step` apart, weights `out_d` apart, sliced once.
            let xr = &x[xi..][..(n - 1) * x_step + 1];
            let wr = &self.filter[wi..][..(n - 1) * out_d + N];
            if x_step >= 1 && out_d >= N {
                // Every tap but the last in exact chunks (no per-tap bounds or offsets).
                let (xh, xl) = xr.split_at((n - 1) * x_step);
                let (wh, wl) = wr.split_at((n - 1) * out_d);
                for (xc, wc) in xh.chunks_exact(x_step).zip(wh.chunks_exact(out_d)) {
                    mac::<N, X, W>(&mut acc, xc[0], &wc[..N], off);
                }
                mac::<N, X, W>(&mut acc, xl[0], wl, off);
            } else {
                // Dilation 0: every tap at the same input column.
                for t in 0..n {
                    let wv = &wr[t * out_d..][..N];
                    mac::<N, X, W>(&mut acc, xr[t * x_step], wv, off);
                }
            }
        }
        acc
    }
}

/// Prepares DEPTHWISE_CONV_2D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if cx.input_ty(0) == Some(TensorType::Int16) {
        return super::conv_i16::prepare::<DepthwiseConv2dI16>(cx, true, depthwise_params);
    }
    if is_float(cx) {
        return Prepared::of::<DepthwiseConv2dF32>(
            cx,
            prepare_conv_f32(cx, true, depthwise_params)?,
        );
    }
    if cx.input_ty(1) == Some(TensorType::Int4) {
        return super::conv_i4::prepare_i4::<DepthwiseConv2dI4>(cx, depthwise_params);
    }
    prepare_conv::<DepthwiseConv2d>(cx, depthwise_params, |p| tap_pairs(cx, p))
}

/// DEPTHWISE_CONV_2D's parameters from its options (the family's `ParamsOf`).
fn depthwise_params(
    cx: &Prep<'_, '_>,
    [xs, ws, os]: [&[usize]; 3],
    xq: QuantParams,
    oq: QuantParams,
) -> Result<ConvParams, LoadError> {
    let o = cx.op().depthwise_conv2d_options()?;
    let d = DepthwiseOptions {
        conv: ConvOptions {
            padding: cx.padding(o.padding)?,
            stride_w: o.stride_w.max(0) as usize,
            stride_h: o.stride_h.max(0) as usize,
            activation: cx.activation(o.fused_activation)?,
            dilation_w: o.dilation_w.max(0) as usize,
            dilation_h: o.dilation_h.max(0) as usize,
        },
        depth_multiplier: o.depth_multiplier.max(0) as usize,
    };
    ConvParams::depthwise(&d, xs, ws, os, xq, oq).map_err(|e| cx.err(e))
}

/// The program's constants of a DEPTHWISE_CONV_2D: the DSP extension's multiplier path
/// multiplies the filter in tap pairs (`SMLAD`), so a program for it carries them
/// (micro_speech_quantized: 320 words); none otherwise, and none in an Armv6-M build.
#[cfg_attr(synaptic_v6m, allow(unused_variables))]
fn tap_pairs<'m>(cx: &Prep<'_, 'm>, p: &ConvParams) -> Result<Constants<'m>, LoadError> {
    #[cfg(not(synaptic_v6m))]
    if cx.isa == crate::Isa::Dsp {
        let len = tap_pairs_len(p);
        if len > 0 {
            return Ok(Constants::DepthwisePairs {
                filter: cx.data(1)?,
                taps: cx
                    .input_ref(1)?
                    .shape()
                    .get(1..3)
                    .map_or(0, |s| s.iter().product()),
                out_d: p.output_channels(),
                len,
            });
        }
    }
    Ok(Constants::None)
}

/// The DEPTHWISE_CONV_2D kernel, int8.
pub struct DepthwiseConv2d;

impl Kernel for DepthwiseConv2d {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvParams;

    #[inline]
    fn run(p: &ConvParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        Self::run_linked::<AllOps>(p, io)
    }

    const PATHS: bool = true;

    fn paths(p: &ConvParams, _constants: bool) -> u64 {
        dw_paths(p)
    }

    #[inline]
    fn run_linked<L: OpSet>(
        p: &ConvParams,
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        // The input and output checked int8, passed as their bytes (see `depthwise_conv2d`).
        io.i8(0)?;
        io.out_i8()?;
        let (x, w, bias) = (io.bytes(0), io.bytes(1), io.bias(2));
        let ch = Channels::<_, _, _, L>::new(p, m, s, w, bias.as_ref()).paired(io.constants());
        plain(&ch, x, io.out.bytes_mut(), &mut io.scratch)
    }

    fn contract(p: &ConvParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p, true))
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
        let ch = Channels::<_, _, _, L>::new(p, m, s, w, bias.as_ref()).paired(io.constants());
        overlapped(&ch, io.buf, io.at, &mut io.scratch)?;
        Ok(p.output_shape.iter().product())
    }

    const SCRATCH: bool = true;

    fn scratch_bytes(p: &ConvParams) -> usize {
        depthwise_conv2d_scratch_bytes(p)
    }
}

impl<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Lanes for Channels<'_, W, B, T, L> {
    type Chunk = Chunk;
    const OP: &'static str = "DEPTHWISE_CONV_2D";
    type Window<'s> = TapValues<'s>;

    #[inline(always)]
    fn temps<'s>(&self, scratch: &mut Scratch<'s>) -> Option<Temps<'s, TapValues<'s>>> {
        let taps = multiplier_taps(self.p);
        Temps::take(scratch, self.p, |s| {
            Some(TapValues {
                v: zeroed(s.take::<i16>(taps)?),
            })
        })
    }

    fn params(&self) -> &ConvParams {
        self.p
    }

    #[inline(always)]
    fn pixels_linked() -> bool {
        has::<L>(paths::DW_MULTIPLIER | paths::DW_CHANNELS)
    }

    /// The row kernel ([`Channels::rows`]) when [`Channels::segment`] takes the parameters.
    #[inline(always)]
    fn whole<X: Int8, S: ?Sized>(
        &self,
        dir: Direction,
        scratch: &mut Scratch<'_>,
        s: &mut S,
        input: &impl Fn(&S) -> &[X],
        write: &mut impl FnMut(&mut S, usize, &[i8]),
    ) -> Result<bool, KernelError> {
        if !has::<L>(paths::DW_ROWS) {
            return Ok(false);
        }
        let Some((seg, mut bufs)) = take_rows(self.p, scratch)? else {
            return Ok(false);
        };
        self.rows(seg, dir, &mut bufs, &mut Io { s, input, write });
        Ok(true)
    }

    /// The Cortex-M3's pixel pairs ([`Channels::pixel_pairs`]).
    #[cfg(synaptic_mla)]
    #[inline(always)]
    fn pairs(&self) -> bool {
        self.folds.is_some()
    }

    /// Both pixels' windows, raw, into `win`, one tap a half-word (pixel `a`'s byte low,
    /// `b`'s high), the zero point at the taps outside the input (which then contribute
    /// `-off · w`, cancelling the fold: 0, as TFLM's skipped taps).
    #[cfg(synaptic_mla)]
    #[inline(always)]
    fn gather2<X: Int8>(
        &self,
        x: &[X],
        a: (usize, &Taps, &Taps),
        b: (usize, &Taps, &Taps),
        win: &mut TapValues<'_>,
    ) {
        let p = self.p;
        let [_, f_h, f_w, _] = p.filter_shape;
        let in_w = p.input_shape[2];
        let k = (f_h * f_w).min(win.v.len());
        let v = &mut win.v[..k];
        let zp = u16::from(p.input_offset.wrapping_neg() as u8);
        let whole =
            |(_, ys, xs): (usize, &Taps, &Taps)| ys.taps.len() == f_h && xs.taps.len() == f_w;
        if !(whole(a) && whole(b)) {
            v.fill((zp | zp << 8) as i16);
        }
        // Each pixel's inside taps into its byte (dilation 1 across, one input channel):
        // window row `fy` from the input row at `iy`.
        for (lane, (x_b, ys, xs)) in [(0, a), (1, b)] {
            let (rows, n) = (ys.taps.len(), xs.taps.len());
            let at = x_b + ys.first * in_w + xs.first;
            let d0 = ys.taps.start * f_w + xs.taps.start;
            let (src, dst) = (
                x.get(at..).unwrap_or(&[]),
                v.get_mut(d0..).unwrap_or(&mut []),
            );
            let steps = (ys.dilation * in_w, f_w);
            if rows == 0 || n == 0 || mla::set_lane(dst, lane, src, (rows, n), steps) {
                continue;
            }
            // (Never, for the kernel's own slices.)
            let keep = !(0xffu16 << (8 * lane));
            for (fy, iy) in ys.iter() {
                let row = x.get(x_b + iy * in_w + xs.first..).unwrap_or(&[]);
                let dst = v.get_mut(fy * f_w + xs.taps.start..).unwrap_or(&mut []);
                for (v, x) in dst.iter_mut().zip(row).take(n) {
                    *v = ((*v as u16 & keep) | u16::from(x.byte()) << (8 * lane)) as i16;
                }
            }
        }
    }

    /// Channels `oc ..` (a multiple of [`LANES`]: the multiplier is) of both pixels
    /// [`Lanes::gather2`] gathered, four a pass ([`mla::pair4`]).
    #[cfg(synaptic_mla)]
    #[inline(never)]
    fn outputs2(&self, win: &TapValues<'_>, oc: usize, oa: &mut [i8], ob: &mut [i8]) {
        let Some(folds) = &self.folds else {
            return;
        };
        let p = self.p;
        let [_, f_h, f_w, out_d] = p.filter_shape;
        let k = f_h * f_w;
        let v = win.v.get(..k).unwrap_or(&[]);
        let (pa, pb) = (oa.chunks_exact_mut(LANES), ob.chunks_exact_mut(LANES));
        for (j, (qa, qb)) in pa.zip(pb).enumerate() {
            let c = oc + j * LANES;
            let sums = mla::pair4(v, self.filter.get(c..).unwrap_or(&[]), out_d, k);
            let b = self.bias.map_or([0; LANES], |b| b.at4(c));
            let (m, s) = (self.multipliers.at4(c), self.shifts.at4(c));
            let fold = folds.get(c..c + LANES).unwrap_or(&[0; LANES]);
            if p.act_min == -128 && p.act_max == 127 {
                // The whole int8 range: each channel's pair in assembly.
                for l in 0..LANES {
                    let init = b[l].wrapping_add(fold[l]);
                    let (sa, sb) = (sums[l].0.wrapping_add(init), sums[l].1.wrapping_add(init));
                    let (va, vb) =
                        crate::ops::conv::requant::requant2(sa, sb, m[l], s[l], p.output_offset);
                    (qa[l], qb[l]) = (va as i8, vb as i8);
                }
                continue;
            }
            for l in 0..LANES {
                let r = RightRequantizer::new_checked(m[l], s[l]);
                let init = b[l].wrapping_add(fold[l]);
                let out = |a: i32| {
                    r.apply(a.wrapping_add(init))
                        .wrapping_add(p.output_offset)
                        .max(p.act_min)
                        .min(p.act_max) as i8
                };
                qa[l] = out(sums[l].0);
                qb[l] = out(sums[l].1);
            }
        }
    }

    /// Calls `f` on the chunks of one pixel's output channels, together covering each channel
    /// once, ascending (`Forward`) or descending: with multiplier 1, blocks of up to
    /// [`BLOCK`] channels ([`How::Block`]) or, with fewer than [`BLOCK_FROM`] channels and no
    /// dilation across, [`LANES`] at a time ([`How::Lanes`]); otherwise per input channel,
    /// its `multiplier` outputs [`LANES`] at a time, then one at a time ([`How::Taps`]).
    #[inline(always)]
    fn pixel(&self, dir: Direction, mut f: impl FnMut(Chunk, usize, usize)) {
        let out_d = self.p.output_shape[3];
        let dm = self.p.depth_multiplier;
        if dm == 1 && out_d < BLOCK_FROM && self.p.dilation_w == 1 {
            lane_chunks(out_d, LANES, dir, |oc, n| {
                let how = if n == LANES { How::Lanes } else { How::Taps };
                f(Chunk { oc, ic: oc, n, how }, oc, n)
            });
        } else if dm == 1 {
            for k in ordered(out_d.div_ceil(BLOCK), dir) {
                let oc = k * BLOCK;
                let n = (out_d - oc).min(BLOCK);
                let how = How::Block;
                f(Chunk { oc, ic: oc, n, how }, oc, n)
            }
        } else if multiplier_taps(self.p) > 0 {
            for ic in ordered(self.p.input_shape[3], dir) {
                let oc = ic * dm;
                let how = How::Multiplier;
                f(Chunk { oc, ic, n: dm, how }, oc, dm)
            }
        } else {
            for ic in ordered(self.p.input_shape[3], dir) {
                lane_chunks(dm, LANES, dir, |j, n| {
                    let oc = ic * dm + j;
                    f(
                        Chunk {
                            oc,
                            ic,
                            n,
                            how: How::Taps,
                        },
                        oc,
                        n,
                    )
                });
            }
        }
    }

    /// The outputs of chunk `c` of the pixel whose window is `ys` × `xs`, the batch's input
    /// starting at `x[x_b]` (the first `c.n` values are the chunk's). Not inlined: one copy
    /// for the plain and the overlapped kernel, and the call's fresh registers beat the
    /// inlined loop's spills.
    #[inline(never)]
    fn chunk<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        c: Chunk,
        out: &mut [i8],
        win: &mut TapValues<'_>,
    ) {
        let (mul, chans) = (paths::DW_MULTIPLIER, paths::DW_CHANNELS);
        if pick::<L>(c.how == How::Multiplier, mul, chans) {
            return self.multiplier(x, x_b, ys, xs, c, out, win);
        }
        if c.how == How::Block {
            let mut acc = [0i32; BLOCK];
            let acc = &mut acc[..c.n];
            if let Some(bias) = self.bias {
                for (j, a) in acc.iter_mut().enumerate() {
                    *a = bias.at(c.oc + j);
                }
            }
            self.block(acc, x, x_b, ys, xs, c.oc);
            let (m, s) = (self.multipliers, self.shifts);
            for (j, (o, &a)) in out.iter_mut().zip(acc.iter()).enumerate() {
                *o = requantize(a, m.at(c.oc + j), s.at(c.oc + j), self.p);
            }
            return;
        }
        let acc = match (c.how, c.n) {
            (How::Lanes, _) => self.run4(x, x_b, ys, xs, c.oc),
            (_, LANES) => self.taps::<LANES, X>(x, x_b, ys, xs, c),
            _ => {
                let [a] = self.taps::<1, X>(x, x_b, ys, xs, c);
                [a, 0, 0, 0]
            }
        };
        let v = requantize_chunk(
            acc,
            c.oc,
            c.n,
            self.bias,
            self.multipliers,
            self.shifts,
            self.p,
        );
        for (o, v) in out.iter_mut().zip(v) {
            *o = v;
        }
    }
}

impl<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Channels<'_, W, B, T, L> {
    /// [`How::Multiplier`]: the `c.n` outputs from `c.oc` of input channel `c.ic` (at most
    /// [`BLOCK`]) at the pixel whose window is `ys` × `xs`. The channel's window values,
    /// offset, gathered once into `win` (0 at the taps outside the input, which TFLM skips),
    /// then eight outputs a pass (portable) or four ([`taps4`]: on the DSP extension two taps
    /// a step in registers), the last `n mod 4` one at a time. Inlined into the chunk (M4:
    /// micro_speech_quantized 1.86 -> 1.75 M instructions; the DSP loop gathered, its window
    /// rows four values a word ([`offset_row`]): 1.50 -> 1.40 M).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn multiplier<X: Int8>(
        &self,
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        c: Chunk,
        out: &mut [i8],
        win: &mut TapValues<'_>,
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let [_, f_h, f_w, out_d] = p.filter_shape;
        let k = (f_h * f_w).min(win.v.len());
        let (m, s) = (self.multipliers, self.shifts);
        let out = &mut out[..c.n.min(BLOCK)];
        let pass = 2 * LANES;
        // (`MLA` assembly's passes: four outputs.)
        let whole = if cfg!(synaptic_mla) { LANES } else { pass };
        if !cfg!(synaptic_dsp)
            && !cfg!(synaptic_v6m)
            && in_d * p.dilation_w == 1
            && out.len() % whole == 0
        {
            // Portable, one input channel (a window row's values adjacent), whole passes of
            // eight outputs: each tap's input read and offset where it lies, not gathered
            // first (with the row steps below, Cortex-M3 micro_speech_quantized's layer
            // 1,695,586 -> 1,444,886 instructions). Not on Armv6-M: its flash (the micro:bit's
            // all-operator image).
            let (n, off) = (xs.taps.len(), p.input_offset);
            // Each window row's first input and first tap's weights: one step a row.
            let x0 = x_b + (ys.first * in_w + xs.first) * in_d + c.ic;
            let t0 = (ys.taps.start * f_w + xs.taps.start) * out_d;
            let (x_step, t_step) = (ys.dilation * in_w * in_d, f_w * out_d);
            let mut oc = c.oc;
            #[cfg(synaptic_mla)]
            {
                // In `MLA` assembly ([`mla::window4`]): four outputs a pass (its
                // registers hold no more), the window one call (Cortex-M3
                // micro_speech_quantized 1,517,443 -> 1,428,543 instructions).
                let xw = x.get(x0..).unwrap_or(&[]);
                let ww = self.filter.get(t0..).unwrap_or(&[]);
                let rows = ys.taps.len();
                for o in out.chunks_exact_mut(LANES) {
                    let w = ww.get(oc..).unwrap_or(&[]);
                    let (dims, steps) = ((n, rows), (x_step, t_step));
                    let a = mla::window4([0; LANES], xw, off, w, out_d, dims, steps);
                    if self.right {
                        self.right_outputs(a, oc, o);
                    } else {
                        o.copy_from_slice(&requantize_chunk(a, oc, LANES, self.bias, m, s, p));
                    }
                    oc += LANES;
                }
                return;
            }
            #[allow(unreachable_code)]
            for o in out.chunks_exact_mut(pass) {
                let (mut a0, mut a1) = ([0i32; LANES], [0i32; LANES]);
                let (mut xi, mut ti) = (x0, t0);
                for _ in ys.taps.clone() {
                    let xr = x.get(xi..).and_then(|r| r.get(..n)).unwrap_or(&[]);
                    let rows = self
                        .filter
                        .get(ti..)
                        .unwrap_or(&[])
                        .chunks_exact(out_d.max(1));
                    (xi, ti) = (xi + x_step, ti + t_step);
                    for (xv, row) in xr.iter().zip(rows) {
                        // A loop the compiler keeps rolled: unrolled, its sixteen live values
                        // spill to the stack.
                        crate::hint::no_unroll();
                        mac8_value(
                            (&mut a0, &mut a1),
                            xv.value() + off,
                            &row[oc..oc + 2 * LANES],
                        );
                    }
                }
                self.outputs8((a0, a1), oc, o);
                oc += pass;
            }
            return;
        }
        let v = &mut win.v[..k];
        if ys.taps.len() != f_h || xs.taps.len() != f_w {
            v.fill(0);
        }
        // A long window row with its inputs adjacent (one input channel): the row's taps one
        // run; otherwise tap by tap (cheaper for three taps).
        let (n, off) = (xs.taps.len(), p.input_offset);
        if in_d * p.dilation_w == 1 && n >= 4 {
            // The window's rows walked by a running index into the input (a row every
            // `dilation · in_w` values) and into `v` (a row every `f_w`), not each row's
            // index computed again (M4 micro_speech_quantized: 39 instructions a row).
            let x0 = x_b + (ys.first * in_w + xs.first) * in_d + c.ic;
            let v0 = ys.taps.start * f_w + xs.taps.start;
            let x_step = (ys.dilation * in_w).max(1);
            let (mut xi, mut vi) = (x0, v0);
            for _ in ys.taps.clone() {
                if let (Some(xr), Some(vr)) = (x.get(xi..xi + n), v.get_mut(vi..vi + n)) {
                    offset_row(vr, xr, off);
                }
                (xi, vi) = (xi + x_step, vi + f_w);
            }
        } else {
            for (fy, in_y) in ys.iter() {
                for (fx, in_x) in xs.iter() {
                    let xv = x[x_b + (in_y * in_w + in_x) * in_d + c.ic].value();
                    v[fy * f_w + fx] = (xv + off) as i16;
                }
            }
        }
        let v = &win.v[..k];
        let rows = || self.filter.chunks_exact(out_d.max(1));
        let mut oc = c.oc;
        // Eight outputs a pass (each tap's value read once for two words of weights), then four.
        // On the DSP extension four a pass ([`taps4`]'s registers hold no more).
        let pass = if cfg!(synaptic_dsp) { usize::MAX } else { pass };
        let mut octs = out.chunks_exact_mut(pass);
        for o in &mut octs {
            let (mut a0, mut a1) = ([0i32; LANES], [0i32; LANES]);
            for (&v, row) in v.iter().zip(rows()) {
                // Kept rolled, as above.
                crate::hint::no_unroll();
                mac8_value((&mut a0, &mut a1), i32::from(v), &row[oc..oc + 2 * LANES]);
            }
            self.outputs8((a0, a1), oc, o);
            oc += 2 * LANES;
        }
        let mut quads = octs.into_remainder().chunks_exact_mut(LANES);
        for o in &mut quads {
            let acc = self.taps4(v, out_d, oc);
            if self.right && cfg!(synaptic_dsp) {
                self.right_outputs(acc, oc, o);
            } else {
                o.copy_from_slice(&requantize_chunk(acc, oc, LANES, self.bias, m, s, p));
            }
            oc += LANES;
        }
        for o in quads.into_remainder() {
            let mut acc = 0i32;
            for (&v, row) in v.iter().zip(rows()) {
                acc = acc.wrapping_add(row[oc].value().wrapping_mul(i32::from(v)));
            }
            let [r, ..] = requantize_chunk([acc, 0, 0, 0], oc, 1, self.bias, m, s, p);
            *o = r;
            oc += 1;
        }
    }

    /// The accumulators of the four outputs `oc ..` over the gathered window `v`: by the
    /// filter's tap pairs where the program has them ([`dsp::smlad_pairs4`]: two
    /// multiply-accumulates an instruction), else [`taps4`].
    #[inline(always)]
    fn taps4(&self, v: &[i16], out_d: usize, oc: usize) -> [i32; LANES] {
        #[cfg(synaptic_dsp)]
        if !self.pairs.is_empty() {
            let n = 4 * v.len().div_ceil(2);
            let at = (oc / LANES) * n;
            if let Some(w) = self.pairs.get(at..at + n) {
                return dsp::smlad_pairs4([0; LANES], v, w);
            }
        }
        taps4(v, self.filter, out_d, oc)
    }

    /// The eight outputs `o` of channels `oc ..` from a pass's sums `a0` (the first four) and
    /// `a1`: with the requantizers of [`Channels::right_outputs`] on the portable path
    /// (measured, it gains: Cortex-M3 micro_speech_quantized 1.85 -> 1.78 M instructions;
    /// Armv6-M keeps its flash, the micro:bit's all-operator image), else
    /// [`requantize_chunk`].
    #[inline(always)]
    fn outputs8(&self, (a0, a1): ([i32; LANES], [i32; LANES]), oc: usize, o: &mut [i8]) {
        let (m, s, p) = (self.multipliers, self.shifts, self.p);
        let (o0, o1) = o.split_at_mut(LANES);
        if self.right && !cfg!(synaptic_dsp) && !cfg!(synaptic_v6m) {
            self.right_outputs(a0, oc, o0);
            self.right_outputs(a1, oc + LANES, o1);
        } else {
            o0.copy_from_slice(&requantize_chunk(a0, oc, LANES, self.bias, m, s, p));
            o1.copy_from_slice(&requantize_chunk(a1, oc + LANES, LANES, self.bias, m, s, p));
        }
    }

    /// The outputs of channels `oc ..` (`out.len()`, at most [`LANES`]) from their
    /// accumulators `acc`: bias added, each channel's [`RightRequantizer`] (the operator's
    /// channels all have one: [`Channels::right`]).
    #[inline(always)]
    fn right_outputs(&self, acc: [i32; LANES], oc: usize, out: &mut [i8]) {
        let p = self.p;
        let b = self.bias.map_or([0; LANES], |b| b.at4(oc));
        let (m, s) = (self.multipliers.at4(oc), self.shifts.at4(oc));
        // The whole int8 range on the Thumb-2 cores: each output in assembly.
        #[cfg(any(synaptic_dsp, synaptic_mla))]
        if p.act_min == -128 && p.act_max == 127 {
            for (j, o) in out.iter_mut().enumerate().take(LANES) {
                let a = acc[j].wrapping_add(b[j]);
                *o = crate::ops::conv::requant::requant1(a, m[j], s[j], p.output_offset) as i8;
            }
            return;
        }
        for (j, o) in out.iter_mut().enumerate().take(LANES) {
            let v = RightRequantizer::new_checked(m[j], s[j]).apply(acc[j].wrapping_add(b[j]));
            *o = v
                .wrapping_add(p.output_offset)
                .max(p.act_min)
                .min(p.act_max) as i8;
        }
    }

    /// Multiplier 1, dilation 1 across: the accumulators of the [`LANES`] channels from `oc`
    /// over the window's taps, each tap one word of input and one of weights ([`mac4`]); each
    /// window row one run of whole pixels (input) and of whole taps (weights), walked a pixel
    /// at a time.
    #[inline(always)]
    fn run4<X: Int8>(&self, x: &[X], x_b: usize, ys: &Taps, xs: &Taps, oc: usize) -> [i32; LANES] {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let f_w = p.filter_shape[2];
        let row = xs.taps.len() * in_d;
        let off = p.input_offset;
        let mut acc = [0i32; LANES];
        for (fy, in_y) in ys.iter() {
            let xr = &x[x_b + (in_y * in_w + xs.first) * in_d..][..row];
            let wr = &self.filter[(fy * f_w + xs.taps.start) * in_d..][..row];
            for (xt, wt) in xr.chunks_exact(in_d).zip(wr.chunks_exact(in_d)) {
                if let (Ok(xv), Ok(wv)) = (
                    <&[X; LANES]>::try_from(&xt[oc..oc + LANES]),
                    <&[W; LANES]>::try_from(&wt[oc..oc + LANES]),
                ) {
                    mac4::<1, X, W>(&mut acc, xv, wv, off);
                }
            }
        }
        acc
    }

    /// Multiplier 1: `acc[j] += Σ (x + offset) · w` of channel `oc + j` over the window's
    /// taps, a tap at a time for the whole block ([`mac_run`]: no bounds or offsets inside a
    /// tap), the taps by running offsets.
    #[inline(always)]
    fn block<X: Int8>(
        &self,
        acc: &mut [i32],
        x: &[X],
        x_b: usize,
        ys: &Taps,
        xs: &Taps,
        oc: usize,
    ) {
        let p = self.p;
        let [_, _, in_w, in_d] = p.input_shape;
        let f_w = p.filter_shape[2];
        let n = acc.len();
        let (x_col, x_row, w_row) = (in_d * p.dilation_w, in_w * in_d * p.dilation_h, f_w * in_d);
        let mut xr = x_b + (ys.first * in_w + xs.first) * in_d + oc;
        let mut wr = (ys.taps.start * f_w + xs.taps.start) * in_d + oc;
        for _ in 0..ys.taps.len() {
            let (mut xi, mut wi) = (xr, wr);
            for _ in 0..xs.taps.len() {
                mac_run(acc, &x[xi..][..n], &self.filter[wi..][..n], p.input_offset);
                xi = xi.wrapping_add(x_col);
                wi = wi.wrapping_add(in_d);
            }
            xr = xr.wrapping_add(x_row);
            wr = wr.wrapping_add(w_row);
        }
    }
}

/// One tap of `N` lanes of one input value: `acc[j] += (x + offset)·w[j]`, wrapping
/// ([`mac4`] for four lanes).
#[inline(always)]
fn mac<const N: usize, X: Int8, W: Int8>(acc: &mut [i32; N], x: X, w: &[W], offset: i32) {
    if let (Ok(a), Ok(w4)) = (
        <&mut [i32; LANES]>::try_from(&mut acc[..]),
        <&[W; LANES]>::try_from(w),
    ) {
        // Four lanes (N is LANES: a constant test).
        mac4::<0, X, W>(a, &[x], w4, offset);
    } else {
        for j in 0..N {
            acc[j] = acc[j].wrapping_add(w[j].value().wrapping_mul(x.value() + offset));
        }
    }
}

/// [`mac4_value`] of `v` into the two accumulators of a pass of eight outputs, against the
/// eight weights `w` (the caller's slice of that length: nothing for another).
#[inline(always)]
fn mac8_value<W: Int8>((a0, a1): (&mut [i32; LANES], &mut [i32; LANES]), v: i32, w: &[W]) {
    if let Some(w) = w.first_chunk::<{ 2 * LANES }>() {
        let (w0, w1) = w.split_at(LANES);
        if let (Ok(w0), Ok(w1)) = (<&[W; LANES]>::try_from(w0), <&[W; LANES]>::try_from(w1)) {
            mac4_value(a0, v, w0);
            mac4_value(a1, v, w1);
        }
    }
}

// ---- The row kernel: a row segment at a time ----

/// The most output bytes of one row segment ([`Channels::rows`], in the scratch block).
const SEG_OUT: usize = 1024;
/// The most words of one channel group's gathered window rows ([`Channels::gather`], in
/// the scratch block).
const COL_WORDS: usize = 256;
/// The most taps of a window the row kernel takes.
const ROW_TAPS: usize = 25;

/// The sums of a 3×3 window of the row kernel's gathered words (row `r` at
/// `win[r · ncols ..]`) times the taps `t` (in the filter's order), the input values raw (the
/// offset folded by the caller): [`mac_word`] with no offset, tap by tap, unrolled (the
/// Cortex-M3's row kernel; the DSP extension's runs [`dsp::quad3x3_row`], the
/// Cortex-M0's the general loop, in less flash). Taps past the end of `win` count 0 (never,
/// for the kernel's own slices).
#[cfg(not(any(synaptic_dsp, synaptic_v6m)))]
#[inline(always)]
fn window3x3(win: &[u32], ncols: usize, t: &[Tap; 9]) -> [i32; LANES] {
    let mut acc = [0i32; LANES];
    for r in 0..3 {
        if let Some(w) = win.get(r * ncols..).and_then(|w| w.first_chunk::<3>()) {
            for j in 0..3 {
                mac_word(&mut acc, w[j], &t[3 * r + j], 0);
            }
        }
    }
    acc
}

/// The input and output of the row kernel ([`Channels::rows`]): the pixel loop's `input` and
/// `write` over its state, behind one trait object so that the plain and the overlapped
/// kernel share one copy of the row kernel.
trait RowsIo<X> {
    /// The batch's input.
    fn input(&self) -> &[X];
    /// Writes `v` at output element `at`.
    fn write(&mut self, at: usize, v: &[i8]);
}

/// [`RowsIo`] over the pixel loop's state and closures.
struct Io<'a, S: ?Sized, I, Wr> {
    s: &'a mut S,
    input: &'a I,
    write: &'a mut Wr,
}

impl<X, S: ?Sized, I: Fn(&S) -> &[X], Wr: FnMut(&mut S, usize, &[i8])> RowsIo<X>
    for Io<'_, S, I, Wr>
{
    fn input(&self) -> &[X] {
        (self.input)(self.s)
    }
    fn write(&mut self, at: usize, v: &[i8]) {
        (self.write)(self.s, at, v)
    }
}

/// What the row kernel keeps of one group of four channels: each tap's weights in the
/// filter's order (tap `(fy, fx)` at `fy · f_w + fx`), the biases, and the requantizers
/// (meaningful when [`Channels::right`]).
struct Group {
    taps: [Tap; ROW_TAPS],
    bias: [i32; LANES],
    fast: [RightRequantizer; LANES],
}

/// The steps of a row block in assembly (`dsp::quad3x3_row`, `mla::quad3x3_row`) for windows
/// `sw` words apart in rows of `ncols` words and outputs `c` bytes apart: `4·ncols` (a row),
/// `4·sw − 8·ncols` (wrapping: from a window's third row to the next window's first), `c`;
/// `None` when one does not fit 32 bits.
#[cfg(any(synaptic_dsp, synaptic_mla))]
pub(crate) fn row_block_steps(sw: usize, ncols: usize, c: usize) -> Option<[u32; 3]> {
    let stride = u32::try_from(ncols.checked_mul(4)?).ok()?;
    let step = u32::try_from(sw.checked_mul(4)?).ok()?;
    let c = u32::try_from(c).ok()?;
    Some([stride, step.wrapping_sub(stride.wrapping_mul(2)), c])
}

/// Whether a row block in assembly may run `n` pixels whose windows are `sw` words apart in
/// rows of `ncols` words, outputs `c` bytes apart, over a window of `win` words and an output
/// of `out` bytes, with `steps`: `n ≥ 1`, the last pixel's last window word (`(n − 1)·sw +
/// 2·ncols + 2`) and last output byte (`(n − 1)·c + 3`) inside them, without overflow, and
/// `steps` [`row_block_steps`]'s.
#[cfg(any(synaptic_dsp, synaptic_mla))]
#[inline(always)]
pub(crate) fn row_block_fits(
    (win, out): (usize, usize),
    (n, sw, ncols): (usize, usize, usize),
    c: usize,
    steps: &[u32; 3],
) -> bool {
    // In 64 bits (no product of two 32-bit `usize`s plus a small sum overflows: these cores'
    // `usize`, asserted in `thumb2.rs`): one multiply a bound, not a checked chain.
    let wide = |v: usize| v as u64;
    if n == 0
        || wide(n - 1) * wide(sw) + 2 * wide(ncols) + 3 > wide(win)
        || wide(n - 1) * wide(c) + 4 > wide(out)
    {
        return false;
    }
    // (Word by word: an array's `!=` is a call to `memcmp`.)
    let Some([s0, s1, s2]) = row_block_steps(sw, ncols, c) else {
        return false;
    };
    s0 == steps[0] && s1 == steps[1] && s2 == steps[2]
}

/// The pixels per row segment of the row kernel, when it takes these parameters:
/// multiplier 1 or a multiple of four (a group's four outputs then share one input
/// channel), output channels a multiple of four (at most [`SEG_OUT`]), no dilation across,
/// at most [`ROW_TAPS`] taps (so a segment of at least one pixel's columns fits in
/// [`COL_WORDS`]).
fn row_segment(p: &ConvParams) -> Option<usize> {
    let [_, f_h, f_w, c] = p.filter_shape;
    let (sw, out_w) = (p.stride_w, p.output_shape[2]);
    let dm = p.depth_multiplier;
    let fits = (dm == 1 || dm % LANES == 0)
        && c >= LANES
        && c % LANES == 0
        && c <= SEG_OUT
        && p.dilation_w == 1
        && sw >= 1
        && f_h >= 1
        && f_w >= 1
        && f_h * f_w <= ROW_TAPS;
    if !fits || out_w == 0 {
        return None;
    }
    // n pixels read (n - 1)·stride + f_w columns of f_h words.
    let by_cols = (COL_WORDS / f_h - f_w) / sw + 1;
    let most = (SEG_OUT / c).min(by_cols).min(out_w);
    // As many segments a row as the most pixels need, of even length: the same work, the
    // least scratch.
    Some(out_w.div_ceil(out_w.div_ceil(most)))
}

/// The row kernel's buffers for segments of `seg` pixels: output bytes and gathered words
/// (`seg` pixels read `(seg − 1)·stride + f_w` columns of each of the `f_h` window rows).
fn row_buffers(p: &ConvParams, seg: usize) -> (usize, usize) {
    let [_, f_h, f_w, c] = p.filter_shape;
    (seg * c, ((seg - 1) * p.stride_w + f_w) * f_h)
}

impl<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, L: OpSet> Channels<'_, W, B, T, L> {
    /// The output a row segment (`seg` pixels) at a time, the segments in `dir` order: the
    /// segment's window rows and padding set up once ([`Channels::segment`]), then per group
    /// of four channels its weights split once ([`Group`]), its words of the window rows
    /// gathered once ([`Channels::gather`]: one word a tap, the input's zero point where a
    /// tap is outside the input, which contributes 0 as TFLM's skipped tap does), and every
    /// pixel's window of words against the taps in registers (a 3×3 filter on the DSP
    /// extension: one block for the group's row, [`Channels::quad_group`]). The segment's
    /// outputs are written after all of its reads ([`Lanes::whole`]). One copy for the plain
    /// and the overlapped kernel: their input and output behind `io`.
    #[inline(never)]
    fn rows<X: Int8>(
        &self,
        seg: usize,
        dir: Direction,
        bufs: &mut RowBufs<'_>,
        io: &mut dyn RowsIo<X>,
    ) {
        let p = self.p;
        let [batches, out_h, out_w, c] = p.output_shape;
        let [_, f_h, f_w, _] = p.filter_shape;
        let pixel = p.input_shape[1] * p.input_shape[2] * p.input_shape[3];
        let pair = (p.input_offset as u32 & 0xffff) * 0x1_0001;
        let RowBufs { out, cols } = bufs;
        let mut grp = Group {
            taps: [Tap::default(); ROW_TAPS],
            bias: [0; LANES],
            fast: [RightRequantizer::new_checked(0, -1); LANES],
        };
        // A 3×3 filter whose requantizers are all right shifts: one block a group's row on
        // the DSP extension ([`Channels::quad_group`]).
        #[cfg(synaptic_dsp)]
        let mut quad = (self.right && f_h == 3 && f_w == 3).then(|| dsp::Quad {
            offset: p.output_offset,
            lo: lanes(p.act_min),
            hi: lanes(p.act_max),
            ..Default::default()
        });
        // The same on the Cortex-M3 ([`Channels::mla_group`]), the input offset folded into
        // each channel's constant: an offset whose negation is an int8 value (the padding's
        // zero-point bytes then count `-offset · w` against it: 0, as TFLM's skipped taps).
        #[cfg(synaptic_mla)]
        let mut mq = {
            let off = p.input_offset;
            let folds = i32::from(off.wrapping_neg() as i8) == off.wrapping_neg();
            (self.right && f_h == 3 && f_w == 3 && folds).then(|| mla::Quad {
                out_offset: p.output_offset,
                act: [p.act_min, p.act_max],
                ..Default::default()
            })
        };
        // Each window row's first inside pixel in the input ([`Channels::segment`]).
        let mut at = [usize::MAX; ROW_TAPS];
        for b in ordered(batches, dir) {
            for oy in ordered(out_h, dir) {
                for part in ordered(out_w.div_ceil(seg), dir) {
                    let ox0 = part * seg;
                    let n = (out_w - ox0).min(seg);
                    let Some(o) = out.get_mut(..n * c) else {
                        return;
                    };
                    let ncols = (n - 1) * p.stride_w + f_w;
                    let Some(blk) = cols.get_mut(..f_h * ncols) else {
                        return;
                    };
                    // The segment's window rows and padding, once for all of its groups.
                    let x = io.input();
                    let (left, inside) = self.segment(x.len(), b * pixel, (oy, ox0), blk, &mut at);
                    let span = (left, inside, ncols);
                    let at = WinRows::new(&at[..f_h.min(ROW_TAPS)]);
                    let at = &at;
                    for g in 0..c / LANES {
                        #[cfg(synaptic_dsp)]
                        if let Some(q) = quad.as_mut() {
                            if self.quad_group(q, g, (x, at, span), blk, n, pair, o) {
                                continue;
                            }
                        }
                        #[cfg(synaptic_mla)]
                        if let Some(q) = mq.as_mut() {
                            if self.mla_group(q, g, (x, at, span), blk, n, o) {
                                continue;
                            }
                        }
                        self.group(g, &mut grp);
                        self.gather(x, at, span, g, blk);
                        if p.act_min == -128 && p.act_max == 127 {
                            self.pixels::<true>(&grp, blk, (n, ncols), pair, g, o);
                        } else {
                            self.pixels::<false>(&grp, blk, (n, ncols), pair, g, o);
                        }
                    }
                    io.write(offset4(&p.output_shape, b, oy, ox0, 0), o);
                }
            }
        }
    }

    /// The outputs of group `g` (`grp`) at every pixel of a segment of `n` (`o`: `out_d`
    /// values a pixel): window row `fy` is gathered row `fy` of `blk` (`ncols` words each),
    /// pixel `i`'s window from its word `i · stride_w` (3×3 unrolled on the Cortex-M3:
    /// [`window3x3`]). `FULL`: the activation range is all of int8 (a saturation, `SSAT`).
    #[inline(always)]
    fn pixels<const FULL: bool>(
        &self,
        grp: &Group,
        blk: &[u32],
        (n, ncols): (usize, usize),
        pair: u32,
        g: usize,
        o: &mut [i8],
    ) {
        let p = self.p;
        let [_, f_h, f_w, c] = p.filter_shape;
        let sw = p.stride_w;
        let oc = g * LANES;
        #[cfg(not(any(synaptic_dsp, synaptic_v6m)))]
        if let (Ok(t), true) = (<&[Tap; 9]>::try_from(&grp.taps[..9]), f_h == 3 && f_w == 3) {
            // The input offset folded into one constant a channel, `offset · Σ w`: the window
            // words' raw values times the weights, the padding's zero-point bytes then
            // counting `-offset · w` against it (0, as TFLM's skipped taps), one instruction
            // fewer a product. (An offset whose negation is not an int8 value, which no
            // loaded model has, takes the general loop below.)
            let off = i32::from(pair as u16 as i16);
            if i32::from(off.wrapping_neg() as i8) == off.wrapping_neg() {
                let fold: [i32; LANES] = core::array::from_fn(|j| {
                    off.wrapping_mul(t.iter().map(|w| i32::from(w[j])).sum::<i32>())
                });
                #[cfg(synaptic_mla)]
                if let (true, Some(steps)) = (self.right, row_block_steps(sw, ncols, c)) {
                    // The row in `MLA` assembly ([`mla::quad3x3_row`]; Cortex-M3
                    // kws_ref_model 9,219,393 -> 9,071,273, person_detect 25,902,756 ->
                    // 25,113,860 instructions).
                    let q = mla::Quad {
                        taps: *t,
                        init: core::array::from_fn(|j| grp.bias[j].wrapping_add(fold[j])),
                        rq: core::array::from_fn(|j| grp.fast[j].parts()),
                        out_offset: p.output_offset,
                        act: if FULL {
                            [-128, 127]
                        } else {
                            [p.act_min, p.act_max]
                        },
                        steps,
                    };
                    let out = o.get_mut(oc..).unwrap_or(&mut []);
                    if mla::quad3x3_row(&q, blk, (n, sw, ncols), out, c) {
                        return;
                    }
                }
                for (i, px) in o.chunks_exact_mut(c).take(n).enumerate() {
                    let acc = window3x3(blk.get(i * sw..).unwrap_or(&[]), ncols, t);
                    let acc = core::array::from_fn(|j| acc[j].wrapping_add(fold[j]));
                    if let Some(v) = px.get_mut(oc..oc + LANES) {
                        self.outputs::<FULL>(grp, acc, oc, v);
                    }
                }
                return;
            }
        }
        for (i, px) in o.chunks_exact_mut(c).take(n).enumerate() {
            let mut acc = [0i32; LANES];
            let taps = grp.taps.chunks_exact(f_w.max(1)).take(f_h);
            for (fy, ts) in taps.enumerate() {
                let at = fy * ncols + i * sw;
                if let Some(ws) = blk.get(at..).and_then(|w| w.get(..f_w)) {
                    for (&w, t) in ws.iter().zip(ts) {
                        mac_word(&mut acc, w, t, pair);
                    }
                }
            }
            if let Some(v) = px.get_mut(oc..oc + LANES) {
                self.outputs::<FULL>(grp, acc, oc, v);
            }
        }
    }

    /// Makes `grp` the [`Group`] of channels `4g .. 4g + 4` (its first `f_h · f_w` taps).
    #[inline(always)]
    fn group(&self, g: usize, grp: &mut Group) {
        let [_, f_h, f_w, c] = self.p.filter_shape;
        let oc = g * LANES;
        // Tap t's four weights at t · c + oc in the filter.
        let ws = self.filter.get(oc..).unwrap_or(&[]);
        let runs = ws.chunks(c.max(1)).take(f_h * f_w);
        for (tp, w) in grp.taps.iter_mut().zip(runs) {
            if let Some(w) = w.first_chunk::<LANES>() {
                *tp = tap(w);
            }
        }
        grp.bias = self.bias.map_or([0; LANES], |b| b.at4(oc));
        if self.right {
            let (m, sh) = (self.multipliers.at4(oc), self.shifts.at4(oc));
            grp.fast = core::array::from_fn(|j| RightRequantizer::new_checked(m[j], sh[j]));
        }
    }

    /// Group `g`'s outputs over a segment of `n` pixels in one block
    /// ([`dsp::quad3x3_row`]): its taps split ([`dsp::quad_taps`]), biases and
    /// requantizers into `q`, its words of the window rows gathered ([`Channels::gather`]).
    /// `false` when a block refuses its slices (never, for the kernel's own): the general
    /// path then computes the group again, whole.
    #[cfg(synaptic_dsp)]
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn quad_group<X: Int8>(
        &self,
        q: &mut dsp::Quad,
        g: usize,
        (x, at, span): (&[X], &WinRows<'_>, (usize, usize, usize)),
        blk: &mut [u32],
        n: usize,
        pair: u32,
        o: &mut [i8],
    ) -> bool {
        let p = self.p;
        let (c, ncols) = (p.filter_shape[3], span.2);
        let oc = g * LANES;
        let ws = self.filter.get(oc..).unwrap_or(&[]);
        if !dsp::quad_taps(q, ws, c) || !dsp::quad_steps(q, (p.stride_w, ncols), c) {
            return false;
        }
        q.bias = self.bias.map_or([0; LANES], |b| b.at4(oc));
        let (m, sh) = (self.multipliers.at4(oc), self.shifts.at4(oc));
        q.rq = core::array::from_fn(|j| RightRequantizer::new_checked(m[j], sh[j]).parts());
        self.gather(x, at, span, g, blk);
        let o = o.get_mut(oc..).unwrap_or(&mut []);
        dsp::quad3x3_row(q, blk, (n, p.stride_w, ncols), pair, o, c)
    }

    /// Group `g`'s outputs over a segment of `n` pixels in one `MLA` block on the Cortex-M3
    /// ([`mla::quad3x3_row`]): its taps, its constants (bias plus the input offset times the
    /// weights' sum) and requantizers written into `q` straight from the tables, its words of
    /// the window rows gathered ([`Channels::gather`]). `false` when a slice is short or the
    /// block refuses (never, for the kernel's own): the general path then computes the group
    /// whole.
    #[cfg(synaptic_mla)]
    #[inline(always)]
    fn mla_group<X: Int8>(
        &self,
        q: &mut mla::Quad,
        g: usize,
        (x, at, span): (&[X], &WinRows<'_>, (usize, usize, usize)),
        blk: &mut [u32],
        n: usize,
        o: &mut [i8],
    ) -> bool {
        let p = self.p;
        let (c, ncols, sw) = (p.filter_shape[3], span.2, p.stride_w);
        let oc = g * LANES;
        let (Some(steps), Some(ws)) = (
            row_block_steps(sw, ncols, c),
            self.filter.get(oc..).and_then(|w| w.get(..8 * c + LANES)),
        ) else {
            return false;
        };
        q.steps = steps;
        let mut sum = [0i32; LANES];
        for (tap, w) in q.taps.iter_mut().zip(ws.chunks(c.max(1))) {
            if let Some(w) = w.first_chunk::<LANES>() {
                for j in 0..LANES {
                    let v = w[j].value();
                    tap[j] = v as i8;
                    sum[j] = sum[j].wrapping_add(v);
                }
            }
        }
        let bias = self.bias.map_or([0; LANES], |b| b.at4(oc));
        let (m, sh) = (self.multipliers.at4(oc), self.shifts.at4(oc));
        for j in 0..LANES {
            q.init[j] = bias[j].wrapping_add(p.input_offset.wrapping_mul(sum[j]));
            q.rq[j] = RightRequantizer::new_checked(m[j], sh[j]).parts();
        }
        self.gather(x, at, span, g, blk);
        mla::quad3x3_row(
            q,
            blk,
            (n, sw, ncols),
            o.get_mut(oc..).unwrap_or(&mut []),
            c,
        )
    }

    /// The window rows of the segment from output pixel `ox0` of row `oy` (batch input at
    /// `x[x_b..]`, `x_len` elements) that are the same for every group: the input's zero
    /// point in each byte of every word whose tap is outside the input (the columns left of
    /// and right of it, and every column of a window row outside it), written here once; in
    /// `at[fy]` the element of window row `fy`'s first inside pixel (`usize::MAX`: the row is
    /// outside the input, or short). Returns the columns `(left, inside)`: the inside ones
    /// are the groups' own ([`Channels::gather`]). Window row `fy` is `blk[fy · ncols ..][..
    /// ncols]`, `ncols` = `blk.len() / f_h`.
    #[inline(always)]
    fn segment(
        &self,
        x_len: usize,
        x_b: usize,
        (oy, ox0): (usize, usize),
        blk: &mut [u32],
        at: &mut [usize; ROW_TAPS],
    ) -> (usize, usize) {
        let p = self.p;
        let [_, in_h, in_w, c] = p.input_shape;
        let pad = u32::from(p.input_offset.wrapping_neg() as u8) * 0x0101_0101;
        let f_h = p.filter_shape[1].clamp(1, ROW_TAPS);
        let ncols = blk.len() / f_h;
        // Columns [0, left) and [left + inside, ncols) are outside the input. Within i32
        // (`compute_padding`'s bound on the window's extent).
        let ix0 = (ox0 * p.stride_w) as isize - p.pad_w as isize;
        let left = (-ix0).clamp(0, ncols as isize) as usize;
        let inside = (in_w as isize - ix0).clamp(left as isize, ncols as isize) as usize - left;
        for (fy, (a, row)) in at
            .iter_mut()
            .zip(blk.chunks_exact_mut(ncols.max(1)))
            .enumerate()
        {
            let iy = (oy * p.stride_h + fy * p.dilation_h) as isize - p.pad_h as isize;
            let first = x_b + (iy.max(0) as usize * in_w + (ix0 + left as isize) as usize) * c;
            let whole = first
                .checked_add(inside * c)
                .is_some_and(|end| end <= x_len);
            *a = if iy >= 0 && (iy as usize) < in_h && whole && inside > 0 {
                first
            } else {
                usize::MAX
            };
            for (j, w) in row.iter_mut().enumerate() {
                if *a == usize::MAX || j < left || j >= left + inside {
                    *w = pad;
                }
            }
        }
        (left, inside)
    }

    /// Gathers group `g`'s words of the segment's inside columns ([`Channels::segment`] wrote
    /// the rest and `at`): the word of the group's four channels (with a multiplier of four or
    /// more, its one input channel's byte in every lane) of window row `fy` at column `j` at
    /// `blk[fy · ncols + j]`.
    #[inline(always)]
    fn gather<X: Int8>(
        &self,
        x: &[X],
        rows: &WinRows<'_>,
        (left, inside, ncols): (usize, usize, usize),
        g: usize,
        blk: &mut [u32],
    ) {
        let p = self.p;
        let c = p.input_shape[3];
        // Multiplier 1: the group's four input channels, one word; a multiplier of four or
        // more: its one input channel, the byte in every lane.
        let dm = p.depth_multiplier;
        let (word_at, ic) = (g * LANES, g * LANES / dm.max(1));
        if (dm == 1 && word_at + LANES > c) || ic >= c || inside == 0 {
            return;
        }
        // Thumb-2: the window rows inside the input (a run of them, each the same step after
        // the one before: [`WinRows::run`]) in one call.
        #[cfg(any(synaptic_dsp, synaptic_mla))]
        if let (1, Some((f0, n, step))) = (dm, rows.run) {
            let src = x.get(rows.at[f0] + word_at..).unwrap_or(&[]);
            let dst = blk.get_mut(f0 * ncols + left..).unwrap_or(&mut []);
            if thumb2::gather_rows(dst, src, (n, inside), (step, ncols), c) {
                return;
            }
        }
        for (&a, row) in rows.at.iter().zip(blk.chunks_exact_mut(ncols.max(1))) {
            // Pixel j's values at `x[a + j·c ..][.. c]` (`usize::MAX`: not gathered).
            let (Some(dst), Some(src)) = (
                row.get_mut(left..left + inside),
                x.get(a..).and_then(|r| r.get(..inside * c)),
            ) else {
                continue;
            };
            #[cfg(any(synaptic_dsp, synaptic_mla))]
            if dm == 1 && thumb2::gather_words(dst, src.get(word_at..).unwrap_or(&[]), c) {
                continue;
            }
            if dm == 1 {
                for (w, px) in dst.iter_mut().zip(src.chunks_exact(c)) {
                    if let Some(v) = px.get(word_at..).and_then(|v| v.first_chunk::<LANES>()) {
                        *w = crate::ops::common::word(v);
                    }
                }
            } else {
                for (w, px) in dst.iter_mut().zip(src.chunks_exact(c)) {
                    if let Some(v) = px.get(ic) {
                        *w = u32::from(v.byte()) * 0x0101_0101;
                    }
                }
            }
        }
    }

    /// The output values of group `grp` (channels from `oc`) from its accumulators.
    #[inline(always)]
    fn outputs<const FULL: bool>(&self, grp: &Group, acc: [i32; LANES], oc: usize, out: &mut [i8]) {
        let p = self.p;
        let acc: [i32; LANES] = core::array::from_fn(|j| acc[j].wrapping_add(grp.bias[j]));
        match self.right {
            true => {
                for ((o, a), q) in out.iter_mut().zip(acc).zip(&grp.fast) {
                    let v = q.apply(a).wrapping_add(p.output_offset);
                    *o = if FULL {
                        v.clamp(-128, 127)
                    } else {
                        v.max(p.act_min).min(p.act_max)
                    } as i8;
                }
            }
            false => {
                let (m, sh) = (self.multipliers, self.shifts);
                for (j, (o, a)) in out.iter_mut().zip(acc).enumerate() {
                    *o = requantize(a, m.at(oc + j), sh.at(oc + j), p);
                }
            }
        }
    }
}

/// DEPTHWISE_CONV_2D, float32, as `reference_ops::DepthwiseConv` (float) computes it: per
/// output channel `oc = ic · multiplier + m`, `total = 0`, `total += x · w` over the window's
/// rows and columns in order (taps outside the input skipped), then `total + bias`, clamped.
#[inline(never)]
pub fn depthwise_conv2d_f32(
    p: &ConvF32Params,
    input: &[f32],
    filter: &[u8],
    bias: Option<&[u8]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    let c = &p.conv;
    check_f32("DEPTHWISE_CONV_2D", c, input, filter, bias, output)?;
    let [batches, _, _, in_d] = c.input_shape;
    let [_, out_h, out_w, _] = c.output_shape;
    let mult = c.depth_multiplier;
    for b in 0..batches {
        for oy in 0..out_h {
            for ox in 0..out_w {
                let (ys, xs) = c.taps_at(oy, ox);
                for ic in 0..in_d {
                    for m in 0..mult {
                        let oc = m + ic * mult;
                        let mut total = 0.0f32;
                        for (fy, in_y) in ys.iter() {
                            for (fx, in_x) in xs.iter() {
                                let x = input[offset4(&c.input_shape, b, in_y, in_x, ic)];
                                let w = LeF32(filter).at(offset4(&c.filter_shape, 0, fy, fx, oc));
                                total += x * w;
                            }
                        }
                        let bias_value = bias.map_or(0.0, |bs| LeF32(bs).at(oc));
                        output[offset4(&c.output_shape, b, oy, ox, oc)] =
                            p.range.apply(total + bias_value);
                    }
                }
            }
        }
    }
    Ok(())
}

/// DEPTHWISE_CONV_2D, float32 ([`depthwise_conv2d_f32`]) with input and output in `buf`
/// (little-endian floats): each output element computed in the plain kernel's order of
/// operations, then written, the elements in `at.direction` order.
pub fn depthwise_conv2d_f32_in_place(
    p: &ConvF32Params,
    filter: &[u8],
    bias: Option<&[u8]>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    const OP: &str = "DEPTHWISE_CONV_2D";
    let c = &p.conv;
    check_f32_tables(OP, c, filter, bias)?;
    check_window(OP, || contract_f32(c, true), buf, &at)?;
    let out_d = c.output_shape[3];
    let dm = c.depth_multiplier;
    let (filter, bias) = (LeF32(filter), bias.map(LeF32));
    for_each_pixel(&c.output_shape, at.direction, |b, oy, ox, first| {
        let (ys, xs) = c.taps_at(oy, ox);
        for oc in ordered(out_d, at.direction) {
            let ic = oc / dm;
            let mut total = 0.0f32;
            for (fy, in_y) in ys.iter() {
                for (fx, in_x) in xs.iter() {
                    let x = x32(buf, at.input, offset4(&c.input_shape, b, in_y, in_x, ic));
                    total += x * filter.at(offset4(&c.filter_shape, 0, fy, fx, oc));
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

/// The DEPTHWISE_CONV_2D kernel, float32.
pub struct DepthwiseConv2dF32;

impl Kernel for DepthwiseConv2dF32 {
    const NAME: &'static str = "DEPTHWISE_CONV_2D";
    const MAX_INPUTS: usize = 3;
    type Params = ConvF32Params;

    #[inline]
    fn run(p: &ConvF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let (x, w) = (io.f32(0)?, io.bytes(1));
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        depthwise_conv2d_f32(p, x, w, bias, io.out_f32()?)
    }

    fn contract(p: &ConvF32Params, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract_f32(&p.conv, true))
    }

    fn run_in_place(
        p: &ConvF32Params,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        depthwise_conv2d_f32_in_place(p, io.bytes(1), bias, io.buf, io.at)?;
        Ok(4 * p.conv.output_shape.iter().product::<usize>())
    }
}
