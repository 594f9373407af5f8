//! SignalPCAN (uint32): TFLM's `pcan.cc` over [`signal::math::pcan`]:
//! per-channel automatic gain control, each channel scaled by a gain looked up (int16 table,
//! input 2) from the noise estimate (input 1: the spectral subtraction's state), then
//! compressed.

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::operands::In;
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalPCAN")];

/// A prepared SignalPCAN.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcanParams {
    /// `snr_shift`.
    pub(crate) snr_shift: i32,
    /// Channels.
    pub(crate) channels: usize,
    /// Gain table entries.
    pub(crate) lut: usize,
    /// Elements of the noise estimate (at least `channels`).
    pub(crate) noise: usize,
}

/// Prepares SignalPCAN.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(3, 3)?;
    let (x, noise, lut, out) = (cx.input(0)?, cx.input(1)?, cx.input(2)?, cx.output()?);
    for (t, o) in [
        (&x, Operand::Input(0)),
        (&noise, Operand::Input(1)),
        (&out, Operand::Output),
    ] {
        cx.type_of(t, o, TensorType::UInt32, TensorTypes::UInt32)?;
        if !t.data.is_empty() {
            return Err(cx.unsupported(Unsupported::Constant(o)));
        }
    }
    cx.type_of(
        &lut,
        Operand::Input(2),
        TensorType::Int16,
        TensorTypes::Int16,
    )?;
    cx.constant(&lut, Operand::Input(2))?;
    if x.rank != 1 || noise.rank != 1 || lut.rank != 1 || out.rank != 1 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let snr_shift = signal::int(cx, &signal::options(cx)?, 0, "snr_shift")?;
    signal::param(cx, math::pcan_check(snr_shift, lut.bytes / 2))?;
    if x.bytes != out.bytes || noise.bytes < x.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = PcanParams {
        snr_shift,
        channels: x.bytes / 4,
        lut: lut.bytes / 2,
        noise: noise.bytes / 4,
    };
    Prepared::of::<Pcan>(cx, p)
}

/// The SignalPCAN kernel.
pub struct Pcan;

impl Kernel for Pcan {
    const NAME: &'static str = "SignalPCAN";
    type Params = PcanParams;
    // The noise estimate is usually the spectral subtraction's state.
    const STATE: bool = true;
    // The noise estimate.
    const STATE_INPUTS: u32 = 1 << 1;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &PcanParams) -> usize {
        Scratch::span::<i16>(p.lut) + Scratch::span::<u32>(p.noise)
    }

    fn run(p: &PcanParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        const OP: &str = "SignalPCAN";
        let lut = signal::i16s(OP, Operand::Input(2), io.bytes(2), p.lut, &mut io.scratch)?;
        let x = io.u32s(0)?;
        // The estimate: a planned tensor, or state (read through the scratch: its bytes
        // need not be viewed as words).
        let noise: &[u32] = match io.input(1) {
            In::Arena(t) => t.as_slice::<u32>().map_err(|_| signal::failed(OP))?,
            _ => {
                let s = io.states[0].as_deref().ok_or(signal::failed(OP))?;
                signal::u32s(OP, s, &mut io.scratch)?
            }
        };
        math::pcan(x, noise, lut, p.snr_shift, io.out_u32()?).map_err(|()| signal::failed(OP))
    }
}

crate::format::codec::words!(PcanParams {
    snr_shift: i32,
    channels: usize,
    lut: usize,
    noise: usize,
});
