//! SVDF, int8 input and output with int16 or int8 time weights and state: a rank-decomposed
//! fully connected layer over the last `memory` frames, its state kept across invocations.
//!
//! Mirrors `EvalIntegerSvdfReference` of `micro/kernels/svdf_common.cc` prepared by
//! `PrepareSvdf`: per invocation the state (`[batch, filters × memory]`, a variable tensor)
//! shifts left by one element; each filter's feature dot product (`(x − input_zp) · w`,
//! requantized by `input · feature / state` scales, clamped to the state type, plus the state's
//! zero point, stored with the state type's wrap) becomes its newest frame; the time dot
//! products (`w_time · (state − state_zp)`) of a unit's `rank` filters are summed with its bias
//! and requantized by `state · time / output` scales into int8. TFLM applies no fused
//! activation on this path (only int8's range), and neither does this kernel. Both scales are
//! computed in `float` and widened to `double`, as TFLM's. The two int32 buffers TFLM takes
//! from its arena (`scratch_tensor`, `scratch_output_tensor`) come from the operator's scratch
//! block ([`svdf_scratch_bytes`]).
//!
//! float32 (`EvalFloatSvdfReference`, [`svdf_f32`]): the same state shift, each filter's
//! feature dot product (`dot += w · x` in input order, single precision) its newest frame, the
//! time dot products into TFLM's one float scratch buffer, the output the bias plus each
//! unit's `rank` sums in order, then the fused
//! activation as TFLM's `ActivationValFloat` (`fmax`/`fmin` for the RELUs, glibc's `tanhf`,
//! the sign bit). Refused at load: an activation code outside the schema's (TFLM: none), and
//! an absent bias (TFLM's `Prepare` allows it, its `Eval` reads the bias regardless: the
//! wheel crashes).

use synaptic_mem::Scratch;
use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{multiply_by_quantized_multiplier, ratio_requantization_multiplier};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::SVDF];

const OP: &str = "SVDF";

/// A prepared int8 SVDF: made only by the operator's preparation (TFLM's `PrepareSvdf` checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SvdfParams {
    /// Batches (the input's first dimension).
    pub(crate) batches: usize,
    /// Input features a batch.
    pub(crate) input_size: usize,
    /// Filters (`units × rank`).
    pub(crate) filters: usize,
    /// Filters a unit.
    pub(crate) rank: usize,
    /// Frames each filter remembers.
    pub(crate) memory: usize,
    pub(crate) input_zero_point: i32,
    pub(crate) state_zero_point: i32,
    pub(crate) output_zero_point: i32,
    /// `input · feature / state` scales.
    pub(crate) multiplier_1: i32,
    pub(crate) shift_1: i32,
    /// `state · time / output` scales.
    pub(crate) multiplier_2: i32,
    pub(crate) shift_2: i32,
}

impl SvdfParams {
    /// Units (outputs a batch).
    fn units(&self) -> usize {
        self.filters.checked_div(self.rank).unwrap_or(0)
    }
}

/// The scratch bytes [`svdf`] takes for `p`: TFLM's two int32 buffers, one value per filter
/// and one per unit, a batch each.
pub fn svdf_scratch_bytes(p: &SvdfParams) -> usize {
    Scratch::span::<i32>(p.batches.saturating_mul(p.filters))
        .saturating_add(Scratch::span::<i32>(p.batches.saturating_mul(p.units())))
}

/// A state or time-weight element type (int16 or int8), read from and written to
/// little-endian bytes (the state lives in a variable tensor's bytes, the time weights in the
/// model's).
pub trait StateInt: Copy {
    /// Bytes of one element.
    const BYTES: usize;
    /// The type's range, as `i32`.
    const MIN: i32;
    /// The type's range, as `i32`.
    const MAX: i32;
    /// The element at `b[0..BYTES]`.
    fn read(b: &[u8]) -> i32;
    /// Writes `v` (wrapped to the type, as C++'s conversion) at `b[0..BYTES]`.
    fn write(b: &mut [u8], v: i32);
}

impl StateInt for i16 {
    const BYTES: usize = 2;
    const MIN: i32 = i16::MIN as i32;
    const MAX: i32 = i16::MAX as i32;
    #[inline]
    fn read(b: &[u8]) -> i32 {
        match b {
            [a, c, ..] => i32::from(i16::from_le_bytes([*a, *c])),
            _ => 0,
        }
    }
    #[inline]
    fn write(b: &mut [u8], v: i32) {
        if let Some(d) = b.get_mut(..2) {
            d.copy_from_slice(&(v as i16).to_le_bytes());
        }
    }
}

impl StateInt for i8 {
    const BYTES: usize = 1;
    const MIN: i32 = i8::MIN as i32;
    const MAX: i32 = i8::MAX as i32;
    #[inline]
    fn read(b: &[u8]) -> i32 {
        b.first().map_or(0, |&x| i32::from(x as i8))
    }
    #[inline]
    fn write(b: &mut [u8], v: i32) {
        if let Some(d) = b.first_mut() {
            *d = v as u8;
        }
    }
}

/// SVDF, int8 in and out, state and time weights of type `T` (`EvalIntegerSvdfReference<T>`):
/// `state` is the variable tensor's bytes (updated), `time` the time weights' bytes, `bias`
/// the int32 bias's bytes; `scratch` holds at least [`svdf_scratch_bytes`].
#[allow(clippy::too_many_arguments)]
pub fn svdf<T: StateInt>(
    p: &SvdfParams,
    input: &[i8],
    feature: &[u8],
    time: &[u8],
    bias: &[u8],
    state: &mut [u8],
    output: &mut [i8],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let (b_n, n_in, n_f, n_m, rank) = (p.batches, p.input_size, p.filters, p.memory, p.rank);
    let units = p.units();
    let len = |a: usize, b: usize| {
        a.checked_mul(b)
            .ok_or(KernelError::shape(OP, ShapeFault::Overflow))
    };
    let frames = len(len(b_n, n_f)?, n_m)?;
    KernelError::check_len(OP, Operand::Input(0), len(b_n, n_in)?, input.len())?;
    KernelError::check_len(OP, Operand::Input(1), len(n_f, n_in)?, feature.len())?;
    KernelError::check_len(
        OP,
        Operand::Input(2),
        len(len(n_f, n_m)?, T::BYTES)?,
        time.len(),
    )?;
    KernelError::check_len(OP, Operand::Bias, len(units, 4)?, bias.len())?;
    KernelError::check_len(OP, Operand::Input(4), len(frames, T::BYTES)?, state.len())?;
    KernelError::check_len(OP, Operand::Output, len(b_n, units)?, output.len())?;
    let (Some(acc), Some(sums)) = (
        scratch.take::<i32>(b_n * n_f),
        scratch.take::<i32>(b_n * units),
    ) else {
        return Err(KernelError::unsupported(OP, Unsupported::Scratch));
    };
    if frames == 0 || rank == 0 || n_m == 0 {
        output.fill(p.output_zero_point.clamp(-128, 127) as i8);
        return Ok(());
    }
    // Left shift of the whole state by one element (the oldest frame of each filter goes;
    // the last element of each row is overwritten below).
    state.copy_within(T::BYTES.., 0);
    // Feature dot products: each filter's newest frame.
    let row_bytes = n_m * T::BYTES;
    for (b, x) in input.chunks_exact(n_in.max(1)).take(b_n).enumerate() {
        for (r, w) in feature.chunks_exact(n_in.max(1)).take(n_f).enumerate() {
            let dot = x.iter().zip(w).fold(0i32, |d, (&x, &w)| {
                d.wrapping_add(i32::from(w as i8).wrapping_mul(i32::from(x) - p.input_zero_point))
            });
            let v = multiply_by_quantized_multiplier(dot, p.multiplier_1, p.shift_1)
                .clamp(T::MIN, T::MAX);
            let at = (b * n_f + r) * row_bytes + (n_m - 1) * T::BYTES;
            if let Some(d) = state.get_mut(at..) {
                T::write(d, p.state_zero_point.wrapping_add(v));
            }
        }
    }
    // Time dot products, one per filter and batch.
    for (b, acc_b) in acc.chunks_exact_mut(n_f).enumerate() {
        let rows = state.get(b * n_f * row_bytes..).unwrap_or(&[]);
        for ((a, s_row), w_row) in acc_b
            .iter_mut()
            .zip(rows.chunks_exact(row_bytes))
            .zip(time.chunks_exact(row_bytes))
        {
            let mut sum = 0i32;
            for (s, w) in s_row
                .chunks_exact(T::BYTES)
                .zip(w_row.chunks_exact(T::BYTES))
            {
                let d = T::read(s).wrapping_sub(p.state_zero_point);
                sum = sum.wrapping_add(T::read(w).wrapping_mul(d));
            }
            *a = sum;
        }
    }
    // Bias, the reduction over each unit's `rank` filters, the output requantization.
    for ((acc_b, sums_b), out_b) in acc
        .chunks_exact(n_f)
        .zip(sums.chunks_exact_mut(units.max(1)))
        .zip(output.chunks_exact_mut(units.max(1)))
    {
        for (((s, a), b), o) in sums_b
            .iter_mut()
            .zip(acc_b.chunks_exact(rank))
            .zip(bias.chunks_exact(4))
            .zip(out_b.iter_mut())
        {
            let bias = i32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            *s = a.iter().fold(bias, |t, &x| t.wrapping_add(x));
            let v = multiply_by_quantized_multiplier(*s, p.multiplier_2, p.shift_2)
                .wrapping_add(p.output_zero_point);
            *o = v.clamp(-128, 127) as i8;
        }
    }
    Ok(())
}

/// Prepares SVDF (`PrepareSvdf`, int8 input; float32: [`prepare_f32`]).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if crate::ops::float::BUILT && cx.input_ty(0) == Some(TensorType::Float32) {
        return prepare_f32(cx);
    }
    // TFLM requires all five inputs (its prepare reads the bias's scale).
    cx.inputs(5, 5)?;
    let (x, feature, time, bias, state) = (
        cx.input(0)?,
        cx.input(1)?,
        cx.input(2)?,
        cx.input(3)?,
        cx.input(4)?,
    );
    let out = cx.output()?;
    let (rank, _activation) = cx.op().svdf_options()?.unwrap_or((0, 0));
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    if feature.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(1),
            expected: TensorTypes::Int8,
        }));
    }
    cx.constant(&feature, Operand::Input(1))?;
    cx.constant(&time, Operand::Input(2))?;
    cx.constant(&bias, Operand::Bias)?;
    // The state: a variable tensor of the time weights' type (TFLM reads it as that type).
    let state_index = cx.v.inputs[4] as usize;
    if !cx.sg.tensor(state_index)?.is_variable()? {
        return Err(cx.unsupported(Unsupported::NotVariable));
    }
    let int16 = match (time.ty, state.ty) {
        (TensorType::Int16, TensorType::Int16) => true,
        (TensorType::Int8, TensorType::Int8) => false,
        _ => {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(4),
                expected: TensorTypes::Int8OrInt16,
            }))
        }
    };
    if bias.ty != TensorType::Int32 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Bias,
            expected: TensorTypes::Int32,
        }));
    }
    cx.quantized(&[&x, &feature, &time, &bias, &state, &out])?;
    // Shapes: input [batch, input], feature [filters, input], time [filters, memory], bias
    // [units], state [batch, memory × filters], output [batch, units].
    let dims2 = |t: &crate::model::TInfo<'_>| (t.rank == 2).then(|| (t.dims[0], t.dims[1]));
    let shape = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(cx.shape(ShapeFault::SizeDiffers))
        }
    };
    let (Some((batches, input_size)), Some((filters, f_in)), Some((t_f, memory))) =
        (dims2(&x), dims2(&feature), dims2(&time))
    else {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(0),
            min: 2,
        }));
    };
    let rank = usize::try_from(rank)
        .ok()
        .filter(|&r| r > 0 && filters % r == 0);
    let Some(rank) = rank else {
        return Err(cx.shape(ShapeFault::SvdfRank));
    };
    let units = filters / rank;
    shape(f_in == input_size && t_f == filters)?;
    shape(bias.rank == 1 && bias.dims[0] == units)?;
    shape(dims2(&state) == memory.checked_mul(filters).map(|m| (batches, m)))?;
    shape(dims2(&out) == Some((batches, units)))?;
    // The scales in double, each float widened first (the oracle wheel's `PrepareSvdf`; the
    // source at the anchors' commit rounds the products to float: see docs/runtime.md,
    // "Scale products in double"). A NaN difference is refused as TFLM's compare does.
    let state_time = f64::from(state.q.scale) * f64::from(time.q.scale);
    let diff = (f64::from(bias.q.scale) - state_time).abs();
    if diff.is_nan() || diff >= 1e-5 {
        return Err(cx.unsupported(Unsupported::BiasScale));
    }
    let ratio = |a, b, c| ratio_requantization_multiplier(OP, a, b, c).map_err(|e| cx.err(e));
    let (multiplier_1, shift_1) = ratio(x.q.scale, feature.q.scale, state.q.scale)?;
    let (multiplier_2, shift_2) = ratio(state.q.scale, time.q.scale, out.q.scale)?;
    let p = SvdfParams {
        batches,
        input_size,
        filters,
        rank,
        memory,
        input_zero_point: x.q.zero_point,
        state_zero_point: state.q.zero_point,
        output_zero_point: out.q.zero_point,
        multiplier_1,
        shift_1,
        multiplier_2,
        shift_2,
    };
    if int16 {
        Prepared::of::<Svdf>(cx, p)
    } else {
        Prepared::of::<SvdfI8>(cx, p)
    }
}

/// A prepared float32 SVDF: made only by the operator's preparation (TFLM's `PrepareSvdf`
/// checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SvdfF32Params {
    /// Batches (the input's first dimension).
    pub(crate) batches: usize,
    /// Input features a batch.
    pub(crate) input_size: usize,
    /// Filters (`units × rank`).
    pub(crate) filters: usize,
    /// Filters a unit.
    pub(crate) rank: usize,
    /// Frames each filter remembers (at least 1).
    pub(crate) memory: usize,
    /// The fused activation, the schema's code (0 to 5).
    pub(crate) activation: i32,
}

/// The scratch bytes [`svdf_f32`] takes for `p`: TFLM's float buffer, one value per filter a
/// batch.
pub fn svdf_f32_scratch_bytes(p: &SvdfF32Params) -> usize {
    Scratch::span::<f32>(p.batches.saturating_mul(p.filters))
}

/// TFLM's `ActivationValFloat` of the schema's activation code `act` (0 to 5; any other
/// refused at load): `fmax`/`fmin` (a NaN operand ignored), glibc's `tanhf`, the sign bit.
#[inline]
fn activation_val_f32(act: i32, a: f32) -> f32 {
    match act {
        1 => 0.0f32.max(a),
        2 => (-1.0f32).max(a.min(1.0)),
        3 => 0.0f32.max(a.min(6.0)),
        4 => crate::ops::float::tanhf(a),
        5 => f32::from(u8::from(a.is_sign_negative())),
        _ => a,
    }
}

/// Reads little-endian float `i` of `b` (0 past its end: the kernel checks the lengths first).
#[inline(always)]
fn le_f32(b: &[u8], i: usize) -> f32 {
    b.get(4 * i..4 * i + 4)
        .map_or(0.0, |w| f32::from_le_bytes([w[0], w[1], w[2], w[3]]))
}

/// SVDF, float32 (`EvalFloatSvdfReference`): `state` is the variable tensor's bytes (updated,
/// little-endian floats), `feature`, `time`, `bias` the constants' bytes; `scratch` holds at least [`svdf_f32_scratch_bytes`].
#[allow(clippy::too_many_arguments)]
pub fn svdf_f32(
    p: &SvdfF32Params,
    input: &[f32],
    feature: &[u8],
    time: &[u8],
    bias: &[u8],
    state: &mut [u8],
    output: &mut [f32],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let (b_n, n_in, n_f, n_m, rank) = (p.batches, p.input_size, p.filters, p.memory, p.rank);
    let units = n_f.checked_div(rank).unwrap_or(0);
    let len = |a: usize, b: usize| {
        a.checked_mul(b)
            .ok_or(KernelError::shape(OP, ShapeFault::Overflow))
    };
    let frames = len(len(b_n, n_f)?, n_m)?;
    KernelError::check_len(OP, Operand::Input(0), len(b_n, n_in)?, input.len())?;
    KernelError::check_len(
        OP,
        Operand::Input(1),
        len(len(n_f, n_in)?, 4)?,
        feature.len(),
    )?;
    KernelError::check_len(OP, Operand::Input(2), len(len(n_f, n_m)?, 4)?, time.len())?;
    KernelError::check_len(OP, Operand::Bias, len(units, 4)?, bias.len())?;
    KernelError::check_len(OP, Operand::Input(4), len(frames, 4)?, state.len())?;
    KernelError::check_len(OP, Operand::Output, len(b_n, units)?, output.len())?;
    if rank == 0 || n_m == 0 {
        return Err(KernelError::shape(OP, ShapeFault::SvdfRank));
    }
    let Some(acc) = scratch.take::<f32>(b_n * n_f) else {
        return Err(KernelError::unsupported(OP, Unsupported::Scratch));
    };
    // Left shift of the whole state by one float (the newest frame overwritten below).
    if frames > 0 {
        state.copy_within(4.., 0);
    }
    // Feature dot products: each filter's newest frame (`state[(b·filters + r)·memory +
    // memory − 1]`).
    for b in 0..b_n {
        let x = &input[b * n_in..(b + 1) * n_in];
        for r in 0..n_f {
            let mut dot = 0.0f32;
            for (k, &x) in x.iter().enumerate() {
                dot += le_f32(feature, r * n_in + k) * x;
            }
            let at = 4 * ((b * n_f + r) * n_m + n_m - 1);
            state[at..at + 4].copy_from_slice(&dot.to_le_bytes());
        }
    }
    // Time dot products, one per filter and batch.
    for b in 0..b_n {
        for i in 0..n_f {
            let mut sum = 0.0f32;
            for j in 0..n_m {
                sum += le_f32(time, i * n_m + j) * le_f32(state, (b * n_f + i) * n_m + j);
            }
            acc[b * n_f + i] = sum;
        }
    }
    // The bias, each unit's `rank` sums in order, the activation.
    for b in 0..b_n {
        for i in 0..units {
            let mut o = le_f32(bias, i);
            for j in 0..rank {
                o += acc[b * n_f + i * rank + j];
            }
            output[b * units + i] = activation_val_f32(p.activation, o);
        }
    }
    Ok(())
}

/// Prepares a float32 SVDF (`PrepareSvdf`'s float branch): float feature and time weights
/// and bias, a float variable state and output, TFLM's shapes.
#[cold]
#[inline(never)]
fn prepare_f32<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(5, 5)?;
    let (x, feature, time, state) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.input(4)?);
    // Required: TFLM's float `Eval` reads it even where its `Prepare` let it be absent.
    let bias = cx.input(3)?;
    let out = cx.output()?;
    let (rank, activation) = cx.op().svdf_options()?.unwrap_or((0, 0));
    cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
    for (t, k) in [
        (&feature, Operand::Input(1)),
        (&time, Operand::Input(2)),
        (&bias, Operand::Bias),
    ] {
        cx.type_of(t, k, TensorType::Float32, TensorTypes::Float32)?;
        cx.constant(t, k)?;
    }
    cx.type_of(
        &state,
        Operand::Input(4),
        TensorType::Float32,
        TensorTypes::Float32,
    )?;
    let state_index = cx.v.inputs[4] as usize;
    if !cx.sg.tensor(state_index)?.is_variable()? {
        return Err(cx.unsupported(Unsupported::NotVariable));
    }
    if !(0..=5).contains(&activation) {
        return Err(cx.unsupported(Unsupported::FusedActivation(activation)));
    }
    let dims2 = |t: &crate::model::TInfo<'_>| (t.rank == 2).then(|| (t.dims[0], t.dims[1]));
    let (Some((batches, input_size)), Some((filters, f_in)), Some((t_f, memory))) =
        (dims2(&x), dims2(&feature), dims2(&time))
    else {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(0),
            min: 2,
        }));
    };
    let rank = usize::try_from(rank)
        .ok()
        .filter(|&r| r > 0 && filters % r == 0 && memory > 0);
    let Some(rank) = rank else {
        return Err(cx.shape(ShapeFault::SvdfRank));
    };
    let units = filters / rank;
    let ok = f_in == input_size
        && t_f == filters
        && bias.rank == 1
        && bias.dims[0] == units
        && dims2(&state) == memory.checked_mul(filters).map(|m| (batches, m))
        && dims2(&out) == Some((batches, units));
    if !ok {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = SvdfF32Params {
        batches,
        input_size,
        filters,
        rank,
        memory,
        activation: i32::from(activation),
    };
    Prepared::of::<SvdfF32>(cx, p)
}

/// The SVDF kernel, float32.
pub struct SvdfF32;

impl Kernel for SvdfF32 {
    const NAME: &'static str = OP;
    type Params = SvdfF32Params;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its activation state.
    const STATE_INPUTS: u32 = 1 << 4;

    fn run(p: &SvdfF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.f32(0)?;
        let (feature, time, bias) = (io.bytes(1), io.bytes(2), io.bytes(3));
        let Operands {
            out,
            states,
            scratch,
            ..
        } = io;
        let out = out
            .as_mut_slice::<f32>()
            .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        let state = match states.first_mut() {
            Some(Some(s)) => &mut **s,
            _ => return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch)),
        };
        svdf_f32(p, x, feature, time, bias, state, out, scratch)
    }

    fn scratch_bytes(p: &SvdfF32Params) -> usize {
        svdf_f32_scratch_bytes(p)
    }
}

crate::format::codec::words!(SvdfF32Params {
    batches: usize,
    input_size: usize,
    filters: usize,
    rank: usize,
    memory: usize,
    activation: i32,
});

/// The SVDF kernel with int16 time weights and state.
pub struct Svdf;

/// The SVDF kernel with int8 time weights and state.
pub struct SvdfI8;

fn run<T: StateInt>(p: &SvdfParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
    let x = io.i8(0)?;
    let (feature, time, bias) = (io.bytes(1), io.bytes(2), io.bytes(3));
    let Operands {
        out,
        states,
        scratch,
        ..
    } = io;
    let out = out
        .as_mut_slice::<i8>()
        .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
    let state = match states.first_mut() {
        Some(Some(s)) => &mut **s,
        _ => return Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch)),
    };
    svdf::<T>(p, x, feature, time, bias, state, out, scratch)
}

impl Kernel for Svdf {
    const NAME: &'static str = OP;
    type Params = SvdfParams;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its activation state.
    const STATE_INPUTS: u32 = 1 << 4;

    #[inline]
    fn run(p: &SvdfParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<i16>(p, io)
    }

    fn scratch_bytes(p: &SvdfParams) -> usize {
        svdf_scratch_bytes(p)
    }
}

impl Kernel for SvdfI8 {
    const NAME: &'static str = OP;
    type Params = SvdfParams;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its activation state.
    const STATE_INPUTS: u32 = 1 << 4;

    #[inline]
    fn run(p: &SvdfParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<i8>(p, io)
    }

    fn scratch_bytes(p: &SvdfParams) -> usize {
        svdf_scratch_bytes(p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(SvdfParams {
    batches: usize,
    input_size: usize,
    filters: usize,
    rank: usize,
    memory: usize,
    input_zero_point: i32,
    state_zero_point: i32,
    output_zero_point: i32,
    multiplier_1: i32,
    shift_1: i32,
    multiplier_2: i32,
    shift_2: i32,
});
