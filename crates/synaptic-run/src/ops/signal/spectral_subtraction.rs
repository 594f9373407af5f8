//! SignalFilterBankSpectralSubtraction (uint32): TFLM's `filter_bank_spectral_subtraction.cc`
//! over [`signal::math::filter_bank_spectral_subtraction`]:
//! each channel minus a running noise estimate. The estimate is state across invocations:
//! TFLM keeps it in a persistent buffer (zeroed at load and by `Reset`) and copies it to
//! output 1 after each call; here output 1 *is* that state (`STATE_OUTPUT`): a persistent
//! tensor, zeroed at load and by a state reset, updated in place.

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[CODE];

/// Its operator code.
pub(crate) const CODE: i32 = custom_code("SignalFilterBankSpectralSubtraction");

/// The output that holds the kernel's state (the noise estimate).
pub(crate) const STATE_OUTPUT: usize = 1;

/// A prepared SignalFilterBankSpectralSubtraction: the options as TFLM stores them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpectralSubtractionParams {
    /// `num_channels` (the output's and the estimate's length).
    pub(crate) channels: i32,
    /// `smoothing`, `one_minus_smoothing`, `min_signal_remaining`, `alternate_smoothing`,
    /// `alternate_one_minus_smoothing`, `smoothing_bits`, `spectral_subtraction_bits`.
    pub(crate) values: [u32; 7],
    /// `clamping`.
    pub(crate) clamping: bool,
}

impl SpectralSubtractionParams {
    fn math(&self) -> math::SpectralSubtractionParams {
        let v = self.values;
        math::SpectralSubtractionParams {
            num_channels: self.channels,
            smoothing: v[0],
            one_minus_smoothing: v[1],
            min_signal_remaining: v[2],
            alternate_smoothing: v[3],
            alternate_one_minus_smoothing: v[4],
            smoothing_bits: v[5],
            spectral_subtraction_bits: v[6],
            clamping: self.clamping,
        }
    }
}

/// Prepares SignalFilterBankSpectralSubtraction.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out, noise) = (cx.input(0)?, cx.output()?, cx.output_at(1)?);
    for (t, o) in [
        (&x, Operand::Input(0)),
        (&out, Operand::Output),
        (&noise, Operand::Output),
    ] {
        cx.type_of(t, o, TensorType::UInt32, TensorTypes::UInt32)?;
        if t.rank != 1 {
            return Err(cx.unsupported(Unsupported::Rank));
        }
    }
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    let m = signal::options(cx)?;
    let i = |k, key| signal::int(cx, &m, k, key);
    let clamping = match signal::entry(cx, &m, 2, "clamping")? {
        synaptic_tflite::flexbuffers::FlexValue::Bool(b) => b,
        _ => return Err(cx.unsupported(Unsupported::CustomOptions)),
    };
    let p = SpectralSubtractionParams {
        channels: i(4, "num_channels")?,
        values: [
            i(6, "smoothing")? as u32,
            i(5, "one_minus_smoothing")? as u32,
            i(3, "min_signal_remaining")? as u32,
            i(1, "alternate_smoothing")? as u32,
            i(0, "alternate_one_minus_smoothing")? as u32,
            i(7, "smoothing_bits")? as u32,
            i(8, "spectral_subtraction_bits")? as u32,
        ],
        clamping,
    };
    signal::param(cx, math::filter_bank_spectral_subtraction_check(&p.math()))?;
    // The channels' bytes, checked (a count of 2^30 or more, or a negative one, fits no
    // tensor: refused, never wrapped on 32 bits).
    let n4 = usize::try_from(p.channels)
        .ok()
        .and_then(|n| n.checked_mul(4))
        .ok_or_else(|| cx.shape(ShapeFault::SizeDiffers))?;
    if out.bytes != n4 || noise.bytes != n4 || x.bytes < n4 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<SpectralSubtraction>(cx, p)
}

/// The SignalFilterBankSpectralSubtraction kernel.
pub struct SpectralSubtraction;

impl Kernel for SpectralSubtraction {
    const NAME: &'static str = "SignalFilterBankSpectralSubtraction";
    type Params = SpectralSubtractionParams;
    const OUTPUTS: usize = 2;
    const STATE: bool = true;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &SpectralSubtractionParams) -> usize {
        Scratch::span::<u32>(p.channels.max(0) as usize)
    }

    fn run(
        p: &SpectralSubtractionParams,
        io: &mut Operands<'_, '_, '_>,
    ) -> Result<(), KernelError> {
        const OP: &str = "SignalFilterBankSpectralSubtraction";
        let x = io.u32s(0)?;
        let Operands {
            states,
            scratch,
            out,
            ..
        } = io;
        let state = states[0].as_deref_mut().ok_or(signal::failed(OP))?;
        let estimate = signal::u32s(OP, state, scratch)?;
        let out = out.as_mut_slice::<u32>().map_err(|_| signal::failed(OP))?;
        math::filter_bank_spectral_subtraction(&p.math(), x, estimate, out)
            .map_err(|()| signal::failed(OP))?;
        for (b, e) in state.chunks_exact_mut(4).zip(estimate.iter()) {
            b.copy_from_slice(&e.to_ne_bytes());
        }
        Ok(())
    }
}

crate::format::codec::words!(SpectralSubtractionParams {
    channels: i32,
    values: [u32; 7],
    clamping: bool,
});
