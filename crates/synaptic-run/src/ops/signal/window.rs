//! SignalWindow (int16): TFLM's `signal/micro/kernels/window.cc` over
//! [`signal::math::window_i16`]: each row of the input times
//! the int16 window weights, shifted right by `shift` (the options' `shift`).

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};
use synaptic_mem::Scratch;

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalWindow")];

/// A prepared SignalWindow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowParams {
    /// The shift (0..=31).
    pub(crate) shift: i32,
    /// Window weights (the length of each row).
    pub(crate) weights: usize,
}

/// Prepares SignalWindow.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(2, 2)?;
    let (x, w, out) = (cx.input(0)?, cx.input(1)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.type_of(&w, Operand::Input(1), TensorType::Int16, TensorTypes::Int16)?;
    cx.constant(&w, Operand::Input(1))?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    let shift = signal::int(cx, &signal::options(cx)?, 0, "shift")?;
    signal::param(cx, math::window_check(shift))?;
    let n = w.bytes / 2;
    if x.rank == 0 || w.rank != 1 || x.rank != out.rank {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    if n == 0 || x.bytes != out.bytes || (x.bytes / 2) % n != 0 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<Window>(cx, WindowParams { shift, weights: n })
}

/// The SignalWindow kernel.
pub struct Window;

impl Kernel for Window {
    const NAME: &'static str = "SignalWindow";
    type Params = WindowParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &WindowParams) -> usize {
        Scratch::span::<i16>(p.weights)
    }

    fn run(p: &WindowParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let w = signal::i16s(
            Self::NAME,
            Operand::Input(1),
            io.bytes(1),
            p.weights,
            &mut io.scratch,
        )?;
        let x = io.i16(0)?;
        math::window_i16(x, w, p.shift, io.out_i16()?).map_err(|()| signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(WindowParams {
    shift: i32,
    weights: usize,
});
