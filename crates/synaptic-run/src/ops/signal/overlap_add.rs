//! SignalOverlapAdd (int16, float32): TFLM's `signal/micro/kernels/overlap_add.cc` over
//! `signal/src/overlap_add.cc`: each frame of the input (its innermost dimension,
//! `frame_size` samples, the one before it the frames) added into a row's running buffer;
//! the buffer's first `frame_step` samples are the output's next, then it moves on by them
//! (zeros come in at its end). int16 saturates each sum; float32 adds in single precision.
//!
//! The running buffers (TFLM's persistent `state_buffers`, zeroed by its `Reset`) are the
//! private state (`Kernel::PRIVATE_STATE`), native-endian samples, zeroed at load and by a
//! state reset.
//!
//! Guarantees: refused at load unless input and output are both the options' type `T`
//! (int16 or float32), the output one rank less with `frame_step` samples a frame,
//! `frame_step` in 1..=`frame_size` (TFLM's buffer move would run backwards) and the frames
//! not empty. A run indexes only within its state.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("SignalOverlapAdd");

/// A prepared SignalOverlapAdd.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverlapAddParams {
    /// `frame_size` (the input's innermost dimension).
    pub(crate) size: usize,
    /// `frame_step`.
    pub(crate) step: usize,
    /// Rows (the dimensions before the frames).
    pub(crate) rows: usize,
    /// Frames a row.
    pub(crate) frames: usize,
    /// float32 (else int16).
    pub(crate) float: bool,
}

/// Prepares SignalOverlapAdd.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    let m = signal::options(cx)?;
    // `T`: the TensorType the kernel was built for (TFLM's `InitAll` picks by it).
    let ty = match signal::int(cx, &m, 0, "T")? {
        0 => TensorType::Float32,
        7 => TensorType::Int16,
        _ => return Err(cx.unsupported(Unsupported::SignalParams)),
    };
    let step = signal::count(cx, &m, 1, "frame_step")?;
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    if x.rank < 2 || out.rank + 1 != x.rank {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let s = x.shape();
    let (size, frames) = (s[x.rank - 1], s[x.rank - 2]);
    signal::param(cx, (1..=size).contains(&step) && frames >= 1)?;
    let bytes = if ty == TensorType::Float32 { 4 } else { 2 };
    let rows = x.bytes / bytes / (size * frames);
    signal::state_bytes(0, &[rows, size], bytes)
        .ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    if signal::state_bytes(0, &[rows, frames, step], bytes) != Some(out.bytes) {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = OverlapAddParams {
        size,
        step,
        rows,
        frames,
        float: ty == TensorType::Float32,
    };
    Prepared::of::<OverlapAdd>(cx, p)
}

/// One sample type's running sum (TFLM's two `OverlapAdd` overloads).
trait Sample: Copy {
    const BYTES: usize;
    fn get(b: &[u8]) -> Self;
    fn put(self, b: &mut [u8]);
    /// The running buffer's sample plus the input's.
    fn add(self, x: Self) -> Self;
}

impl Sample for i16 {
    const BYTES: usize = 2;
    fn get(b: &[u8]) -> i16 {
        i16::from_ne_bytes([b[0], b[1]])
    }
    fn put(self, b: &mut [u8]) {
        b.copy_from_slice(&self.to_ne_bytes());
    }
    fn add(self, x: i16) -> i16 {
        self.saturating_add(x)
    }
}

impl Sample for f32 {
    const BYTES: usize = 4;
    fn get(b: &[u8]) -> f32 {
        f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    }
    fn put(self, b: &mut [u8]) {
        b.copy_from_slice(&self.to_ne_bytes());
    }
    fn add(self, x: f32) -> f32 {
        self + x
    }
}

/// The kernel on samples of `T`: `x` and `out` the tensors' bytes, `state` the buffers'.
fn overlap_add<T: Sample>(
    p: &OverlapAddParams,
    x: &[u8],
    state: &mut [u8],
    out: &mut [u8],
) -> bool {
    let (size, step) = (p.size * T::BYTES, p.step * T::BYTES);
    if x.len() != p.rows * p.frames * size
        || out.len() != p.rows * p.frames * step
        || state.len() != p.rows * size
    {
        return false;
    }
    for ((x, y), buf) in x
        .chunks_exact(p.frames * size)
        .zip(out.chunks_exact_mut(p.frames * step))
        .zip(state.chunks_exact_mut(size))
    {
        for (x, y) in x.chunks_exact(size).zip(y.chunks_exact_mut(step)) {
            for (b, x) in buf.chunks_exact_mut(T::BYTES).zip(x.chunks_exact(T::BYTES)) {
                T::get(b).add(T::get(x)).put(b);
            }
            y.copy_from_slice(&buf[..step]);
            buf.copy_within(step.., 0);
            buf[size - step..].fill(0);
        }
    }
    true
}

/// The SignalOverlapAdd kernel.
pub struct OverlapAdd;

impl Kernel for OverlapAdd {
    const NAME: &'static str = "SignalOverlapAdd";
    type Params = OverlapAddParams;
    const MAX_INPUTS: usize = 1;
    const STATE: bool = true;
    const PRIVATE_STATE: bool = true;

    fn private_state_bytes(p: &OverlapAddParams) -> usize {
        p.rows * p.size * if p.float { 4 } else { 2 }
    }

    fn run(p: &OverlapAddParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.bytes(0);
        let Operands { states, out, .. } = io;
        let state = states[0].as_deref_mut().ok_or(signal::failed(Self::NAME))?;
        let out = out.bytes_mut();
        let done = if p.float {
            overlap_add::<f32>(p, x, state, out)
        } else {
            overlap_add::<i16>(p, x, state, out)
        };
        done.then_some(()).ok_or(signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(OverlapAddParams {
    size: usize,
    step: usize,
    rows: usize,
    frames: usize,
    float: bool,
});
