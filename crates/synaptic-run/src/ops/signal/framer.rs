//! SignalFramer (int16): TFLM's `signal/micro/kernels/framer.cc`: each row of the input (its
//! innermost dimension, a multiple of `frame_step`) cut into frames of `frame_size` samples,
//! `frame_step` apart, across invocations (with `prefill`, `frame_size - frame_step` zeros
//! before the first); output 1 (`valid`) is false while a frame is not yet whole.
//!
//! TFLM keeps a circular buffer a row; here the private state (`Kernel::PRIVATE_STATE`)
//! holds each row's samples not yet framed past the prefill (one count for every row: they
//! advance together) and the samples, oldest first, zeroed at load and by a state reset
//! (TFLM's `Reset`, its prefill zeros included). A frame TFLM leaves unwritten (not yet
//! whole: the tensor's bytes before, zeros from a fresh arena) is written with zeros here.
//!
//! Guarantees: refused at load unless input and output are int16, the output one rank more
//! with `frame_size` samples a frame, `valid` a bool scalar, `frame_size` and `frame_step`
//! positive, the row a multiple of the step, and, with `prefill`, the step at most the frame
//! (TFLM's prefill would wrap). A run indexes only within its state.

use synaptic_tflite::flexbuffers::FlexValue;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("SignalFramer");

/// A prepared SignalFramer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FramerParams {
    /// `frame_size`.
    pub(crate) size: usize,
    /// `frame_step`.
    pub(crate) step: usize,
    /// Rows (the input's outer dimensions).
    pub(crate) rows: usize,
    /// Frames a row an invocation (the row's samples over the step).
    pub(crate) frames: usize,
    /// The prefill's samples (`frame_size - frame_step` with `prefill`, else 0): held from
    /// the start, zeros.
    pub(crate) prefill: usize,
    /// Samples a row's buffer holds at most (the frame rounded up to whole steps).
    pub(crate) capacity: usize,
}

/// Prepares SignalFramer.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out, valid) = (cx.input(0)?, cx.output()?, cx.output_at(1)?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    cx.type_of(&valid, Operand::Output, TensorType::Bool, TensorTypes::Bool)?;
    if x.rank == 0 || out.rank != x.rank + 1 || valid.rank != 0 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let m = signal::options(cx)?;
    let count = |k, key| signal::count(cx, &m, k, key);
    let size = count(0, "frame_size")?;
    let step = count(1, "frame_step")?;
    let prefill = match signal::entry(cx, &m, 2, "prefill")? {
        FlexValue::Bool(b) => b,
        _ => return Err(cx.unsupported(Unsupported::CustomOptions)),
    };
    let row = x.shape().last().copied().unwrap_or(0);
    signal::param(
        cx,
        size >= 1 && step >= 1 && row >= step && row % step == 0 && (!prefill || step <= size),
    )?;
    let (rows, frames) = (x.bytes / 2 / row, row / step);
    let capacity = size.div_ceil(step) * step;
    signal::state_bytes(1, &[rows, capacity], 2)
        .ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    let framed = signal::state_bytes(0, &[rows, frames, size], 2);
    if framed != Some(out.bytes) || valid.bytes != 1 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = FramerParams {
        size,
        step,
        rows,
        frames,
        prefill: if prefill { size - step } else { 0 },
        capacity,
    };
    Prepared::of::<Framer>(cx, p)
}

/// The SignalFramer kernel.
pub struct Framer;

impl Kernel for Framer {
    const NAME: &'static str = "SignalFramer";
    type Params = FramerParams;
    const MAX_INPUTS: usize = 1;
    const OUTPUTS: usize = 2;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;

    fn private_state_bytes(p: &FramerParams) -> usize {
        4 + 2 * p.rows * p.capacity
    }

    fn run(p: &FramerParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let Operands {
            states, out, out2, ..
        } = io;
        let failed = || signal::failed(Self::NAME);
        let state = states[0].as_deref_mut().ok_or_else(failed)?;
        let valid = out2.as_deref_mut().ok_or_else(failed)?;
        let out = out.bytes_mut();
        let (word, lines) = state.split_at_mut_checked(4).ok_or_else(failed)?;
        // In bytes.
        let (size, step, cap) = (2 * p.size, 2 * p.step, 2 * p.capacity);
        let start = 2 * p.prefill + 2 * signal::word(word, 0) as usize;
        if x.len() != p.rows * p.frames * step
            || out.len() != p.rows * p.frames * size
            || lines.len() != p.rows * cap
            || valid.len() != 1
            || start + step > cap
        {
            return Err(failed());
        }
        let mut all = true;
        let mut held = start;
        for ((x, y), line) in x
            .chunks_exact(p.frames * step)
            .zip(out.chunks_exact_mut(p.frames * size))
            .zip(lines.chunks_exact_mut(cap))
        {
            // Every row advances as the first.
            held = start;
            for (x, y) in x.chunks_exact(step).zip(y.chunks_exact_mut(size)) {
                line[held..held + step].copy_from_slice(x);
                held += step;
                if held >= size {
                    y.copy_from_slice(&line[..size]);
                    line.copy_within(step..held, 0);
                    held -= step;
                } else {
                    y.fill(0);
                    all = false;
                }
            }
        }
        valid[0] = u8::from(all);
        signal::set_word(word, 0, ((held - 2 * p.prefill) / 2) as u32);
        Ok(())
    }
}

crate::format::codec::words!(FramerParams {
    size: usize,
    step: usize,
    rows: usize,
    frames: usize,
    prefill: usize,
    capacity: usize,
});
