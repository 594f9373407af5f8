//! SignalEnergy (int16 complex → uint32): TFLM's `energy.cc` over
//! [`signal::math::energy`]: `re² + im²` of the bins
//! `start_index..end_index`. TFLM leaves the other output elements as the arena had them;
//! here they are written 0, so no later operator reads a byte no inference wrote (the audio
//! front end slices them away; the oracle compares the bins TFLM writes).

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalEnergy")];

/// A prepared SignalEnergy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EnergyParams {
    /// First bin computed.
    pub(crate) start: i32,
    /// Bin after the last computed.
    pub(crate) end: i32,
}

/// Prepares SignalEnergy.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.type_of(
        &out,
        Operand::Output,
        TensorType::UInt32,
        TensorTypes::UInt32,
    )?;
    if x.rank != 1 || out.rank != 1 {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let m = signal::options(cx)?;
    let end = signal::int(cx, &m, 0, "end_index")?;
    let start = signal::int(cx, &m, 1, "start_index")?;
    signal::param(
        cx,
        math::energy_check(start, end, x.bytes / 2, out.bytes / 4),
    )?;
    Prepared::of::<Energy>(cx, EnergyParams { start, end })
}

/// The SignalEnergy kernel.
pub struct Energy;

impl Kernel for Energy {
    const NAME: &'static str = "SignalEnergy";
    type Params = EnergyParams;

    fn run(p: &EnergyParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        let out = io.out_u32()?;
        out.fill(0);
        math::energy(x, p.start, p.end, out).map_err(|()| signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(EnergyParams {
    start: i32,
    end: i32
});
