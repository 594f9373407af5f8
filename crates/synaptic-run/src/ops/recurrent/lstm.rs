//! UNIDIRECTIONAL_SEQUENCE_LSTM: int8 activations and weights with an int16 cell state
//! ([`Lstm`]), and float32 ([`LstmF32`]); the hidden and cell state are variable tensors,
//! kept across invocations.
//!
//! Mirrors TFLM's `EvalLstm` (`micro/kernels/lstm_eval.h`, `lstm_eval.cc`) prepared by
//! `UnidirectionalSequenceLstmPrepare` (`unidirectional_sequence_lstm.cc`,
//! `lstm_eval_common.cc`). TFLM runs only the standard (Keras) LSTM: all four gates, no
//! peephole, projection or layer norm; this kernel refuses the rest as it does. Per time step
//! (all batches at once when time is the major dimension, else batch by batch), in TFLM's
//! order:
//!
//! 1. each gate (forget, input, cell, then after the cell update output) is
//!    `act(FC(x, W_x) + b + FC(h, W_h))`: two fully connected products into the cell type
//!    (int8: requantized to Q3.12 in int16, saturated; the sum saturated), then the sigmoid
//!    (the cell gate: tanh, the one activation TFLM's kernel takes there);
//! 2. `c = f·c + i·g` (int8: two element-wise multiplies requantized to the cell's scale,
//!    a saturating add), clipped to ±`cell_clip` when it is positive;
//! 3. `h = o·tanh(c)` (int8: requantized to the hidden state's scale and zero point), copied
//!    to the output at this step.
//!
//! The integer sigmoid and tanh are TFLM's int16 ones (`reference_integer_ops::Logistic`
//! and `Tanh` on int16): a 256-entry table of `sigmoid(i/24)` interpolated over the input's
//! low bits (`SIGMOID_TABLE`). The float kernel uses glibc's `expf` and `tanhf`
//! ([`crate::ops::float`]), as the TFLM wheel does. The four gate buffers TFLM takes from its arena
//! (`batch × state` of the cell type each) come from the operator's scratch block
//! ([`lstm_scratch_bytes`]).
//!
//! The 16x8 kernel (int16 activations, int64 biases: [`LstmI16`]) is
//! [`crate::ops::recurrent::lstm_16x8`]'s; this module prepares it.

use synaptic_mem::Scratch;
use synaptic_tflite::{code, TensorType};

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::math::{frexp, multiply_by_quantized_multiplier, requantization_multiplier};
use crate::model::TInfo;
use crate::ops::common::Int8;
use crate::ops::elementwise::logistic::logistic_f32_value;
use crate::ops::float::{tanhf, F32s, LeF32};
use crate::ops::recurrent::svdf::StateInt;
use crate::ops::{Kernel, Operands, Prep, Prepared};

pub use super::lstm_16x8::LstmI16;

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::UNIDIRECTIONAL_SEQUENCE_LSTM];

pub(crate) const OP: &str = "UNIDIRECTIONAL_SEQUENCE_LSTM";

/// The input positions (TFLite's, `lstm_shared.h`).
pub(crate) mod at {
    /// The input sequence.
    pub const INPUT: usize = 0;
    /// Input-to-gate weights of gate `g` (input, forget, cell, output): `INPUT_WEIGHTS + g`.
    pub const INPUT_WEIGHTS: usize = 1;
    /// Recurrent (hidden-to-gate) weights of gate `g`.
    pub const RECURRENT_WEIGHTS: usize = 5;
    /// Peephole weights (cell to input, forget, output): 9, 10, 11.
    pub const PEEPHOLE: usize = 9;
    /// Gate biases of gate `g`.
    pub const BIAS: usize = 12;
    /// Projection weights and bias: 16, 17.
    pub const PROJECTION: usize = 16;
    /// The hidden (output) state.
    pub const HIDDEN: usize = 18;
    /// The cell state.
    pub const CELL: usize = 19;
    /// Layer-norm coefficients: 20 to 23.
    pub const LAYER_NORM: usize = 20;
    /// Inputs in all.
    pub const COUNT: usize = 24;
}

/// The gates, in TFLite's tensor order (weights, biases).
pub(crate) const INPUT_GATE: usize = 0;
pub(crate) const FORGET_GATE: usize = 1;
pub(crate) const CELL_GATE: usize = 2;
pub(crate) const OUTPUT_GATE: usize = 3;

/// The sizes of an LSTM (TFLM's `LstmSizeInfo`), for either data type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LstmShape {
    /// Whether the input is `[time, batch, input]` (else `[batch, time, input]`).
    pub(crate) time_major: bool,
    /// Batches.
    pub(crate) batches: usize,
    /// Time steps per invocation.
    pub(crate) time_steps: usize,
    /// Input features per step.
    pub(crate) input_size: usize,
    /// Cells (hidden and cell state per batch; output features per step).
    pub(crate) state_size: usize,
}

impl LstmShape {
    /// Batches one step computes at once (all when time is major, else one).
    pub(crate) fn rows(&self) -> usize {
        if self.time_major {
            self.batches
        } else {
            1
        }
    }

    /// The steps of one invocation, in TFLM's order: `(input offset, output offset, state
    /// offset)` in elements, each step covering [`LstmShape::rows`] batches.
    pub(crate) fn steps(&self) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        let (outer, inner) = if self.time_major {
            (1, self.time_steps)
        } else {
            (self.batches, self.time_steps)
        };
        let rows = self.rows();
        (0..outer).flat_map(move |b| {
            (0..inner).map(move |t| {
                let step = b * inner + t;
                (
                    step * rows * self.input_size,
                    step * rows * self.state_size,
                    b * self.state_size,
                )
            })
        })
    }

    /// Elements of the input, the output and each state, checked against `i32` sizes.
    fn sizes(&self) -> Option<(usize, usize, usize)> {
        let seq = self.batches.checked_mul(self.time_steps)?;
        Some((
            seq.checked_mul(self.input_size)?,
            seq.checked_mul(self.state_size)?,
            self.batches.checked_mul(self.state_size)?,
        ))
    }
}

/// A prepared integer LSTM with an int16 cell (int8, or 16x8: [`LstmI16`]): made only by the
/// operator's preparation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LstmParams {
    pub(crate) shape: LstmShape,
    /// The input's zero point.
    pub(crate) input_zero_point: i32,
    /// The hidden state's zero point (the recurrent products' input offset and the hidden
    /// update's output offset).
    pub(crate) hidden_zero_point: i32,
    /// Requantization of the input products of gate `g` (into Q3.12), then (`4 + g`) of its
    /// recurrent products.
    pub(crate) fc_multiplier: [i32; 8],
    pub(crate) fc_shift: [i32; 8],
    /// Forget gate × cell → cell.
    pub(crate) forget_multiplier: i32,
    pub(crate) forget_shift: i32,
    /// Input gate × cell gate → cell.
    pub(crate) input_multiplier: i32,
    pub(crate) input_shift: i32,
    /// Output gate × tanh(cell) → hidden.
    pub(crate) output_multiplier: i32,
    pub(crate) output_shift: i32,
    /// The cell's clip, quantized (negative: none).
    pub(crate) cell_clip: i32,
    /// The int16 tanh of the cell (its input multiplier and right shift, TFLM's `Tanh`
    /// arguments for the cell's power-of-two scale).
    pub(crate) tanh_multiplier: i32,
    pub(crate) tanh_shift: i32,
}

/// A prepared float32 LSTM.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LstmF32Params {
    pub(crate) shape: LstmShape,
    /// The cell's clip (0: none).
    pub(crate) cell_clip: f32,
}

/// The scratch bytes [`lstm`] takes for `p`: TFLM's four gate buffers of `batch × state`
/// int16 each.
pub fn lstm_scratch_bytes(p: &LstmParams) -> usize {
    Scratch::span::<i16>(p.shape.batches.saturating_mul(p.shape.state_size)).saturating_mul(4)
}

/// The scratch bytes [`lstm_f32`] takes for `p`: four float buffers of `batch × state`.
pub fn lstm_f32_scratch_bytes(p: &LstmF32Params) -> usize {
    Scratch::span::<f32>(p.shape.batches.saturating_mul(p.shape.state_size)).saturating_mul(4)
}

/// The operand lengths both kernels check, in their own units: `got` is the input's and
/// the output's elements and the hidden and cell state's bytes (`state_units`: bytes per
/// state element); `gates` each gate's input weights, recurrent weights and bias
/// (`bias_unit` per bias element).
pub(crate) fn check_lengths(
    sh: &LstmShape,
    [x, out, hidden, cell]: [usize; 4],
    (hidden_unit, cell_unit): (usize, usize),
    gates: [[usize; 3]; 4],
    bias_unit: usize,
) -> Result<(), KernelError> {
    let (n_x, n_out, n_state) = sh
        .sizes()
        .ok_or(KernelError::shape(OP, ShapeFault::Overflow))?;
    let (ni, ns) = (sh.input_size, sh.state_size);
    KernelError::check_len(OP, Operand::Input(0), n_x, x)?;
    KernelError::check_len(OP, Operand::Output, n_out, out)?;
    KernelError::check_len(OP, Operand::Input(18), hidden_unit * n_state, hidden)?;
    KernelError::check_len(OP, Operand::Input(19), cell_unit * n_state, cell)?;
    for (k, [w, r, b]) in (0u8..).zip(gates) {
        KernelError::check_len(OP, Operand::Input(1 + k), ns * ni, w)?;
        KernelError::check_len(OP, Operand::Input(5 + k), ns * ns, r)?;
        KernelError::check_len(OP, Operand::Input(12 + k), bias_unit * ns, b)?;
    }
    Ok(())
}

/// `sigmoid(i / 24)` in 0.16 fixed point, `i` in `0..256`: the table TFLM's int16 sigmoid
/// and tanh interpolate (`sigmoid_table_uint16` of `kernels/internal/common.h`; its values
/// are TFLM's, not recomputed: 44 of them differ by one from `round(65536·sigmoid(i/24))`).
#[rustfmt::skip]
pub(crate) const SIGMOID_TABLE: [u16; 256] = [
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498,
    40149, 40794, 41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255,
    46817, 47369, 47911, 48443, 48964, 49475, 49975, 50464, 50942, 51409, 51865,
    52311, 52745, 53169, 53581, 53983, 54374, 54755, 55125, 55485, 55834, 56174,
    56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544, 58800, 59048, 59288,
    59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279, 61441,
    61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886,
    62990, 63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835,
    63903, 63968, 64030, 64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450,
    64494, 64536, 64576, 64614, 64652, 64687, 64721, 64754, 64786, 64816, 64845,
    64873, 64900, 64926, 64950, 64974, 64997, 65019, 65039, 65060, 65079, 65097,
    65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234, 65246, 65258,
    65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425,
    65429, 65433, 65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465,
    65468, 65471, 65474, 65476, 65479, 65481, 65483, 65485, 65488, 65489, 65491,
    65493, 65495, 65497, 65498, 65500, 65501, 65503, 65504, 65505, 65507, 65508,
    65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516, 65517, 65517, 65518,
    65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524, 65525,
    65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529,
    65529, 65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531,
    65532, 65532, 65532, 65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533,
    65533, 65533, 65533, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534,
    65534, 65534, 65535,
];

/// The table's interpolation at `abs >> bits` with the low `bits` bits as the fraction (the
/// saturated `max` past the table): TFLM's `(ua << bits) + ut * (ub - ua)` in `uint32`.
#[inline(always)]
pub(crate) fn interpolate(abs: u32, bits: u32, max: u32) -> u32 {
    let uh = (abs >> bits) as usize;
    match (SIGMOID_TABLE.get(uh), SIGMOID_TABLE.get(uh + 1)) {
        (Some(&a), Some(&b)) if uh < 255 => {
            let (a, b) = (u32::from(a), u32::from(b));
            let ut = abs & ((1 << bits) - 1);
            (a << bits).wrapping_add(ut.wrapping_mul(b.wrapping_sub(a)))
        }
        _ => max,
    }
}

/// TFLM's int16 sigmoid (`reference_integer_ops::Logistic` with multiplier 0 and shift 0,
/// as the LSTM calls it): the Q3.12 input times 3, Q0.15 out.
#[inline]
pub(crate) fn sigmoid_i16(x: i16) -> i16 {
    let v = i32::from(x) * 3;
    let r = interpolate(v.unsigned_abs(), 9, 0x7FFF << 10);
    let r = if v >= 0 {
        r.wrapping_add(1 << 9)
    } else {
        (1u32 << 25).wrapping_sub(r).wrapping_add((1 << 9) - 1)
    };
    (r >> 10) as i16
}

/// TFLM's int16 tanh (`reference_integer_ops::Tanh` on int16) with its input `multiplier`
/// and right `shift` (a multiplier of 0: `3 << shift`, no shift), Q0.15 out.
#[inline]
pub(crate) fn tanh_i16(x: i16, multiplier: i32, shift: i32) -> i16 {
    // The prepared range (left 0..=14, right 1..=31) computes without overflow; the wrapping
    // forms only keep any other value from panicking.
    let (m, s) = if multiplier == 0 {
        (3i32.wrapping_shl(shift.clamp(0, 31) as u32), 0)
    } else {
        (multiplier, shift.clamp(0, 31))
    };
    let round = if s > 0 { 1 << (s - 1) } else { 0 };
    let v = i32::from(x).wrapping_mul(m).wrapping_add(round) >> s;
    let r = interpolate(v.unsigned_abs(), 8, 0xFFFF << 8) as i32;
    let r = if v >= 0 {
        r - (1 << 23) + (1 << 7)
    } else {
        -r + (1 << 23) + (1 << 7) - 1
    };
    (r >> 8) as i16
}

/// Reads little-endian int16 element `i` of `b` (0 past its end: the kernel checked lengths),
/// with SVDF's state codec.
#[inline(always)]
pub(crate) fn get16(b: &[u8], i: usize) -> i16 {
    b.get(2 * i..)
        .map_or(0, |e| <i16 as StateInt>::read(e) as i16)
}

/// Writes little-endian int16 element `i` of `b` (SVDF's state codec).
#[inline(always)]
pub(crate) fn set16(b: &mut [u8], i: usize, v: i16) {
    if let Some(e) = b.get_mut(2 * i..) {
        <i16 as StateInt>::write(e, v.into());
    }
}

/// `out[r·n + c] = clamp16(MBQM(Σ_d w[c·k + d]·(x[r·k + d] − zp) + bias[c]))` for `rows`
/// rows of `x` (`k` wide) and `n` outputs: TFLM's integer FULLY_CONNECTED into int16 with
/// zero output offset and no activation (weights symmetric, checked at load).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn fc_i16<X: Int8>(
    x: &[X],
    k: usize,
    zp: i32,
    w: &[u8],
    bias: Option<&[u8]>,
    (multiplier, shift): (i32, i32),
    out: &mut [i16],
    n: usize,
) {
    for (xr, or) in x.chunks_exact(k.max(1)).zip(out.chunks_exact_mut(n.max(1))) {
        for (c, (o, wr)) in or.iter_mut().zip(w.chunks_exact(k.max(1))).enumerate() {
            let mut acc = xr.iter().zip(wr).fold(0i32, |a, (&x, &w)| {
                a.wrapping_add(w.value().wrapping_mul(x.value() - zp))
            });
            if let Some(b) = bias.and_then(|b| b.get(4 * c..4 * c + 4)) {
                acc = acc.wrapping_add(i32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            }
            let v = multiply_by_quantized_multiplier(acc, multiplier, shift);
            *o = v.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        }
    }
}

/// One int8 gate (`CalculateLstmGate`): `act(FC(x, W_x) + b + FC(h, W_h))` into `out`, the
/// recurrent product in `tmp`; `act` the int16 tanh (the cell gate: Q3.12 in, TFLM's
/// `cell_state_scale_power` -12) or sigmoid. Not inlined: one copy for the four gates.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn gate_i16(
    p: &LstmParams,
    d: &LstmI8Data<'_>,
    g: usize,
    (x, h): (&[i8], &[u8]),
    out: &mut [i16],
    tmp: &mut [i16],
    tanh: bool,
) {
    let (ni, ns) = (p.shape.input_size, p.shape.state_size);
    let fc = |k: usize| (p.fc_multiplier[k], p.fc_shift[k]);
    let (w, b) = (d.input_weights[g], Some(d.biases[g]));
    fc_i16(x, ni, p.input_zero_point, w, b, fc(g), out, ns);
    let w = d.recurrent_weights[g];
    fc_i16(h, ns, p.hidden_zero_point, w, None, fc(4 + g), tmp, ns);
    for (o, &t) in out.iter_mut().zip(tmp.iter()) {
        let s = sat_add(*o, t);
        *o = if tanh {
            tanh_i16(s, 0, 0)
        } else {
            sigmoid_i16(s)
        };
    }
}

/// `a + b`, saturated to int16 (TFLM's `AddElementWise`).
#[inline(always)]
pub(crate) fn sat_add(a: i16, b: i16) -> i16 {
    (i32::from(a) + i32::from(b)).clamp(i16::MIN.into(), i16::MAX.into()) as i16
}

/// `clamp(zp + MBQM(a·b), lo, hi)` (TFLM's `MulElementwise` with zero input offsets).
#[inline(always)]
pub(crate) fn mul(a: i16, b: i16, (m, s): (i32, i32), zp: i32, (lo, hi): (i32, i32)) -> i32 {
    zp.wrapping_add(multiply_by_quantized_multiplier(
        i32::from(a) * i32::from(b),
        m,
        s,
    ))
    .clamp(lo, hi)
}

/// The int8 operands of one LSTM: the input sequence, the weights and biases of the four
/// gates (model bytes: int8 and little-endian int32), the states (hidden int8, cell int16
/// little-endian bytes) and the output sequence.
pub struct LstmI8Data<'a> {
    /// The input, `[batch, time, input]` or `[time, batch, input]`.
    pub input: &'a [i8],
    /// Input-to-gate weights (`[state, input]`) of the input, forget, cell, output gates.
    pub input_weights: [&'a [u8]; 4],
    /// Recurrent weights (`[state, state]`), same order.
    pub recurrent_weights: [&'a [u8]; 4],
    /// Gate biases (`[state]` int32), same order.
    pub biases: [&'a [u8]; 4],
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations and weights, int16 cell (`EvalLstm<int8_t,
/// int8_t, int16_t, int32_t>`): `hidden` (int8) and `cell` (int16 little-endian) are the
/// state's bytes, updated; `scratch` holds at least [`lstm_scratch_bytes`].
pub fn lstm(
    p: &LstmParams,
    d: &LstmI8Data<'_>,
    hidden: &mut [u8],
    cell: &mut [u8],
    output: &mut [i8],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let sh = p.shape;
    let (ni, ns) = (sh.input_size, sh.state_size);
    let gates = core::array::from_fn(|g| {
        let (w, r, b) = (d.input_weights[g], d.recurrent_weights[g], d.biases[g]);
        [w.len(), r.len(), b.len()]
    });
    let got = [d.input.len(), output.len(), hidden.len(), cell.len()];
    check_lengths(&sh, got, (1, 2), gates, 4)?;
    let n = sh.rows() * ns;
    let bufs = (
        scratch.take::<i16>(n),
        scratch.take::<i16>(n),
        scratch.take::<i16>(n),
        scratch.take::<i16>(n),
    );
    let (Some(b0), Some(b1), Some(b2), Some(b3)) = bufs else {
        return Err(KernelError::unsupported(OP, Unsupported::Scratch));
    };
    let i16_range = (i32::from(i16::MIN), i32::from(i16::MAX));
    for (x_at, out_at, state_at) in sh.steps() {
        let x = d.input.get(x_at..x_at + sh.rows() * ni).unwrap_or(&[]);
        let hs = state_at..state_at + n;
        let h: &[u8] = hidden.get(hs.clone()).unwrap_or(&[]);
        let gate =
            |g, out: &mut [i16], tmp: &mut [i16], tanh| gate_i16(p, d, g, (x, h), out, tmp, tanh);
        gate(FORGET_GATE, b0, b3, false);
        gate(INPUT_GATE, b1, b3, false);
        gate(CELL_GATE, b2, b3, true);
        // c = f·c + i·g, clipped.
        let forget = (p.forget_multiplier, p.forget_shift);
        let input = (p.input_multiplier, p.input_shift);
        for (j, ((&f, &i), &g)) in b0.iter().zip(b1.iter()).zip(b2.iter()).enumerate() {
            let c = get16(cell, state_at + j);
            let fc = mul(f, c, forget, 0, i16_range) as i16;
            let ig = mul(i, g, input, 0, i16_range) as i16;
            let mut c = sat_add(fc, ig);
            if p.cell_clip >= 0 {
                let clip = p.cell_clip as i16;
                c = c.min(clip).max(-clip);
            }
            set16(cell, state_at + j, c);
        }
        gate(OUTPUT_GATE, b1, b3, false);
        // h = o·tanh(c), to the output.
        let out_mul = (p.output_multiplier, p.output_shift);
        let dst = output.get_mut(out_at..out_at + n).unwrap_or(&mut []);
        for (j, (&o, y)) in b1.iter().zip(dst.iter_mut()).enumerate() {
            let t = tanh_i16(get16(cell, state_at + j), p.tanh_multiplier, p.tanh_shift);
            let h = mul(t, o, out_mul, p.hidden_zero_point, (-128, 127)) as i8;
            if let Some(s) = hidden.get_mut(state_at + j) {
                *s = h as u8;
            }
            *y = h;
        }
    }
    Ok(())
}

/// The float32 operands of one LSTM (weights and biases: little-endian model bytes).
pub struct LstmF32Data<'a> {
    /// The input sequence.
    pub input: &'a [f32],
    /// Input-to-gate weights, input, forget, cell, output gates.
    pub input_weights: [LeF32<'a>; 4],
    /// Recurrent weights, same order.
    pub recurrent_weights: [LeF32<'a>; 4],
    /// Gate biases, same order.
    pub biases: [LeF32<'a>; 4],
}

/// `out[r·n + c] = Σ_d x[r·k + d]·w[c·k + d] + bias[c]` for the rows of `out`, clamped to
/// the finite floats (TFLM's float FULLY_CONNECTED without activation: its sum in input
/// order, the bias added last); `x` an arena slice or a state's bytes.
fn fc_f32<X: F32s + ?Sized>(
    x: &X,
    k: usize,
    w: LeF32<'_>,
    bias: Option<LeF32<'_>>,
    out: &mut [f32],
    n: usize,
) {
    for (r, or) in out.chunks_exact_mut(n.max(1)).enumerate() {
        for (c, o) in or.iter_mut().enumerate() {
            let mut total = 0.0f32;
            for d in 0..k {
                let i = r * k + d;
                if i < x.count() {
                    total += x.at(i) * w.at(c * k + d);
                }
            }
            let b = bias.map_or(0.0, |b| b.at(c));
            *o = finite(total + b);
        }
    }
}

/// Reads little-endian float element `i` of `b` (0 past its end).
#[inline(always)]
fn get_f32(b: &[u8], i: usize) -> f32 {
    match b.get(4 * i..4 * i + 4) {
        Some(&[a, b, c, d]) => f32::from_le_bytes([a, b, c, d]),
        _ => 0.0,
    }
}

/// Writes little-endian float element `i` of `b`.
#[inline(always)]
fn set_f32(b: &mut [u8], i: usize, v: f32) {
    if let Some(d) = b.get_mut(4 * i..4 * i + 4) {
        d.copy_from_slice(&v.to_le_bytes());
    }
}

/// One float gate (`CalculateLstmGate<float>`): `act(FC(x) + b + FC(h))` into `out`, `act`
/// glibc's `tanhf` (the cell gate) or TFLM's float logistic. Not inlined: one copy for the
/// four gates.
#[inline(never)]
fn gate_f32(
    p: &LstmF32Params,
    d: &LstmF32Data<'_>,
    g: usize,
    (x, h): (&[f32], LeF32<'_>),
    out: &mut [f32],
    tmp: &mut [f32],
    tanh: bool,
) {
    let (ni, ns) = (p.shape.input_size, p.shape.state_size);
    fc_f32(x, ni, d.input_weights[g], Some(d.biases[g]), out, ns);
    fc_f32(&h, ns, d.recurrent_weights[g], None, tmp, ns);
    for (o, &t) in out.iter_mut().zip(tmp.iter()) {
        let s = *o + t;
        *o = if tanh {
            tanhf(s)
        } else {
            logistic_f32_value(s)
        };
    }
}

/// `std::min(std::max(x, lowest), max)`: TFLM's clamp to the finite floats.
#[inline(always)]
fn finite(x: f32) -> f32 {
    crate::ops::float::FloatRange::new(crate::math::Activation::None).apply(x)
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM, float32 (`EvalLstm<float, float, float, float>`): `hidden`
/// and `cell` are the state's little-endian bytes (updated); `scratch` holds at least
/// [`lstm_f32_scratch_bytes`].
pub fn lstm_f32(
    p: &LstmF32Params,
    d: &LstmF32Data<'_>,
    hidden: &mut [u8],
    cell: &mut [u8],
    output: &mut [f32],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let sh = p.shape;
    let (ni, ns) = (sh.input_size, sh.state_size);
    let gates = core::array::from_fn(|g| {
        let (w, r, b) = (&d.input_weights[g], &d.recurrent_weights[g], &d.biases[g]);
        [w.count(), r.count(), b.count()]
    });
    let got = [d.input.len(), output.len(), hidden.len(), cell.len()];
    check_lengths(&sh, got, (4, 4), gates, 1)?;
    let n = sh.rows() * ns;
    let bufs = (
        scratch.take::<f32>(n),
        scratch.take::<f32>(n),
        scratch.take::<f32>(n),
        scratch.take::<f32>(n),
    );
    let (Some(b0), Some(b1), Some(b2), Some(b3)) = bufs else {
        return Err(KernelError::unsupported(OP, Unsupported::Scratch));
    };
    for (x_at, out_at, state_at) in sh.steps() {
        let x = d.input.get(x_at..x_at + sh.rows() * ni).unwrap_or(&[]);
        let hs = state_at..state_at + n;
        let h = LeF32(hidden.get(4 * hs.start..4 * hs.end).unwrap_or(&[]));
        let gate =
            |g, out: &mut [f32], tmp: &mut [f32], tanh| gate_f32(p, d, g, (x, h), out, tmp, tanh);
        gate(FORGET_GATE, b0, b3, false);
        gate(INPUT_GATE, b1, b3, false);
        gate(CELL_GATE, b2, b3, true);
        for (j, ((&f, &i), &g)) in b0.iter().zip(b1.iter()).zip(b2.iter()).enumerate() {
            let c = get_f32(cell, state_at + j);
            let v = finite(f * c) + finite(i * g);
            let v = if p.cell_clip > 0.0 {
                // std::max(std::min(clip, v), -clip): NaN becomes the clip.
                let m = if v < p.cell_clip { v } else { p.cell_clip };
                if m < -p.cell_clip {
                    -p.cell_clip
                } else {
                    m
                }
            } else {
                v
            };
            set_f32(cell, state_at + j, v);
        }
        gate(OUTPUT_GATE, b1, b3, false);
        let dst = output.get_mut(out_at..out_at + n).unwrap_or(&mut []);
        for (j, (y, &o)) in dst.iter_mut().zip(b1.iter()).enumerate() {
            let h = finite(tanhf(get_f32(cell, state_at + j)) * o);
            set_f32(hidden, state_at + j, h);
            *y = h;
        }
    }
    Ok(())
}

/// The checks of `UnidirectionalSequenceLstmPrepare` both data types share: 24 inputs, the
/// standard LSTM's tensors present and the variants' absent, the states distinct variable
/// tensors, the shapes (`ValidateTensorSize`), the cell activation TANH; returns the shape
/// and the options' cell clip.
pub(crate) fn prepare_shape(cx: &Prep<'_, '_>) -> Result<(LstmShape, f32), LoadError> {
    cx.inputs(at::COUNT, at::COUNT)?;
    let variant = (at::PEEPHOLE..at::PEEPHOLE + 3)
        .chain(at::PROJECTION..at::PROJECTION + 2)
        .chain(at::LAYER_NORM..at::LAYER_NORM + 4);
    if variant.into_iter().any(|k| cx.has(k)) {
        return Err(cx.unsupported(Unsupported::LstmVariant));
    }
    let required = (1..9).chain(at::BIAS..at::BIAS + 4);
    if required.into_iter().any(|k| !cx.has(k)) {
        return Err(cx.unsupported(Unsupported::LstmVariant));
    }
    // The states: variable tensors, two of them; the input is not one.
    let var = |k: usize| -> Result<bool, LoadError> {
        Ok(cx.sg.tensor(cx.v.inputs[k] as usize)?.is_variable()?)
    };
    let (h_t, c_t) = (cx.v.inputs[at::HIDDEN], cx.v.inputs[at::CELL]);
    if !cx.has(at::HIDDEN) || !cx.has(at::CELL) || !var(at::HIDDEN)? || !var(at::CELL)? {
        return Err(cx.unsupported(Unsupported::NotVariable));
    }
    if h_t == c_t {
        return Err(cx.unsupported(Unsupported::SharedState));
    }
    if var(at::INPUT)? {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    let o = cx
        .op()
        .unidirectional_sequence_lstm_options()?
        .unwrap_or_default();
    // The cell gate's activation: TFLM's kernel runs TANH only (its sigmoid case has no
    // schema value; any other asserts).
    if o.fused_activation != 4 {
        return Err(cx.unsupported(Unsupported::FusedActivation(o.fused_activation)));
    }
    let (x, h, out) = (cx.input(at::INPUT)?, cx.input(at::HIDDEN)?, cx.output()?);
    let shape_err = || cx.shape(ShapeFault::SizeDiffers);
    if x.rank != 3 || out.rank != 3 || h.rank < 2 {
        return Err(cx.shape(ShapeFault::TooFewDimensions {
            operand: Operand::Input(0),
            min: 3,
        }));
    }
    let (major, minor) = (x.dims[0], x.dims[1]);
    let (batches, time_steps) = if o.time_major {
        (minor, major)
    } else {
        (major, minor)
    };
    let shape = LstmShape {
        time_major: o.time_major,
        batches,
        time_steps,
        input_size: x.dims[2],
        state_size: h.dims[1],
    };
    let (ni, ns) = (shape.input_size, shape.state_size);
    let dims2 = |t: &TInfo<'_>, a: usize, b: usize| t.rank == 2 && t.dims[0] == a && t.dims[1] == b;
    for g in 0..4 {
        let (w, r, b) = (
            cx.input(at::INPUT_WEIGHTS + g)?,
            cx.input(at::RECURRENT_WEIGHTS + g)?,
            cx.input(at::BIAS + g)?,
        );
        if !dims2(&w, ns, ni) || !dims2(&r, ns, ns) || b.rank != 1 || b.dims[0] != ns {
            return Err(shape_err());
        }
    }
    let (_, _, n_state) = shape.sizes().ok_or(cx.shape(ShapeFault::Overflow))?;
    let c = cx.input(at::CELL)?;
    let elems = |t: &TInfo<'_>| t.shape().iter().product::<usize>();
    if elems(&h) != n_state || elems(&c) != n_state {
        return Err(shape_err());
    }
    if out.dims[0] != major || out.dims[1] != minor || out.dims[2] != ns {
        return Err(shape_err());
    }
    Ok((shape, o.cell_clip))
}

/// Refused unless every tensor of `ks` is a constant of type `ty`.
pub(crate) fn constants(
    cx: &Prep<'_, '_>,
    ks: &[usize],
    ty: TensorType,
    e: TensorTypes,
) -> Result<(), LoadError> {
    for &k in ks {
        let t = cx.input(k)?;
        let operand = Operand::Input(k as u8);
        if t.ty != ty {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand,
                expected: e,
            }));
        }
        cx.constant(&t, operand)?;
    }
    Ok(())
}

/// The weight inputs (1 to 8) and the bias inputs (12 to 15).
pub(crate) const WEIGHTS: [usize; 8] = [1, 2, 3, 4, 5, 6, 7, 8];
pub(crate) const BIASES: [usize; 4] = [12, 13, 14, 15];

/// `round(log2(scale))` as TFLM's `CheckedLog2` computes it (its result used whether or not
/// the scale is a power of two): from the binary exponent, rounding at `√2`.
fn log2_rounded(scale: f32) -> i32 {
    let (m, e) = frexp(f64::from(scale));
    if m >= core::f64::consts::FRAC_1_SQRT_2 {
        e
    } else {
        e - 1
    }
}

/// Prepares UNIDIRECTIONAL_SEQUENCE_LSTM (int8 with an int16 cell, or float32).
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    // Without the cargo feature `lstm` nothing below is linked.
    if !cfg!(feature = "lstm") {
        return Err(cx.unsupported(Unsupported::NotBuilt));
    }
    let (shape, cell_clip) = prepare_shape(cx)?;
    let (x, h, c, out) = (
        cx.input(at::INPUT)?,
        cx.input(at::HIDDEN)?,
        cx.input(at::CELL)?,
        cx.output()?,
    );
    if crate::ops::float::BUILT && x.ty == TensorType::Float32 {
        for (t, k) in [(&h, 18u8), (&c, 19)] {
            if t.ty != TensorType::Float32 {
                return Err(cx.unsupported(Unsupported::TensorType {
                    operand: Operand::Input(k),
                    expected: TensorTypes::Float32,
                }));
            }
        }
        cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
        constants(cx, &WEIGHTS, TensorType::Float32, TensorTypes::Float32)?;
        constants(cx, &BIASES, TensorType::Float32, TensorTypes::Float32)?;
        let p = LstmF32Params { shape, cell_clip };
        return Prepared::of::<LstmF32>(cx, p);
    }
    if x.ty == TensorType::Int16 {
        return super::lstm_16x8::prepare(cx, shape, cell_clip);
    }
    cx.int8_activation(&x, Operand::Input(0))?;
    cx.int8_activation(&out, Operand::Output)?;
    if h.ty != TensorType::Int8 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(18),
            expected: TensorTypes::Int8,
        }));
    }
    if c.ty != TensorType::Int16 {
        return Err(cx.unsupported(Unsupported::TensorType {
            operand: Operand::Input(19),
            expected: TensorTypes::Int16,
        }));
    }
    constants(cx, &WEIGHTS, TensorType::Int8, TensorTypes::Int8)?;
    constants(cx, &BIASES, TensorType::Int32, TensorTypes::Int32)?;
    let mut tensors = [&x; 11];
    let weights: [TInfo<'m>; 8] = [
        cx.input(1)?,
        cx.input(2)?,
        cx.input(3)?,
        cx.input(4)?,
        cx.input(5)?,
        cx.input(6)?,
        cx.input(7)?,
        cx.input(8)?,
    ];
    for (t, w) in tensors.iter_mut().zip(&weights) {
        *t = w;
    }
    tensors[8] = &h;
    tensors[9] = &c;
    tensors[10] = &out;
    cx.quantized(&tensors)?;
    check_weights(cx, &weights)?;
    let zp = |t: &TInfo<'_>| crate::math::int8_zero_point(OP, t.q).map_err(|e| cx.err(e));
    let (input_zero_point, hidden_zero_point) = (zp(&x)?, zp(&h)?);
    zp(&out)?;
    let p = integer_params(
        cx,
        shape,
        cell_clip,
        (&x, &h, &c),
        (input_zero_point, hidden_zero_point),
    )?;
    Prepared::of::<Lstm>(cx, p)
}

/// Refused unless every weight tensor has one scale and zero point 0 (TFLM reads one
/// multiplier per product and assumes symmetric weights).
pub(crate) fn check_weights(cx: &Prep<'_, '_>, weights: &[TInfo<'_>; 8]) -> Result<(), LoadError> {
    for w in weights {
        if w.scale_count > 1 {
            return Err(cx.fault(
                w,
                crate::error::TensorFault::ScaleCount {
                    got: w.scale_count,
                    channels: 1,
                },
            ));
        }
        if w.q.zero_point != 0 {
            return Err(cx.unsupported(Unsupported::WeightZeroPoint(w.q.zero_point)));
        }
    }
    Ok(())
}

/// The integer LSTM's requantizations (`PrepareGateParametersInteger`,
/// `CreateLstmCellStateInfo`) from the input `x`, hidden state `h` and cell state `c` and the
/// weights (inputs 1 to 8), with the input's and hidden state's zero points.
pub(crate) fn integer_params(
    cx: &Prep<'_, '_>,
    shape: LstmShape,
    cell_clip: f32,
    (x, h, c): (&TInfo<'_>, &TInfo<'_>, &TInfo<'_>),
    (input_zero_point, hidden_zero_point): (i32, i32),
) -> Result<LstmParams, LoadError> {
    let weights: [TInfo<'_>; 8] = [
        cx.input(1)?,
        cx.input(2)?,
        cx.input(3)?,
        cx.input(4)?,
        cx.input(5)?,
        cx.input(6)?,
        cx.input(7)?,
        cx.input(8)?,
    ];
    let mult = |real: f64| requantization_multiplier(OP, real).map_err(|e| cx.err(e));
    // The gates' products into Q3.12 (`PrepareGateParametersInteger`): the input's with the
    // input's scale, the recurrent ones with the hidden state's, as the oracle wheel's
    // `GetQuantizedConvolutionMultipler` computes them: `double(s) * double(w) / 2^-12`
    // (docs/runtime.md, "Scale products in double").
    const GATE_SCALE: f32 = 1.0 / 4096.0;
    let mut fc_multiplier = [0i32; 8];
    let mut fc_shift = [0i32; 8];
    for (j, w) in weights.iter().enumerate() {
        let s = if j < 4 { x.q.scale } else { h.q.scale };
        (fc_multiplier[j], fc_shift[j]) =
            crate::math::ratio_requantization_multiplier(OP, s, w.q.scale, GATE_SCALE)
                .map_err(|e| cx.err(e))?;
    }
    // The element-wise products (`CreateInterGateMulParams`: in double).
    const Q15: f64 = 1.0 / 32768.0;
    let cell_scale = f64::from(c.q.scale);
    let (forget_multiplier, forget_shift) = mult(Q15 * cell_scale / cell_scale)?;
    let (input_multiplier, input_shift) = mult(Q15 * Q15 / cell_scale)?;
    let (output_multiplier, output_shift) = mult(Q15 * Q15 / f64::from(h.q.scale))?;
    // The cell's tanh: `(15 + power) - 3` left (multiplier 0), or right with multiplier 3.
    // TFLM's `3 << shift` and `x * multiplier` overflow past 14 left, its rounding past 31
    // right: refused there.
    let power = log2_rounded(c.q.scale);
    let left = 12 + power;
    let (tanh_multiplier, tanh_shift) = match left {
        0..=14 => (0, left),
        -31..=-1 => (3, -left),
        _ => return Err(cx.unsupported(Unsupported::InputScale)),
    };
    let cell_clip = if cell_clip > 0.0 {
        let q = (f64::from(cell_clip) / cell_scale).clamp(-32768.0, 32767.0);
        crate::math::trunc_f64(q) as i32
    } else {
        -1
    };
    let p = LstmParams {
        shape,
        input_zero_point,
        hidden_zero_point,
        fc_multiplier,
        fc_shift,
        forget_multiplier,
        forget_shift,
        input_multiplier,
        input_shift,
        output_multiplier,
        output_shift,
        cell_clip,
        tanh_multiplier,
        tanh_shift,
    };
    Ok(p)
}

/// The int8 LSTM kernel (int16 cell).
pub struct Lstm;

/// The float32 LSTM kernel.
pub struct LstmF32;

/// The four gates' operands at `base + g`.
pub(crate) fn four<'x>(io: &Operands<'x, '_, '_>, base: usize) -> [&'x [u8]; 4] {
    core::array::from_fn(|g| io.bytes(base + g))
}

/// Four byte slices as little-endian floats.
fn le(b: [&[u8]; 4]) -> [LeF32<'_>; 4] {
    b.map(LeF32)
}

/// The hidden and cell states' bytes of `states` (TFLite's input order: hidden first).
pub(crate) fn two_states<'s>(
    states: &'s mut [Option<&mut [u8]>; crate::ops::operands::MAX_OP_STATES],
) -> Result<(&'s mut [u8], &'s mut [u8]), KernelError> {
    match states {
        [Some(h), Some(c)] => Ok((&mut **h, &mut **c)),
        _ => Err(KernelError::unsupported(OP, Unsupported::ProgramMismatch)),
    }
}

impl Kernel for Lstm {
    const NAME: &'static str = OP;
    type Params = LstmParams;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its hidden and cell state.
    const STATE_INPUTS: u32 = 1 << at::HIDDEN | 1 << at::CELL;

    fn run(p: &LstmParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let d = LstmI8Data {
            input: io.i8(at::INPUT)?,
            input_weights: four(io, at::INPUT_WEIGHTS),
            recurrent_weights: four(io, at::RECURRENT_WEIGHTS),
            biases: four(io, at::BIAS),
        };
        let Operands {
            out,
            states,
            scratch,
            ..
        } = io;
        let out = out
            .as_mut_slice::<i8>()
            .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        let (hidden, cell) = two_states(states)?;
        lstm(p, &d, hidden, cell, out, scratch)
    }

    fn scratch_bytes(p: &LstmParams) -> usize {
        lstm_scratch_bytes(p)
    }
}

impl Kernel for LstmF32 {
    const NAME: &'static str = OP;
    type Params = LstmF32Params;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its hidden and cell state.
    const STATE_INPUTS: u32 = 1 << at::HIDDEN | 1 << at::CELL;

    fn run(p: &LstmF32Params, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let d = LstmF32Data {
            input: io.f32(at::INPUT)?,
            input_weights: le(four(io, at::INPUT_WEIGHTS)),
            recurrent_weights: le(four(io, at::RECURRENT_WEIGHTS)),
            biases: le(four(io, at::BIAS)),
        };
        let Operands {
            out,
            states,
            scratch,
            ..
        } = io;
        let out = out
            .as_mut_slice::<f32>()
            .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        let (hidden, cell) = two_states(states)?;
        lstm_f32(p, &d, hidden, cell, out, scratch)
    }

    fn scratch_bytes(p: &LstmF32Params) -> usize {
        lstm_f32_scratch_bytes(p)
    }
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(LstmShape {
    time_major: bool,
    batches: usize,
    time_steps: usize,
    input_size: usize,
    state_size: usize,
});
crate::format::codec::words!(LstmParams {
    shape: LstmShape,
    input_zero_point: i32,
    hidden_zero_point: i32,
    fc_multiplier: [i32; 8],
    fc_shift: [i32; 8],
    forget_multiplier: i32,
    forget_shift: i32,
    input_multiplier: i32,
    input_shift: i32,
    output_multiplier: i32,
    output_shift: i32,
    cell_clip: i32,
    tanh_multiplier: i32,
    tanh_shift: i32,
});
crate::format::codec::words!(LstmF32Params {
    shape: LstmShape,
    cell_clip: f32,
});

#[cfg(test)]
mod tests {
    use super::*;

    extern crate std;

    /// The int16 sigmoid and tanh (Q3.12 in, Q0.15 out) against the functions they
    /// approximate, over every input, and their values at 0 (bit-exactness with TFLM is the
    /// oracle's: `tests/oracle.rs`, the LSTM models).
    #[test]
    fn int16_sigmoid_and_tanh_approximate_the_functions() {
        assert_eq!(sigmoid_i16(0), 16384);
        assert_eq!(tanh_i16(0, 0, 0), 0);
        let (mut worst_s, mut worst_t) = (0f64, 0f64);
        let mut last = (i16::MIN, i16::MIN);
        for x in i16::MIN..=i16::MAX {
            let r = f64::from(x) / 4096.0;
            let s = f64::from(sigmoid_i16(x)) / 32768.0;
            let t = f64::from(tanh_i16(x, 0, 0)) / 32768.0;
            worst_s = worst_s.max((s - 1.0 / (1.0 + (-r).exp())).abs());
            worst_t = worst_t.max((t - r.tanh()).abs());
            // Both non-decreasing.
            assert!(
                sigmoid_i16(x) >= last.0 && tanh_i16(x, 0, 0) >= last.1,
                "{x}"
            );
            last = (sigmoid_i16(x), tanh_i16(x, 0, 0));
        }
        assert!(
            worst_s < 1e-3 && worst_t < 2e-3,
            "sigmoid {worst_s}, tanh {worst_t}"
        );
    }
}
