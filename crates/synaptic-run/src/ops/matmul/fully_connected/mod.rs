//! FULLY_CONNECTED, int8 activations and weights, int32 bias, per-tensor or per-channel; and
//! float32 ([`FullyConnectedF32`]: `reference_ops::FullyConnected`, float); int16 activations
//! ([`FullyConnectedI16`], 16x8: its own file, `i16.rs`); a packed INT4 filter with int8
//! activations ([`FullyConnectedI4`], `i4.rs`: unpacked to scratch, then this kernel).
//!
//! Mirrors `reference_integer_ops::FullyConnected` (per-tensor, with the filter offset) and
//! `FullyConnectedPerChannel` (TFLM supports per-channel FC since 2023: chosen when the filter
//! has more than one scale), prepared as `micro/kernels/fully_connected_common.cc` does.
//!
//! The per-tensor multiplier is `GetQuantizedConvolutionMultipler`'s as the oracle wheel
//! computes it: `double(input_scale) * double(filter_scale) / double(output_scale)`, the
//! product in double (the TFLM source at the anchors' commit rounds it to float first; the two
//! differ by 1 LSB on rare outputs: docs/runtime.md, "Scale products in double").
//!
//! Without a filter offset the input offset and the bias fold into one constant per output
//! channel (the program's constants, `Constants::FoldedBiases`), so the inner loop is a plain
//! dot product. Overlapped: rows of at most [`FC_ROW_BUFFER`] bytes are copied to the stack at
//! their first step ([`Access::RowsBuffered`]), longer ones re-read per output.

use synaptic_tflite::{code, TensorType};

use crate::contract::{Access, Contract, Direction};
use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{activation_range_i8, int8_zero_point, Requantizer};
use crate::math::{multiply_by_quantized_multiplier, Activation, QuantParams, RightRequantizer};
use crate::model::TInfo;
use crate::ops::common::{dot2, size, Int32s, Int8, Int8Out};
use crate::ops::float::{F32s, FloatRange, LeF32};
use crate::ops::in_place::{check, drive, InPlace};
use crate::ops::paths::{has, linked, pick};
use crate::ops::tables::{Constants, Table};
use crate::ops::{paths, Geometry, InPlaceOperands, Kernel, OpSet, Operands, Prep, Prepared};

// The ISA variant: the Thumb-2 cores' loops in assembly (the DSP extension's, and the
// Cortex-M3's without it; its own file, its `unsafe` there).
#[cfg(any(synaptic_dsp, synaptic_mla))]
#[allow(unsafe_code)]
mod thumb2;

mod i16;
pub use i16::{FullyConnectedI16, FullyConnectedI16Params};
mod i4;
pub use i4::FullyConnectedI4;

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::FULLY_CONNECTED];

/// Longest FULLY_CONNECTED input row (bytes) the overlapped kernel copies to the stack before
/// computing the row's outputs, so that they may overwrite it.
pub const FC_ROW_BUFFER: usize = 64;

pub(crate) const OP: &str = "FULLY_CONNECTED";

/// The options of a FULLY_CONNECTED (`FullyConnectedOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullyConnectedOptions {
    /// `fused_activation_function`.
    pub activation: Activation,
    /// `weights_format`: 0 is `DEFAULT`; `SHUFFLED4x16INT8` (1) is not supported.
    pub weights_format: i8,
}

/// Everything FULLY_CONNECTED needs besides the data and the multiplier tables: made only by
/// [`FullyConnectedParams::new`] / [`FullyConnectedParams::with_scale_count`], which check the
/// shapes (sizes within [`crate::limits::MAX_TENSOR_SIZE`]), the zero points and the activation range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FullyConnectedParams {
    /// Rows of the input (all dimensions but the last, of the output).
    pub(crate) batches: usize,
    /// Input elements per row (the filter's last dimension).
    pub(crate) accum_depth: usize,
    /// Output elements per row.
    pub(crate) output_depth: usize,
    /// `-input_zero_point`.
    pub(crate) input_offset: i32,
    /// `-filter_zero_point` (per-tensor path only).
    pub(crate) filter_offset: i32,
    /// `output_zero_point`.
    pub(crate) output_offset: i32,
    /// One multiplier per output channel (`true`) or one for all.
    pub(crate) per_channel: bool,
    /// Activation clamp minimum.
    pub(crate) act_min: i32,
    /// Activation clamp maximum.
    pub(crate) act_max: i32,
}

impl FullyConnectedParams {
    /// Prepares a FULLY_CONNECTED. `filter_scales` has one scale (per-tensor) or one per
    /// output channel; the filter is `[..., output_depth, accum_depth]`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        opts: &FullyConnectedOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        filter_scales: &[f32],
        filter_zero_point: i32,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        Self::with_scale_count(
            opts,
            input_shape,
            filter_shape,
            output_shape,
            input,
            filter_scales.len(),
            filter_zero_point,
            output,
        )
    }

    /// [`Self::new`] given only the number of filter scales (the loader reads them from the
    /// model in place and never collects them in a slice).
    #[allow(clippy::too_many_arguments)]
    pub fn with_scale_count(
        opts: &FullyConnectedOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
        input: QuantParams,
        filter_scale_count: usize,
        filter_zero_point: i32,
        output: QuantParams,
    ) -> Result<Self, KernelError> {
        let (batches, accum_depth, output_depth) =
            geometry(opts, input_shape, filter_shape, output_shape)?;
        let per_channel = filter_scale_count > 1;
        if per_channel && filter_scale_count != filter_shape[0] {
            return Err(KernelError::unsupported(OP, Unsupported::FilterScales));
        }
        if filter_scale_count == 0 {
            return Err(KernelError::unsupported(
                OP,
                Unsupported::FilterNotQuantized,
            ));
        }
        let (act_min, act_max) = activation_range_i8(OP, opts.activation, output)?;
        let filter_zero_point = int8_zero_point(OP, QuantParams::new(1.0, filter_zero_point))?;
        Ok(FullyConnectedParams {
            batches,
            accum_depth,
            output_depth,
            input_offset: -int8_zero_point(OP, input)?,
            filter_offset: -filter_zero_point,
            output_offset: int8_zero_point(OP, output)?,
            per_channel,
            act_min,
            act_max,
        })
    }

    /// The length of the multiplier/shift tables: output depth if per-channel, else 1.
    pub fn table_len(&self) -> usize {
        if self.per_channel {
            self.output_depth
        } else {
            1
        }
    }

    /// Fills the multiplier and shift tables ([`Self::table_len`] entries each).
    pub fn multipliers(
        &self,
        input_scale: f32,
        filter_scales: &[f32],
        output_scale: f32,
        multipliers: &mut [i32],
        shifts: &mut [i32],
    ) -> Result<(), KernelError> {
        KernelError::check_len(
            OP,
            Operand::Multipliers,
            self.table_len(),
            multipliers.len(),
        )?;
        let short = KernelError::unsupported(OP, Unsupported::FilterScales);
        if self.per_channel {
            crate::math::per_channel_multipliers(
                OP,
                input_scale,
                filter_scales.get(..self.output_depth).ok_or(short)?,
                output_scale,
                multipliers,
                shifts,
            )
        } else {
            KernelError::check_len(OP, Operand::Shifts, 1, shifts.len())?;
            // `double(input_scale) * double(filter_scale) / double(output_scale)` (the oracle
            // wheel's `GetQuantizedConvolutionMultipler`), in integers.
            let filter_scale = *filter_scales.first().ok_or(short)?;
            let (m, s) =
                crate::math::channel_multiplier(OP, input_scale, filter_scale, output_scale)?;
            multipliers[0] = m;
            shifts[0] = s;
            Ok(())
        }
    }
}

/// The shapes of a FULLY_CONNECTED (any data type): `(batches, accum_depth, output_depth)`,
/// the filter `[..., output_depth, accum_depth]`, the input `batches × accum_depth` elements.
pub(crate) fn geometry(
    opts: &FullyConnectedOptions,
    input_shape: &[usize],
    filter_shape: &[usize],
    output_shape: &[usize],
) -> Result<(usize, usize, usize), KernelError> {
    if opts.weights_format != 0 {
        return Err(KernelError::unsupported(
            OP,
            Unsupported::WeightsFormat(opts.weights_format),
        ));
    }
    if filter_shape.len() < 2 {
        return Err(KernelError::shape(
            OP,
            ShapeFault::TooFewDimensions {
                operand: Operand::Filter,
                min: 2,
            },
        ));
    }
    let Some(&output_depth) = output_shape.last() else {
        return Err(KernelError::shape(
            OP,
            ShapeFault::TooFewDimensions {
                operand: Operand::Output,
                min: 1,
            },
        ));
    };
    for s in [input_shape, filter_shape, output_shape] {
        size(OP, s)?;
    }
    let accum_depth = filter_shape[filter_shape.len() - 1];
    if output_depth > filter_shape[filter_shape.len() - 2] {
        return Err(KernelError::shape(OP, ShapeFault::OutputDepth));
    }
    let out_flat: usize = output_shape.iter().product();
    let batches = out_flat.checked_div(output_depth).unwrap_or(0);
    let in_flat: usize = input_shape.iter().product();
    // Checked: `batches × accum_depth` of a hostile model may wrap a 32-bit `usize` onto
    // the input's size.
    if batches.checked_mul(accum_depth) != Some(in_flat) {
        return Err(KernelError::shape(OP, ShapeFault::Batches));
    }
    Ok((batches, accum_depth, output_depth))
}

/// `f(oc, Σ_i w[oc][i] · (row[i] + io))` for each output channel `oc` of `filter` (rows of
/// `depth` > 0 weights), in order: two rows a pass over the input, each input value read and
/// offset once for both ([`dot2`]: `SMLAD` on the DSP extension), then the odd row alone;
/// rows shorter than four, and every row on the portable path, one at a time. Wrapping sums: TFLM's accumulator exactly.
#[inline(always)]
fn each_dot<W: Int8>(
    filter: &[W],
    row: &[i8],
    io: i32,
    depth: usize,
    mut f: impl FnMut(usize, i32),
) {
    if depth == 1 && !cfg!(synaptic_dsp) && !cfg!(synaptic_v6m) {
        // Portable, one input (hello_world_int8's first layer): one product a row, the input
        // offset once (M3: 185 instructions fewer; on the DSP extension, measured, more; not
        // on Armv6-M: its flash, the micro:bit's all-operator image).
        if let Some(&x) = row.first() {
            let x = i32::from(x) + io;
            for (oc, w) in filter.iter().enumerate() {
                f(oc, w.value().wrapping_mul(x));
            }
        }
        return;
    }
    if depth < 4 || !cfg!(synaptic_dsp) {
        // Rows shorter than a word: one at a time (the pair's setup costs more than it
        // saves); so too the portable path (M3: hello_world_int8 faster a row at a time).
        for (oc, w) in filter.chunks_exact(depth).enumerate() {
            f(oc, dot(w, row, io));
        }
        return;
    }
    // Four filters a pass over a long row ([`long_quads`]), then pairs.
    #[cfg(synaptic_dsp)]
    let mut oc = if depth >= QUAD_DEPTH {
        long_quads(filter, row, io, depth, &mut f)
    } else {
        0
    };
    #[cfg(not(synaptic_dsp))]
    let mut oc = 0;
    let mut pairs = filter
        .get(oc * depth..)
        .unwrap_or_default()
        .chunks_exact(2 * depth);
    for w in &mut pairs {
        let (w0, w1) = w.split_at(depth);
        let (a0, a1) = pair_dot(row, w0, w1, io);
        f(oc, a0);
        f(oc + 1, a1);
        oc += 2;
    }
    if let Some(w) = pairs.remainder().get(..depth) {
        // The odd last filter: two `SMLAD`s a word of inputs (the portable loop's products
        // one at a time took twice the instructions, hello_world_int8's last layer).
        #[cfg(synaptic_dsp)]
        f(oc, crate::ops::common::dot1(0, row, w, io));
        #[cfg(not(synaptic_dsp))]
        f(oc, dot(w, row, io));
    }
}

/// [`each_dot`]'s filters of a long row four at a time ([`thumb2::quad_dot`]): `f(oc, sum)`
/// for the first `4·⌊n/4⌋`; returns how many. Apart (one copy, `f` a `dyn`): its loop is not
/// repeated in every kernel [`each_dot`] is inlined into (flash; four calls of `f` a pass).
#[cfg(synaptic_dsp)]
#[inline(never)]
fn long_quads<W: Int8>(
    filter: &[W],
    row: &[i8],
    io: i32,
    depth: usize,
    f: &mut dyn FnMut(usize, i32),
) -> usize {
    let mut oc = 0;
    for w in filter.chunks_exact(4 * depth) {
        let Some(sums) = thumb2::quad_dot(row, w, io) else {
            break;
        };
        for (k, a) in sums.into_iter().enumerate() {
            f(oc + k, a);
        }
        oc += 4;
    }
    oc
}

/// The shortest row [`each_dot`] takes four filters at a time (its setup against the pair's;
/// micro_speech_quantized's 4 × 4,000 layer).
#[cfg(synaptic_dsp)]
const QUAD_DEPTH: usize = 32;

/// The requantizer of the DSP variant's loops ([`thumb2::rows_right`]) for a layer with
/// per-tensor multiplier `m` and shift `s`, filter offset `filter_offset` and bias words
/// `bias` (the program's folded constants), or `None` where they do not apply: per-channel
/// scales, a filter offset, a negative multiplier (`i32::MIN`, the one that can saturate,
/// among them) or a shift that is not right, an
/// activation range short of all of int8, a bias word missing, or rows that are neither one
/// input nor at most [`thumb2::CHUNK`] inputs nor, with the DSP extension, whole pairs of
/// words (four filters a pass by `quad_dot`: kws_ref_model's 12 × 64 layer 2,785 → 2,180
/// instructions, pretrainedResnet_quant's 10 × 64 2,547 → 2,064, in place; by pairs, as
/// before, such rows cost the blocks' setup more than they saved), for four filters or more
/// without the DSP extension.
#[cfg(any(synaptic_dsp, synaptic_mla))]
#[inline(always)]
fn dsp_rows(
    p: &FullyConnectedParams,
    filter_offset: i32,
    (m, s): (i32, i32),
    bias: Option<&[u32]>,
) -> Option<RightRequantizer> {
    let (depth, od) = (p.accum_depth, p.output_depth);
    // Fewer than four filters only with `SMLAD` (measured, hello_world_int8's 16 × 1 layer:
    // M4 31 instructions faster, M3 33 slower).
    let fewest = if cfg!(synaptic_dsp) { 1 } else { 4 };
    // Longer rows with the DSP extension when whole pairs of words (four filters a pass).
    let long = cfg!(synaptic_dsp) && depth % 8 == 0;
    let shape = depth == 1 || od >= fewest && depth > 0 && (depth <= thumb2::CHUNK || long);
    let full = p.act_min == -128 && p.act_max == 127;
    if p.per_channel || filter_offset != 0 || !shape || !full || bias?.len() < od {
        return None;
    }
    RightRequantizer::new(m, s)
}

/// [`dot2`] of a pair of filters from [`each_dot`]: on the DSP extension the variant's loop in
/// assembly (the compiler's, inlined, took 17 to 19 instructions a step as the kernel around it
/// changed: micro_speech_quantized's 4 × 4,000 layer ~4,000 an inference).
#[inline(always)]
fn pair_dot<W: Int8>(row: &[i8], w0: &[W], w1: &[W], io: i32) -> (i32, i32) {
    #[cfg(synaptic_dsp)]
    if let Some(sums) = thumb2::pair_dot(row, w0, w1, io) {
        return sums;
    }
    dot2(0, 0, row, w0, w1, io)
}

/// [`Requantizer::apply_unsaturated`] by `multiplier` and `shift` of an accumulator outside
/// ±[`RightRequantizer::BOUND`] (rare: out of line, its registers not held in the loop).
#[cold]
#[inline(never)]
fn requantize_wide(a: i32, multiplier: i32, shift: i32) -> i32 {
    Requantizer::new(multiplier, shift).apply_unsaturated(a)
}

/// The output stage: requantize, add the output offset, clamp (`max` then `min`, as TFLM).
#[inline(always)]
fn requantize(acc: i32, r: &Requantizer, p: &FullyConnectedParams) -> i8 {
    let v = r.apply(acc).wrapping_add(p.output_offset);
    v.max(p.act_min).min(p.act_max) as i8
}

/// `Σ w[i] * (x[i] + input_offset)` over two slices of the same length, four per step
/// (wrapping, as the reference kernel's `int32` sum on every target TFLM runs on).
#[inline(always)]
fn dot<W: Int8>(w: &[W], x: &[i8], input_offset: i32) -> i32 {
    let term = |w: W, x: i8| w.value().wrapping_mul(i32::from(x) + input_offset);
    // By value, not through `&mut`: the zip of two `ChunksExact` is then one indexed loop.
    let (w4, x4) = (w.chunks_exact(4), x.chunks_exact(4));
    let (w_rest, x_rest) = (w4.remainder(), x4.remainder());
    let mut acc: i32 = 0;
    for (w, x) in w4.zip(x4) {
        acc = acc
            .wrapping_add(term(w[0], x[0]))
            .wrapping_add(term(w[1], x[1]))
            .wrapping_add(term(w[2], x[2]))
            .wrapping_add(term(w[3], x[3]));
    }
    for (&w, &x) in w_rest.iter().zip(x_rest) {
        acc = acc.wrapping_add(term(w, x));
    }
    acc
}

impl FullyConnectedParams {
    /// The int8 filter's `output_depth × accum_depth` weights at the start of `bytes` (input
    /// 1's, read in place; the filter may have more rows than the output uses), or `None` if
    /// they are not all there.
    fn filter_of<'x>(&self, bytes: &'x [u8]) -> Option<&'x [u8]> {
        bytes.get(..self.output_depth.checked_mul(self.accum_depth)?)
    }

    /// Whether the input offset can be folded into per-output-channel constants
    /// ([`Self::folded_bias`], [`fully_connected_folded`]): when no filter offset applies
    /// (every per-channel filter, and a per-tensor one with zero point 0), the accumulator
    /// `Σ w·(x + input_offset) + bias` is `Σ w·x + (bias + input_offset·Σ w)`.
    pub fn foldable(&self) -> bool {
        self.per_channel || self.filter_offset == 0
    }

    /// Whether a program for `isa` carries this operator's folded constants: where it is
    /// [`Self::foldable`] and folding pays. On the portable path every row's dot product adds
    /// the input offset to each input (folded: one multiply-accumulate and no add). On the
    /// DSP extension rows run in pairs that widen each input word with the offset added
    /// (`SXTAB16`, the same instruction either way): folding saves the rows that run alone
    /// (rows shorter than a word, the odd last row of an odd output depth) an add per
    /// weight, and the others only the bias read (some five instructions per output channel
    /// per inference) for a load that sums every weight — folded there only for rows of at
    /// most [`FC_ROW_BUFFER`] weights, whose sum costs the load no more than a few
    /// inferences save (micro_speech's 4 × 4,000 filter: 14,700 instructions of load, 54 an
    /// inference).
    pub fn folds(&self, isa: crate::Isa) -> bool {
        self.foldable()
            && match isa {
                crate::Isa::Portable => true,
                crate::Isa::Dsp => self.accum_depth <= FC_ROW_BUFFER || self.output_depth % 2 == 1,
            }
    }

    /// Output channel `oc`'s folded constant `bias[oc] + input_offset · Σ_i filter[oc][i]`
    /// (wrapping, as the kernel's `int32` accumulator: the same sum modulo 2^32, so the
    /// same outputs), or `None` if the operator is not [`Self::foldable`] or the filter or
    /// bias is too short.
    pub fn folded_bias<W: Int8, B: Int32s + ?Sized>(
        &self,
        filter: &[W],
        bias: Option<&B>,
        oc: usize,
    ) -> Option<i32> {
        if !self.foldable() {
            return None;
        }
        let (rows, depth) = (self.output_depth, self.accum_depth);
        crate::ops::common::folded_bias(filter, bias, rows, depth, self.input_offset, oc)
    }
}

/// FULLY_CONNECTED, int8.
pub fn fully_connected<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized, O: Int8Out>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    input: &[i8],
    filter: &[W],
    bias: Option<&B>,
    output: &mut [O],
) -> Result<(), KernelError> {
    if let Some(b) = bias {
        if b.count() < p.output_depth {
            return Err(KernelError::Length {
                op: OP,
                operand: Operand::Bias,
                expected: p.output_depth,
                got: b.count(),
            });
        }
    }
    // The per-channel reference kernel does not apply the filter offset.
    let filter_offset = if p.per_channel { 0 } else { p.filter_offset };
    let bias_at = |oc: usize| bias.map_or(0, |b| b.at(oc));
    run(
        p,
        multipliers,
        shifts,
        input,
        filter,
        (p.input_offset, filter_offset),
        (bias_at, bias.and_then(|b| b.words())),
        output,
    )
}

/// [`fully_connected`] with the input offset and the bias folded into one constant per output
/// channel ([`FullyConnectedParams::folded_bias`], computed once by the program compiler):
/// the inner loop is a plain dot product. Same outputs; the operator must be
/// [`FullyConnectedParams::foldable`].
pub fn fully_connected_folded<W: Int8, T: Int32s + ?Sized, O: Int8Out>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    input: &[i8],
    filter: &[W],
    folded: &T,
    output: &mut [O],
) -> Result<(), KernelError> {
    check_folded(p, folded.count())?;
    run(
        p,
        multipliers,
        shifts,
        input,
        filter,
        (0, 0),
        (|oc| folded.at(oc), folded.words()),
        output,
    )
}

/// What both folded kernels require: an operator without a filter offset
/// ([`FullyConnectedParams::foldable`]) and one folded constant per output channel.
fn check_folded(p: &FullyConnectedParams, folded: usize) -> Result<(), KernelError> {
    if !p.foldable() {
        return Err(KernelError::unsupported(
            OP,
            Unsupported::FoldedBiasFilterOffset,
        ));
    }
    KernelError::check_len(OP, Operand::FoldedBiases, p.output_depth, folded)
}

/// The kernel: `acc = Σ (w + filter_offset)·(x + input_offset) + bias_at(oc)`, requantized.
/// Not inlined: one copy per bias kind for the plain kernel, the folded one and their rows
/// in place (a call per operator costs nothing; each copy ~3 KB of flash).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn run<W: Int8, T: Int32s + ?Sized, O: Int8Out>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    input: &[i8],
    filter: &[W],
    (io, filter_offset): (i32, i32),
    (bias_at, bias_words): (impl Fn(usize) -> i32, Option<&[u32]>),
    output: &mut [O],
) -> Result<(), KernelError> {
    KernelError::check_len(OP, Operand::Multipliers, p.table_len(), multipliers.count())?;
    KernelError::check_len(OP, Operand::Shifts, p.table_len(), shifts.count())?;
    // The constructor bounded every product (each is at most a tensor's size).
    KernelError::check_len(
        OP,
        Operand::Input(0),
        p.batches * p.accum_depth,
        input.len(),
    )?;
    if filter.len() < p.output_depth * p.accum_depth {
        return Err(KernelError::Length {
            op: OP,
            operand: Operand::Filter,
            expected: p.output_depth * p.accum_depth,
            got: filter.len(),
        });
    }
    KernelError::check_len(
        OP,
        Operand::Output,
        p.batches * p.output_depth,
        output.len(),
    )?;
    let (depth, od) = (p.accum_depth, p.output_depth);
    // Per-tensor: one requantization for every output (the table has one entry, checked
    // above), made where a loop takes it (the DSP loop takes its own).
    let (m0, s0) = (multipliers.at(0), shifts.at(0));
    #[cfg(not(any(synaptic_dsp, synaptic_mla)))]
    let _ = bias_words;
    if !p.per_channel && depth > 0 && filter_offset == 0 && !Requantizer::saturates(m0) {
        // The usual per-tensor layer, its own loop: the requantization hoisted, no per-value
        // saturation test, the clamp bounds and offsets in registers.
        let (zp, lo, hi) = (p.output_offset, p.act_min, p.act_max);
        let filter = &filter[..od * depth];
        // On a Thumb-2 core, the bias words in place: the variant's loops where they pay
        // ([`dsp_rows`]; the Cortex-M3's requantization by `SMULL`).
        #[cfg(any(synaptic_dsp, synaptic_mla))]
        if let (Some(f), Some(bias)) =
            (dsp_rows(p, filter_offset, (m0, s0), bias_words), bias_words)
        {
            thumb2::rows_right(p, filter, input, io, bias, f, (m0, s0), output);
            return Ok(());
        }
        if cfg!(synaptic_dsp) {
            // With the DSP extension, a right shift (the usual scale below one half)
            // requantizes each accumulator whose double fits in 32 bits (one flag a value)
            // by the short sequence (`SMMULR`), the same result, any other value out of line
            // (where the variant's loops above do not apply);
            // another scale takes the general loop below (one per-tensor loop in the image).
            // Not elsewhere: there its 64-bit product costs what it saves (M3
            // micro_speech_quantized 9 instructions slower).
            let (m, s) = (m0, s0);
            if let Some(f) = RightRequantizer::new(m, s) {
                // The activation range all of int8 (no activation, or a ReLU whose zero point
                // is the lowest value): one saturation (`SSAT`), its bounds in no register.
                let full = lo == -128 && hi == 127;
                for b in 0..p.batches {
                    let row = &input[b * depth..(b + 1) * depth];
                    let orow = &mut output[b * od..(b + 1) * od];
                    each_dot(filter, row, io, depth, |oc, acc| {
                        let a = acc.wrapping_add(bias_at(oc));
                        let v = match f.try_apply(a) {
                            Some(v) => v,
                            None => requantize_wide(a, m, s),
                        }
                        .wrapping_add(zp);
                        let v = if full {
                            v.clamp(-128, 127)
                        } else {
                            v.max(lo).min(hi)
                        };
                        if let Some(o) = orow.get_mut(oc) {
                            *o = O::from_i8(v as i8);
                        }
                    });
                }
                return Ok(());
            }
        } else {
            let r0 = Requantizer::new(m0, s0);
            // Row `b` of the input and of the output (their lengths were checked above).
            for b in 0..p.batches {
                let row = &input[b * depth..(b + 1) * depth];
                let orow = &mut output[b * od..(b + 1) * od];
                each_dot(filter, row, io, depth, |oc, acc| {
                    let v = r0
                        .apply_unsaturated(acc.wrapping_add(bias_at(oc)))
                        .wrapping_add(zp);
                    if let Some(o) = orow.get_mut(oc) {
                        *o = O::from_i8(v.max(lo).min(hi) as i8);
                    }
                });
            }
            return Ok(());
        }
    }
    let r0 = Requantizer::new(m0, s0);
    let table = |oc: usize| {
        if p.per_channel {
            Requantizer::new(multipliers.at(oc), shifts.at(oc))
        } else {
            r0
        }
    };
    if depth == 0 {
        for (i, o) in output.iter_mut().enumerate() {
            *o = O::from_i8(requantize(bias_at(i % od), &table(i % od), p));
        }
        return Ok(());
    }
    for (row, orow) in input
        .chunks_exact(depth)
        .zip(output.chunks_exact_mut(od.max(1)))
    {
        // The filter holds at least `od * depth` values (checked above).
        if filter_offset == 0 {
            // The usual case (symmetric int8 weights, and every per-channel filter).
            each_dot(&filter[..od * depth], row, io, depth, |oc, acc| {
                if let Some(o) = orow.get_mut(oc) {
                    *o = O::from_i8(requantize(acc.wrapping_add(bias_at(oc)), &table(oc), p));
                }
            });
            continue;
        }
        for (oc, (o, weights)) in orow.iter_mut().zip(filter.chunks_exact(depth)).enumerate() {
            let mut acc: i32 = 0;
            for (w, &x) in weights.iter().zip(row) {
                acc = acc.wrapping_add((w.value() + filter_offset).wrapping_mul(i32::from(x) + io));
            }
            *o = O::from_i8(requantize(acc.wrapping_add(bias_at(oc)), &table(oc), p));
        }
    }
    Ok(())
}

/// FULLY_CONNECTED ([`fully_connected`]) with input and output in `buf`.
#[allow(clippy::too_many_arguments)]
pub fn fully_connected_in_place<W: Int8, B: Int32s + ?Sized, T: Int32s + ?Sized>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    bias: Option<&B>,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    if let Some(b) = bias {
        KernelError::check_len(OP, Operand::Bias, p.output_depth, b.count())?;
    }
    let filter_offset = if p.per_channel { 0 } else { p.filter_offset };
    let bias_at = |oc: usize| bias.map_or(0, |b| b.at(oc));
    in_place(
        p,
        multipliers,
        shifts,
        filter,
        (p.input_offset, filter_offset),
        &bias_at,
        buf,
        at,
    )
}

/// [`fully_connected_folded`] with input and output in `buf`: the input offset and bias
/// folded into the program's constants, as the plain kernel takes them.
#[allow(clippy::too_many_arguments)]
pub fn fully_connected_in_place_folded<W: Int8, T: Int32s + ?Sized>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    folded: &T,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    check_folded(p, folded.count())?;
    in_place(
        p,
        multipliers,
        shifts,
        filter,
        (0, 0),
        &|oc| folded.at(oc),
        buf,
        at,
    )
}

/// The in-place kernel: `acc = Σ (w + filter_offset)·(x + input_offset) + bias_at(oc)`, an
/// output element per step (the bias through a `dyn`: one copy of the loop for the bias and
/// the folded constants, an indirect call per output beside its dot product).
#[allow(clippy::too_many_arguments)]
fn in_place<W: Int8, T: Int32s + ?Sized>(
    p: &FullyConnectedParams,
    multipliers: &T,
    shifts: &T,
    filter: &[W],
    (input_offset, filter_offset): (i32, i32),
    bias_at: &dyn Fn(usize) -> i32,
    buf: &mut [u8],
    at: InPlace,
) -> Result<(), KernelError> {
    KernelError::check_len(OP, Operand::Multipliers, p.table_len(), multipliers.count())?;
    KernelError::check_len(OP, Operand::Shifts, p.table_len(), shifts.count())?;
    if filter.len() < p.output_depth * p.accum_depth {
        return Err(KernelError::Length {
            op: OP,
            operand: Operand::Filter,
            expected: p.output_depth * p.accum_depth,
            got: filter.len(),
        });
    }
    let contract = contract(p);
    check(OP, || contract, buf, &at)?;
    let n = p.batches * p.output_depth;
    // Short rows are copied to the stack at the row's first step (the contract's
    // `RowsBuffered`); longer ones are read from the buffer at every step (`Rows`).
    let buffered = matches!(contract.access, Access::RowsBuffered { .. });
    let mut row_copy = [0u8; FC_ROW_BUFFER];
    drive::<1>(buf, at.output, n, at.direction, |buf, j| {
        let (b, oc) = (j / p.output_depth, j % p.output_depth);
        let row_start = at.input + b * p.accum_depth;
        let first = match at.direction {
            Direction::Forward => oc == 0,
            Direction::Backward => oc + 1 == p.output_depth,
        };
        if buffered && first {
            row_copy[..p.accum_depth].copy_from_slice(&buf[row_start..row_start + p.accum_depth]);
        }
        let row: &[u8] = if buffered {
            &row_copy[..p.accum_depth]
        } else {
            &buf[row_start..row_start + p.accum_depth]
        };
        let weights = &filter[oc * p.accum_depth..(oc + 1) * p.accum_depth];
        let mut acc: i32 = 0;
        for (k, &w) in weights.iter().enumerate() {
            let x = row[k] as i8;
            acc = acc.wrapping_add(
                (w.value() + filter_offset).wrapping_mul(i32::from(x) + input_offset),
            );
        }
        acc = acc.wrapping_add(bias_at(oc));
        let (m, s) = if p.per_channel {
            (multipliers.at(oc), shifts.at(oc))
        } else {
            (multipliers.at(0), shifts.at(0))
        };
        let v = multiply_by_quantized_multiplier(acc, m, s).wrapping_add(p.output_offset);
        Ok([v.clamp(p.act_min, p.act_max) as i8 as u8])
    })
}

/// FULLY_CONNECTED with short rows ([`Access::RowsBuffered`]: at most [`FC_ROW_BUFFER`]
/// bytes) in `buf`, a row at a time in `at.direction`: the input row is copied to the stack,
/// then `row(x, out)` computes the row's outputs from the copy straight into the buffer (a
/// plain kernel with one batch, e.g. [`fully_connected_folded`] with
/// `u8` outputs). The same reads and writes as [`fully_connected`]'s steps up to their order
/// inside a row, which the contract does not constrain: only a row's first step reads, so
/// every write of row `r` must land outside the rows still to be read whatever the element —
/// the contract's bound at the row's extreme element says so for all of them.
pub fn fully_connected_rows(
    p: &FullyConnectedParams,
    buf: &mut [u8],
    at: InPlace,
    mut row: impl FnMut(&[i8], &mut [u8]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    const OP: &str = "FULLY_CONNECTED";
    if p.batches == 1 && p.accum_depth <= SHORT_ROW {
        // One short row (every FULLY_CONNECTED of a vector): it is copied before any output is
        // written, so every placement of the two in `buf` is safe — what the contract of
        // `Access::RowsBuffered` with one row says — and only the bounds are checked.
        let (ad, od) = (p.accum_depth, p.output_depth);
        let fits = |start: usize, n: usize| start.checked_add(n).filter(|&e| e <= buf.len());
        let (Some(in_end), Some(out_end)) = (fits(at.input, ad), fits(at.output, od)) else {
            return Err(KernelError::Length {
                op: OP,
                operand: Operand::BufferEnds,
                expected: at.input.max(at.output).saturating_add(ad.max(od)),
                got: buf.len(),
            });
        };
        let mut x = [0i8; SHORT_ROW];
        short_copy(&mut x, &buf[at.input..in_end]);
        return row(&x[..ad], &mut buf[at.output..out_end]);
    }
    let contract = contract(p);
    if !matches!(contract.access, Access::RowsBuffered { .. }) {
        return Err(KernelError::unsupported(OP, Unsupported::RowBuffer));
    }
    check(OP, || contract, buf, &at)?;
    // The row copy is zeroed first (safe Rust): a short row takes a short buffer.
    if p.accum_depth <= SHORT_ROW {
        rows_through::<SHORT_ROW>(p, buf, at, &mut row)
    } else {
        rows_through::<FC_ROW_BUFFER>(p, buf, at, &mut row)
    }
}

/// Rows of at most this many bytes are copied through a buffer of this size.
const SHORT_ROW: usize = 16;

/// Copies `src` (at most [`SHORT_ROW`] bytes; the rest are left) to the start of `x`: a word
/// at a time, then the last bytes, unrolled (no loop for the compiler to make a `memcpy`
/// call of: hello_world_int8's rows are 1 and 16 bytes).
#[inline(always)]
fn short_copy(x: &mut [i8; SHORT_ROW], src: &[u8]) {
    const _: () = assert!(SHORT_ROW == 16);
    let n = src.len().min(SHORT_ROW);
    let words = n / 4 * 4;
    for k in [0, 4, 8, 12] {
        if k < words {
            if let (Some(d), Some(s)) = (x.get_mut(k..k + 4), src.get(k..k + 4)) {
                let w = u32::from_le_bytes([s[0], s[1], s[2], s[3]]).to_le_bytes();
                d.copy_from_slice(&w.map(|b| b as i8));
            }
        }
    }
    for k in 0..3 {
        let i = words + k;
        if i < n {
            if let (Some(d), Some(&s)) = (x.get_mut(i), src.get(i)) {
                *d = s as i8;
            }
        }
    }
}

/// [`fully_connected_rows`]' loop, with a row buffer of `N >= accum_depth` bytes.
#[inline(always)]
fn rows_through<const N: usize>(
    p: &FullyConnectedParams,
    buf: &mut [u8],
    at: InPlace,
    row: &mut impl FnMut(&[i8], &mut [u8]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let (ad, od) = (p.accum_depth, p.output_depth);
    let mut x = [0i8; N];
    for r in 0..p.batches {
        let b = match at.direction {
            Direction::Forward => r,
            Direction::Backward => p.batches - 1 - r,
        };
        let src = at.input + b * ad;
        for (d, &v) in x[..ad].iter_mut().zip(&buf[src..src + ad]) {
            *d = v as i8;
        }
        let dst = at.output + b * od;
        row(&x[..ad], &mut buf[dst..dst + od])?;
    }
    Ok(())
}

/// FULLY_CONNECTED's access contract for its input 0: rows of at most [`FC_ROW_BUFFER`] bytes
/// are buffered ([`Access::RowsBuffered`]), longer ones re-read per output.
pub fn contract(p: &FullyConnectedParams) -> Contract {
    let (in_row, out_row) = (p.accum_depth, p.output_depth);
    Contract {
        access: if in_row <= FC_ROW_BUFFER {
            Access::RowsBuffered { in_row, out_row }
        } else {
            Access::Rows { in_row, out_row }
        },
        in_elems: p.batches * p.accum_depth,
        out_elems: p.batches * p.output_depth,
        in_elem_bytes: 1,
        out_elem_bytes: 1,
        backward: true,
    }
}

/// Prepares FULLY_CONNECTED.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 3)?;
    let (x, w, out) = (cx.input_ref(0)?, cx.input_ref(1)?, cx.output_ref()?);
    if crate::ops::float::BUILT && x.ty == TensorType::Float32 {
        return prepare_f32(cx, x, w, out);
    }
    if x.ty == TensorType::Int16 {
        return i16::prepare(cx, x, w, out);
    }
    cx.int8_activation(x, Operand::Input(0))?;
    cx.int8_activation(out, Operand::Output)?;
    if w.ty == TensorType::Int4 {
        return i4::prepare(cx, x, w, out);
    }
    if w.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Filter,
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(w, Operand::Filter)?;
    let o = cx.op().fully_connected_options()?;
    let fo = FullyConnectedOptions {
        activation: cx.activation(o.fused_activation)?,
        weights_format: o.weights_format,
    };
    cx.quantized(&[x, out])?;
    let rows = w.shape().first().copied().unwrap_or(0);
    // Per-channel scales read (and checked) only if there are several: one is `w.q.scale`.
    let scales = if w.scale_count > 1 {
        Some(cx.filter_scales(1, w, rows)?)
    } else {
        cx.quantized(&[w])?;
        None
    };
    let p = FullyConnectedParams::with_scale_count(
        &fo,
        x.shape(),
        w.shape(),
        out.shape(),
        x.q,
        scales.map_or(1, |s| s.len()),
        w.q.zero_point,
        out.q,
    )
    .map_err(|e| cx.err(e))?;
    cx.bias(2, p.output_depth)?;
    let table = match scales {
        Some(filter) if p.per_channel => Table::PerChannel {
            name: cx.name(),
            channels: p.output_depth,
            input: x.q.scale,
            filter,
            output: out.q.scale,
        },
        _ => Table::PerTensor {
            name: cx.name(),
            input: x.q.scale,
            filter: w.q.scale,
            output: out.q.scale,
        },
    };
    let constants = if p.folds(cx.isa) {
        // (Foldable: `folds` says so.)
        Constants::FoldedBiases {
            rows: p.output_depth,
            depth: p.accum_depth,
            input_offset: p.input_offset,
            filter: cx.data(1)?,
            bias: cx.data(2)?,
        }
    } else {
        Constants::None
    };
    Prepared::with::<FullyConnected>(cx, p, table, constants)
}

/// The FULLY_CONNECTED kernel, int8.
pub struct FullyConnected;

impl Kernel for FullyConnected {
    const NAME: &'static str = "FULLY_CONNECTED";
    const MAX_INPUTS: usize = 3;
    type Params = FullyConnectedParams;

    #[inline]
    fn run(p: &FullyConnectedParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        Self::run_linked::<crate::ops::AllOps>(p, io)
    }

    const PATHS: bool = true;

    fn paths(p: &FullyConnectedParams, constants: bool) -> u64 {
        let long = if p.accum_depth > FC_ROW_BUFFER {
            paths::FC_LONG_ROWS
        } else {
            0
        };
        long | if constants {
            paths::FC_FOLDED
        } else {
            paths::FC_BIAS
        }
    }

    #[inline]
    fn run_linked<O: OpSet>(
        p: &FullyConnectedParams,
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        let (m, s) = (io.multipliers(), io.shifts());
        let filter = p
            .filter_of(io.bytes(1))
            .ok_or(crate::ops::operands::differs(OP))?;
        let (x, c) = (io.i8(0)?, io.constants());
        linked::<O>(OP, Self::paths(p, !c.is_empty()))?;
        if pick::<O>(c.is_empty(), paths::FC_BIAS, paths::FC_FOLDED) {
            let bias = io.bias(2);
            // The output as bytes, as the in-place rows write it: one instantiation of each
            // loop for both.
            fully_connected(p, m, s, x, filter, bias.as_ref(), io.out_bytes())
        } else {
            // The bias and input offset folded at compile time (the program's constants).
            fully_connected_folded(p, m, s, x, filter, c, io.out_bytes())
        }
    }

    fn contract(p: &FullyConnectedParams, k: usize, _out: Geometry) -> Option<Contract> {
        (k == 0).then(|| contract(p))
    }

    fn run_in_place(
        p: &FullyConnectedParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        Self::run_in_place_linked::<crate::ops::AllOps>(p, io)
    }

    fn run_in_place_linked<O: OpSet>(
        p: &FullyConnectedParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        // One short row with the program's folded constants, on a Thumb-2 core: the
        // variant's loops straight on the buffer, the row copied first (so any placement of
        // input and output is safe, as `fully_connected_rows` says), where they apply; a
        // short body of its own before the other ways' (their frame's setup not paid here:
        // hello_world_int8 122 instructions an inference fewer on the M4, 34 on the M3).
        #[cfg(any(synaptic_dsp, synaptic_mla))]
        if let Some(n) = short_row_thumb2::<O>(p, io) {
            return Ok(n);
        }
        in_place_rows::<O>(p, io)
    }
}

/// [`FullyConnected`]'s in-place entry for one short row with the program's folded constants
/// on a Thumb-2 core, where [`dsp_rows`] applies (`None` elsewhere: the caller takes the
/// other ways, which refuse what this one does not check).
#[cfg(any(synaptic_dsp, synaptic_mla))]
#[inline(always)]
fn short_row_thumb2<O: OpSet>(
    p: &FullyConnectedParams,
    io: &mut InPlaceOperands<'_, '_>,
) -> Option<usize> {
    let c = io.constants();
    let (&m0, &s0) = (io.multipliers().first()?, io.shifts().first()?);
    // A row longer than a copy's takes one block's way, which only the DSP extension's
    // longer rows reach ([`dsp_rows`]): without it, such a row leaves first (measured: the
    // M4's tests in this order, its hello_world_int8 ~10 instructions an operator fewer).
    let long = p.accum_depth > SHORT_ROW;
    if c.is_empty() || p.batches != 1 || !cfg!(synaptic_dsp) && long {
        return None;
    }
    if !has::<O>(paths::FC_FOLDED) {
        return None;
    }
    let (m0, s0) = (m0 as i32, s0 as i32);
    let f = dsp_rows(p, p.filter_offset, (m0, s0), Some(c))?;
    let (ad, od) = (p.accum_depth, p.output_depth);
    let filter = p.filter_of(io.bytes(1))?;
    let (buf, at) = (&mut *io.buf, io.at);
    if ad >= 2 && od <= thumb2::BLOCK {
        // One block of outputs: every dot product made before any output is written, the
        // row read in place (kws_ref_model's 64 × 12 layer: no copy of the row).
        let bias = c.get(..od)?;
        let zp = p.output_offset;
        return thumb2::one_block_in_place(
            filter,
            buf,
            (at.input, at.output),
            ad,
            0,
            bias,
            f,
            (m0, s0),
            zp,
        );
    }
    if long {
        return None;
    }
    let fits = |start: usize, n: usize| start.checked_add(n).filter(|&e| e <= buf.len());
    let (in_end, out_end) = (fits(at.input, ad)?, fits(at.output, od)?);
    let mut x = [0i8; SHORT_ROW];
    short_copy(&mut x, &buf[at.input..in_end]);
    let o = &mut buf[at.output..out_end];
    thumb2::row_right(filter, &x[..ad], 0, c, f, (m0, s0), p.output_offset, o);
    Some(od)
}

/// [`FullyConnected`]'s in-place entry but for [`short_row_thumb2`]'s rows. Not inlined.
#[inline(never)]
fn in_place_rows<O: OpSet>(
    p: &FullyConnectedParams,
    io: &mut InPlaceOperands<'_, '_>,
) -> Result<usize, KernelError> {
    let (m, s) = (io.multipliers(), io.shifts());
    let filter = p
        .filter_of(io.bytes(1))
        .ok_or(crate::ops::operands::differs(OP))?;
    let out = p.batches * p.output_depth;
    let c = io.constants();
    // Read only without folded constants (a location decoded per call otherwise).
    let bias = if c.is_empty() { io.bias(2) } else { None };
    let (buf, at) = (&mut *io.buf, io.at);
    // Each way only where linked (parameters of another refused here and at load).
    linked::<O>(OP, FullyConnected::paths(p, !c.is_empty()))?;
    let plain = pick::<O>(c.is_empty(), paths::FC_BIAS, paths::FC_FOLDED);
    if p.accum_depth > FC_ROW_BUFFER && has::<O>(paths::FC_LONG_ROWS) {
        // Long rows, read in the buffer at every step: with the program's folded
        // constants when it has them (as the plain kernel), else the bias.
        if plain {
            fully_connected_in_place(p, m, s, filter, bias.as_ref(), buf, at)?;
        } else {
            fully_connected_in_place_folded(p, m, s, filter, c, buf, at)?;
        }
        return Ok(out);
    }
    // Short rows: a row at a time from its copy on the stack, through the plain kernel
    // writing into the buffer (folded constants when the program has them, as in `run`).
    let rows;
    let one = if p.batches == 1 {
        p
    } else {
        rows = FullyConnectedParams { batches: 1, ..*p };
        &rows
    };
    if plain {
        fully_connected_rows(p, buf, at, |x, o| {
            fully_connected(one, m, s, x, filter, bias.as_ref(), o)
        })?;
    } else {
        fully_connected_rows(p, buf, at, |x, o| {
            fully_connected_folded(one, m, s, x, filter, c, o)
        })?;
    }
    Ok(out)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(FullyConnectedParams {
    batches: usize,
    accum_depth: usize,
    output_depth: usize,
    input_offset: i32,
    filter_offset: i32,
    output_offset: i32,
    per_channel: bool,
    act_min: i32,
    act_max: i32,
});

/// A prepared float32 FULLY_CONNECTED (`reference_ops::FullyConnected`, float): made only by
/// [`FullyConnectedF32Params::new`] (the shapes checked as for int8).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullyConnectedF32Params {
    /// Rows of the input.
    pub(crate) batches: usize,
    /// Input elements per row.
    pub(crate) accum_depth: usize,
    /// Output elements per row.
    pub(crate) output_depth: usize,
    /// The fused activation's output range.
    pub(crate) range: FloatRange,
}

impl FullyConnectedF32Params {
    /// Prepares a float32 FULLY_CONNECTED; the filter is `[..., output_depth, accum_depth]`.
    pub fn new(
        opts: &FullyConnectedOptions,
        input_shape: &[usize],
        filter_shape: &[usize],
        output_shape: &[usize],
    ) -> Result<Self, KernelError> {
        let (batches, accum_depth, output_depth) =
            geometry(opts, input_shape, filter_shape, output_shape)?;
        Ok(FullyConnectedF32Params {
            batches,
            accum_depth,
            output_depth,
            range: FloatRange::new(opts.activation),
        })
    }
}

/// FULLY_CONNECTED, float32, as TFLM's reference kernel computes it: per output, `total = 0`,
/// `total += x[d] · w[d]` in order, then `total + bias` (`+ 0` without a bias: TFLM's
/// `bias_value`, which turns a `-0` total into `+0`), clamped. `filter` and `bias` are
/// little-endian float bytes (the model's, read in place).
pub fn fully_connected_f32(
    p: &FullyConnectedF32Params,
    input: &[f32],
    filter: &[u8],
    bias: Option<&[u8]>,
    output: &mut [f32],
) -> Result<(), KernelError> {
    let (ad, od) = (p.accum_depth, p.output_depth);
    KernelError::check_len(OP, Operand::Input(0), p.batches * ad, input.len())?;
    KernelError::check_len(OP, Operand::Filter, od * ad, filter.len() / 4)?;
    if let Some(b) = bias {
        KernelError::check_len(OP, Operand::Bias, od, b.len() / 4)?;
    }
    KernelError::check_len(OP, Operand::Output, p.batches * od, output.len())?;
    if ad == 0 {
        // Every total is +0 (TFLM's loop adds nothing).
        for (k, o) in output.iter_mut().enumerate() {
            let b = bias.map_or(0.0, |b| LeF32(b).at(k % od.max(1)));
            *o = p.range.apply(0.0 + b);
        }
        return Ok(());
    }
    for (x, out) in input
        .chunks_exact(ad)
        .zip(output.chunks_exact_mut(od.max(1)))
    {
        for (oc, (o, w)) in out.iter_mut().zip(filter.chunks_exact(4 * ad)).enumerate() {
            let mut total = 0.0f32;
            for (&x, w) in x.iter().zip(w.chunks_exact(4)) {
                total += x * f32::from_le_bytes([w[0], w[1], w[2], w[3]]);
            }
            let bias_value = bias.map_or(0.0, |b| LeF32(b).at(oc));
            *o = p.range.apply(total + bias_value);
        }
    }
    Ok(())
}

/// Prepares a float32 FULLY_CONNECTED (input `x` float32): a float filter and bias, or the
/// refusal TFLM gives a hybrid model (float activations, int8 weights).
fn prepare_f32<'m>(
    cx: &Prep<'_, 'm>,
    x: &TInfo<'_>,
    w: &TInfo<'_>,
    out: &TInfo<'_>,
) -> Result<Prepared<'m>, LoadError> {
    cx.activation_of(x, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(out, Operand::Output, TensorType::Float32)?;
    if w.ty != TensorType::Float32 {
        return Err(cx.unsupported(Unsupported::Hybrid));
    }
    cx.constant(w, Operand::Filter)?;
    let o = cx.op().fully_connected_options()?;
    let fo = FullyConnectedOptions {
        activation: cx.activation(o.fused_activation)?,
        weights_format: o.weights_format,
    };
    let p = FullyConnectedF32Params::new(&fo, x.shape(), w.shape(), out.shape())
        .map_err(|e| cx.err(e))?;
    cx.bias_of(2, p.output_depth, TensorType::Float32)?;
    Prepared::of::<FullyConnectedF32>(cx, p)
}

/// The FULLY_CONNECTED kernel, float32.
pub struct FullyConnectedF32;

impl Kernel for FullyConnectedF32 {
    const NAME: &'static str = "FULLY_CONNECTED";
    const MAX_INPUTS: usize = 3;
    type Params = FullyConnectedF32Params;

    #[inline]
    fn run(p: &FullyConnectedF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        // The filter may have more rows than the output uses (as for int8).
        let n = (4 * p.output_depth)
            .checked_mul(p.accum_depth)
            .ok_or(crate::ops::operands::differs(OP))?;
        let w = io
            .bytes(1)
            .get(..n)
            .ok_or(crate::ops::operands::differs(OP))?;
        let x = io.f32(0)?;
        let bias = Some(io.bytes(2)).filter(|b| !b.is_empty());
        fully_connected_f32(p, x, w, bias, io.out_f32()?)
    }
}

crate::format::codec::words!(FullyConnectedF32Params {
    batches: usize,
    accum_depth: usize,
    output_depth: usize,
    range: FloatRange,
});

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-value test of the short requantization ([`RightRequantizer::try_apply`]):
    /// exactly the values whose double fits in 32 bits, on which it gives the long one's result.
    #[test]
    fn within_bound_is_the_right_requantizers_domain() {
        let b = RightRequantizer::BOUND as i32;
        let f = RightRequantizer::new(1_518_500_250, -7).unwrap();
        for (a, inside) in [
            (0, true),
            (b - 1, true),
            (-b, true),
            (b, false),
            (-b - 1, false),
            (i32::MAX, false),
            (i32::MIN, false),
        ] {
            assert_eq!(f.try_apply(a).is_some(), inside, "{a}");
        }
        for (m, s) in [
            (1_073_741_824, -1),
            (1_518_500_250, -7),
            (2_147_483_647, -31),
        ] {
            let (fast, slow) = (RightRequantizer::new(m, s).unwrap(), Requantizer::new(m, s));
            for a in [
                0,
                1,
                -1,
                12_345,
                -12_345,
                b - 1,
                -(b - 1),
                b / 2 + 7,
                -(b / 2) - 7,
            ] {
                assert_eq!(fast.apply(a), slow.apply_unsaturated(a), "{m} {s} {a}");
                assert_eq!(fast.try_apply(a), Some(slow.apply(a)), "{m} {s} {a}");
                assert_eq!(requantize_wide(a, m, s), slow.apply(a));
            }
        }
    }
}
