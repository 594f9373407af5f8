//! UNIDIRECTIONAL_SEQUENCE_LSTM 16x8: int16 activations (input, hidden state, output), int8
//! weights, int64 biases and an int16 cell state ([`LstmI16`]); the hidden and cell state are
//! variable tensors, kept across invocations.
//!
//! Mirrors TFLM's `EvalLstm<int16_t, int8_t, int16_t, int64_t>` (`micro/kernels/lstm_eval.h`,
//! `lstm_eval.cc`) prepared by `UnidirectionalSequenceLstmPrepare`
//! (`unidirectional_sequence_lstm.cc`, `lstm_eval_common.cc`): the steps, the gates' order,
//! the int16 sigmoid and tanh, the cell update and the clip are the int8 kernel's
//! ([`crate::ops::recurrent::lstm`], whose preparation this one shares). What differs is
//! the gates' fully connected products: `reference_integer_ops::FullyConnected` on int16
//! with an int64 accumulator and bias, requantized by the 64-bit
//! `MultiplyByQuantizedMultiplier` (the multiplier rounded to 16 bits), and the hidden
//! state's update `o·tanh(c)`, clamped to int16 around its zero point.
//!
//! Beyond TFLM's checks (the int8 kernel's, and the types its 16x8 evaluation reads), this
//! kernel refuses at load: int32 biases (TFLM's 16x8 path reads every bias as int64: it would
//! read past an int32 bias), zero points of the input or hidden state outside int16 (TFLM's
//! `input + offset` would leave int32 in its products), and a gate product's multiplier of a
//! left shift over 14 (TFLM's 64-bit requantization shifts by `15 − shift − 1`: negative,
//! undefined, beyond that).

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::math::multiply_by_quantized_multiplier_i64;
use crate::model::TInfo;
use crate::ops::recurrent::lstm::{
    at, check_lengths, check_weights, constants, four, get16, integer_params, lstm_scratch_bytes,
    mul, sat_add, set16, sigmoid_i16, tanh_i16, two_states, LstmParams, LstmShape, BIASES,
    CELL_GATE, FORGET_GATE, INPUT_GATE, OP, OUTPUT_GATE, WEIGHTS,
};
use crate::ops::{Kernel, Operands, Prep, Prepared};

/// `out[r·n + c] = clamp16(MBQM64(Σ_d w[c·k + d]·(x(r·k + d) − zp) + bias[c]))` for the
/// rows of `out` (`k` inputs each, `n` outputs): TFLM's 16x8 FULLY_CONNECTED into int16 with
/// an int64 accumulator, zero output offset and no activation (weights symmetric, checked at
/// load); `x` reads input element `i`, `bias` little-endian int64.
#[allow(clippy::too_many_arguments)]
#[inline(never)]
fn fc_16x8(
    x: &dyn Fn(usize) -> i16,
    k: usize,
    zp: i32,
    w: &[u8],
    bias: Option<&[u8]>,
    (multiplier, shift): (i32, i32),
    out: &mut [i16],
    n: usize,
) {
    for (r, or) in out.chunks_exact_mut(n.max(1)).enumerate() {
        for (c, o) in or.iter_mut().enumerate() {
            let mut acc: i64 = 0;
            for (d, &wv) in w.get(c * k..c * k + k).unwrap_or(&[]).iter().enumerate() {
                let p = i32::from(wv as i8) * (i32::from(x(r * k + d)) - zp);
                acc = acc.wrapping_add(i64::from(p));
            }
            if let Some(b) = bias.and_then(|b| b.get(8 * c..8 * c + 8)) {
                let mut le = [0u8; 8];
                le.copy_from_slice(b);
                acc = acc.wrapping_add(i64::from_le_bytes(le));
            }
            let v = multiply_by_quantized_multiplier_i64(acc, multiplier, shift);
            *o = v.clamp(i16::MIN.into(), i16::MAX.into()) as i16;
        }
    }
}

/// The 16x8 operands of one LSTM: the input sequence, the weights (int8) and biases
/// (little-endian int64) of the four gates as model bytes.
pub struct LstmI16Data<'a> {
    /// The input, `[batch, time, input]` or `[time, batch, input]`.
    pub input: &'a [i16],
    /// Input-to-gate weights (`[state, input]`) of the input, forget, cell, output gates.
    pub input_weights: [&'a [u8]; 4],
    /// Recurrent weights (`[state, state]`), same order.
    pub recurrent_weights: [&'a [u8]; 4],
    /// Gate biases (`[state]` int64), same order.
    pub biases: [&'a [u8]; 4],
}

/// One 16x8 gate (`CalculateLstmGate`): `act(FC(x, W_x) + b + FC(h, W_h))` into `out`, the
/// recurrent product in `tmp`; `act` the int16 tanh (the cell gate) or sigmoid.
#[allow(clippy::too_many_arguments)]
fn gate(
    p: &LstmParams,
    d: &LstmI16Data<'_>,
    g: usize,
    (x, h): (&dyn Fn(usize) -> i16, &dyn Fn(usize) -> i16),
    out: &mut [i16],
    tmp: &mut [i16],
    tanh: bool,
) {
    let (ni, ns) = (p.shape.input_size, p.shape.state_size);
    let fc = |k: usize| (p.fc_multiplier[k], p.fc_shift[k]);
    let (w, b) = (d.input_weights[g], Some(d.biases[g]));
    fc_16x8(x, ni, p.input_zero_point, w, b, fc(g), out, ns);
    let w = d.recurrent_weights[g];
    fc_16x8(h, ns, p.hidden_zero_point, w, None, fc(4 + g), tmp, ns);
    for (o, &t) in out.iter_mut().zip(tmp.iter()) {
        let s = sat_add(*o, t);
        *o = if tanh {
            tanh_i16(s, 0, 0)
        } else {
            sigmoid_i16(s)
        };
    }
}

/// UNIDIRECTIONAL_SEQUENCE_LSTM 16x8 (`EvalLstm<int16_t, int8_t, int16_t, int64_t>`):
/// `hidden` and `cell` (int16 little-endian) are the state's bytes, updated; `scratch` holds
/// at least [`lstm_scratch_bytes`].
pub fn lstm_16x8(
    p: &LstmParams,
    d: &LstmI16Data<'_>,
    hidden: &mut [u8],
    cell: &mut [u8],
    output: &mut [i16],
    scratch: &mut Scratch<'_>,
) -> Result<(), KernelError> {
    let sh = p.shape;
    let ns = sh.state_size;
    let gates = core::array::from_fn(|g| {
        let (w, r, b) = (d.input_weights[g], d.recurrent_weights[g], d.biases[g]);
        [w.len(), r.len(), b.len()]
    });
    let got = [d.input.len(), output.len(), hidden.len(), cell.len()];
    check_lengths(&sh, got, (2, 2), gates, 8)?;
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
        {
            let xs = |i: usize| d.input.get(x_at + i).copied().unwrap_or(0);
            let hs = |i: usize| get16(hidden, state_at + i);
            let (xs, hs): (&dyn Fn(usize) -> i16, &dyn Fn(usize) -> i16) = (&xs, &hs);
            gate(p, d, FORGET_GATE, (xs, hs), b0, b3, false);
            gate(p, d, INPUT_GATE, (xs, hs), b1, b3, false);
            gate(p, d, CELL_GATE, (xs, hs), b2, b3, true);
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
            gate(p, d, OUTPUT_GATE, (xs, hs), b1, b3, false);
        }
        // h = o·tanh(c), to the output.
        let out_mul = (p.output_multiplier, p.output_shift);
        let dst = output.get_mut(out_at..out_at + n).unwrap_or(&mut []);
        for (j, (&o, y)) in b1.iter().zip(dst.iter_mut()).enumerate() {
            let t = tanh_i16(get16(cell, state_at + j), p.tanh_multiplier, p.tanh_shift);
            let h = mul(t, o, out_mul, p.hidden_zero_point, i16_range) as i16;
            set16(hidden, state_at + j, h);
            *y = h;
        }
    }
    Ok(())
}

/// Prepares the 16x8 LSTM (`shape` and `cell_clip` from the shared checks): int16 input,
/// hidden state, output and cell state, int8 weights of one scale and zero point 0, int64
/// biases.
pub(crate) fn prepare<'m>(
    cx: &Prep<'_, 'm>,
    shape: LstmShape,
    cell_clip: f32,
) -> Result<Prepared<'m>, LoadError> {
    let (x, h, c, out) = (
        cx.input(at::INPUT)?,
        cx.input(at::HIDDEN)?,
        cx.input(at::CELL)?,
        cx.output()?,
    );
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    for (t, k) in [(&h, at::HIDDEN), (&c, at::CELL)] {
        if t.ty != TensorType::Int16 {
            return Err(cx.unsupported(Unsupported::TensorType {
                operand: Operand::Input(k as u8),
                expected: TensorTypes::Int16,
            }));
        }
    }
    constants(cx, &WEIGHTS, TensorType::Int8, TensorTypes::Int8)?;
    constants(cx, &BIASES, TensorType::Int64, TensorTypes::Int64)?;
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
    let zp = |t: &TInfo<'_>| -> Result<i32, LoadError> {
        let z = t.q.zero_point;
        if i16::try_from(z).is_err() {
            return Err(cx.unsupported(Unsupported::ZeroPoint(z)));
        }
        Ok(z)
    };
    let mut tensors = [&x; 11];
    for (t, w) in tensors.iter_mut().zip(&weights) {
        *t = w;
    }
    tensors[8] = &h;
    tensors[9] = &c;
    tensors[10] = &out;
    cx.quantized(&tensors)?;
    check_weights(cx, &weights)?;
    let (input_zero_point, hidden_zero_point) = (zp(&x)?, zp(&h)?);
    let p = integer_params(
        cx,
        shape,
        cell_clip,
        (&x, &h, &c),
        (input_zero_point, hidden_zero_point),
    )?;
    // TFLM's 64-bit requantization rounds by `1 << (15 - shift - 1)`.
    if p.fc_shift.iter().any(|&s| s > 14) {
        return Err(cx.unsupported(Unsupported::Multiplier));
    }
    Prepared::of::<LstmI16>(cx, p)
}

/// The 16x8 LSTM kernel (int16 activations, int8 weights, int64 biases, int16 cell).
pub struct LstmI16;

impl Kernel for LstmI16 {
    const NAME: &'static str = OP;
    type Params = LstmParams;
    const SCRATCH: bool = true;
    const STATE: bool = true;
    // Its hidden and cell state.
    const STATE_INPUTS: u32 = 1 << at::HIDDEN | 1 << at::CELL;

    fn run(p: &LstmParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let d = LstmI16Data {
            input: io.i16(at::INPUT)?,
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
            .as_mut_slice::<i16>()
            .map_err(|_| KernelError::unsupported(OP, Unsupported::ProgramMismatch))?;
        let (hidden, cell) = two_states(states)?;
        lstm_16x8(p, &d, hidden, cell, out, scratch)
    }

    fn scratch_bytes(p: &LstmParams) -> usize {
        lstm_scratch_bytes(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 16x8 product: int64 accumulator and bias (beyond int32), the 64-bit
    /// requantization, int16 saturation.
    #[test]
    fn fc_16x8_accumulates_in_64_bits() {
        let x = [1000i16, -2000];
        let xs = |i: usize| x[i];
        let w = [3i8 as u8, -4i8 as u8];
        let mut out = [0i16; 1];
        let half = (1 << 30, 0);
        let bias = (-11_000i64 + 200).to_le_bytes();
        fc_16x8(&xs, 2, 0, &w, Some(&bias), half, &mut out, 1);
        assert_eq!(out, [100]);
        let big = 10_000_000_000i64.to_le_bytes();
        fc_16x8(&xs, 2, 0, &w, Some(&big), half, &mut out, 1);
        assert_eq!(out, [i16::MAX]);
        // A zero point: (x - zp).
        fc_16x8(&xs, 2, 1000, &w, None, half, &mut out, 1);
        assert_eq!(out, [6000]);
    }
}
