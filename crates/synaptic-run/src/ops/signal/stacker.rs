//! SignalStacker (int16): TFLM's `signal/micro/kernels/stacker.cc`: each invocation's frame of
//! `num_channels` samples joins a stack of `stacker_left_context + 1 + stacker_right_context`
//! frames (the first frame repeated as the left context); when the stack is full it is the
//! output (output 1, `valid`, true) and the oldest `stacker_step` frames leave it.
//!
//! TFLM keeps a circular buffer of the stack's samples (its count and a first-frame flag);
//! here the private state (`Kernel::PRIVATE_STATE`) holds the same: the count, the flag and
//! the stack, oldest sample first, zeroed at load and by a state reset (TFLM's `Reset`).
//! Where TFLM leaves the output unwritten (`valid` false: its bytes the tensor's earlier ones),
//! this kernel writes zeros: no output holds stale bytes.
//!
//! Guarantees: refused at load unless the input is a rank-1 int16 frame of `num_channels`
//! (≥ 1) samples, the output a rank-1 int16 stack of them, `valid` a bool scalar, both
//! contexts not negative and `stacker_step` in 1..=the stack's frames (TFLM's buffer would
//! overflow or underflow otherwise). A run indexes only within its state.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("SignalStacker");

/// A prepared SignalStacker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StackerParams {
    /// Samples a frame (`num_channels`).
    pub(crate) channels: usize,
    /// Frames of left context (copies of the first frame at the start).
    pub(crate) left: usize,
    /// Frames a stack (`left + 1 + right`).
    pub(crate) frames: usize,
    /// Frames that leave the stack after each output (`stacker_step`).
    pub(crate) step: usize,
}

/// The state's words: the samples held, and whether the first frame came.
const WORDS: usize = 2;

/// Prepares SignalStacker.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out, valid) = (cx.input(0)?, cx.output()?, cx.output_at(1)?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    cx.type_of(&valid, Operand::Output, TensorType::Bool, TensorTypes::Bool)?;
    if x.rank != 1 || out.rank != 1 || valid.rank != 0 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let m = signal::options(cx)?;
    let count = |k, key| signal::count(cx, &m, k, key);
    let channels = count(0, "num_channels")?;
    let left = count(1, "stacker_left_context")?;
    let right = count(2, "stacker_right_context")?;
    let step = count(3, "stacker_step")?;
    let frames = left
        .checked_add(right)
        .and_then(|n| n.checked_add(1))
        .ok_or_else(|| cx.unsupported(Unsupported::SignalParams))?;
    signal::param(cx, channels >= 1 && (1..=frames).contains(&step))?;
    let samples = signal::state_bytes(0, &[channels, frames], 1)
        .ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    signal::state_bytes(WORDS, &[samples], 2).ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    if x.bytes != 2 * channels || out.bytes != 2 * samples || valid.bytes != 1 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<Stacker>(
        cx,
        StackerParams {
            channels,
            left,
            frames,
            step,
        },
    )
}

/// The SignalStacker kernel.
pub struct Stacker;

impl Kernel for Stacker {
    const NAME: &'static str = "SignalStacker";
    type Params = StackerParams;
    const MAX_INPUTS: usize = 1;
    const OUTPUTS: usize = 2;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;

    fn private_state_bytes(p: &StackerParams) -> usize {
        4 * WORDS + 2 * p.channels * p.frames
    }

    fn run(p: &StackerParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let Operands {
            states, out, out2, ..
        } = io;
        let failed = || signal::failed(Self::NAME);
        let state = states[0].as_deref_mut().ok_or_else(failed)?;
        let valid = out2.as_deref_mut().ok_or_else(failed)?;
        let out = out.bytes_mut();
        let (words, stack) = state.split_at_mut_checked(4 * WORDS).ok_or_else(failed)?;
        // In bytes: a frame, the stack, the frames that leave it.
        let (frame, full, step) = (
            2 * p.channels,
            2 * p.channels * p.frames,
            2 * p.channels * p.step,
        );
        let held = 2 * signal::word(words, 0) as usize;
        // A held count a program that loaded cannot make (one more frame would not fit).
        if x.len() != frame
            || out.len() != full
            || stack.len() != full
            || valid.len() != 1
            || held + frame > full
        {
            return Err(failed());
        }
        let mut held = held + frame;
        stack[held - frame..held].copy_from_slice(x);
        if signal::word(words, 1) == 0 {
            // The left context: the first frame again, `left` times (TFLM's
            // `CircularBufferExtend`).
            for _ in 0..p.left {
                stack.copy_within(held - frame..held, held);
                held += frame;
            }
            signal::set_word(words, 1, 1);
        }
        if held == full {
            out.copy_from_slice(stack);
            stack.copy_within(step..full, 0);
            held -= step;
            valid[0] = 1;
        } else {
            out.fill(0);
            valid[0] = 0;
        }
        signal::set_word(words, 0, (held / 2) as u32);
        Ok(())
    }
}

crate::format::codec::words!(StackerParams {
    channels: usize,
    left: usize,
    frames: usize,
    step: usize,
});
