//! SignalDelay (int16): TFLM's `signal/micro/kernels/delay.cc`: each row (the innermost
//! dimension, a frame) delayed by `delay_length` samples across invocations, zeros before the
//! first.
//!
//! TFLM keeps one circular buffer of `frame + delay_length` samples a row (primed with
//! `delay_length` zeros, re-primed by `Reset`); here the private state
//! (`Kernel::PRIVATE_STATE`) holds each row's last `delay_length` samples and one position,
//! zeroed at load and by a state reset: the same outputs, `delay_length` samples a row instead
//! of `frame + delay_length`.
//!
//! Guarantees: refused at load unless input and output are int16 of one element count, the
//! frame is not empty and `delay_length` is not negative; the state's bytes are checked
//! against the runtime's size bound. A run indexes only within its state, whatever its bytes.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("SignalDelay");

/// A prepared SignalDelay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DelayParams {
    /// Samples a row (the innermost dimension).
    pub(crate) frame: usize,
    /// Rows (the other dimensions' product).
    pub(crate) rows: usize,
    /// `delay_length`, in samples.
    pub(crate) delay: usize,
}

/// Bytes of the state's position word, before the rows' delay lines.
const POSITION: usize = 4;

/// Prepares SignalDelay.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    let delay = signal::count(cx, &signal::options(cx)?, 0, "delay_length")?;
    let frame = x.shape().last().copied().unwrap_or(0);
    if x.rank == 0 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let n = x.bytes / 2;
    if frame == 0 || n % frame != 0 || out.bytes != x.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let rows = n / frame;
    let p = DelayParams { frame, rows, delay };
    signal::state_bytes(1, &[rows, delay], 2).ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    Prepared::of::<Delay>(cx, p)
}

/// The SignalDelay kernel.
pub struct Delay;

impl Kernel for Delay {
    const NAME: &'static str = "SignalDelay";
    type Params = DelayParams;
    const MAX_INPUTS: usize = 1;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;

    fn private_state_bytes(p: &DelayParams) -> usize {
        POSITION + p.rows * p.delay * 2
    }

    fn run(p: &DelayParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        let Operands { states, out, .. } = io;
        let state = states[0].as_deref_mut().ok_or(signal::failed(Self::NAME))?;
        let out = out
            .as_mut_slice::<i16>()
            .map_err(|_| signal::failed(Self::NAME))?;
        let (pos, lines) = state
            .split_at_mut_checked(POSITION)
            .ok_or(signal::failed(Self::NAME))?;
        let d = p.delay;
        let line_bytes = d * 2;
        if x.len() != p.rows * p.frame || out.len() != x.len() || lines.len() != p.rows * line_bytes
        {
            return Err(signal::failed(Self::NAME));
        }
        if d == 0 {
            out.copy_from_slice(x);
            return Ok(());
        }
        // The oldest sample's slot: the same in every row.
        let at = signal::word(pos, 0) as usize % d;
        for ((x, y), line) in x
            .chunks_exact(p.frame)
            .zip(out.chunks_exact_mut(p.frame))
            .zip(lines.chunks_exact_mut(line_bytes))
        {
            let mut k = at;
            for (&v, o) in x.iter().zip(y.iter_mut()) {
                let slot = &mut line[2 * k..2 * k + 2];
                *o = i16::from_ne_bytes([slot[0], slot[1]]);
                slot.copy_from_slice(&v.to_ne_bytes());
                k = if k + 1 == d { 0 } else { k + 1 };
            }
        }
        let next = ((at + p.frame % d) % d) as u32;
        signal::set_word(pos, 0, next);
        Ok(())
    }
}

crate::format::codec::words!(DelayParams {
    frame: usize,
    rows: usize,
    delay: usize,
});
