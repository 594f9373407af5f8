//! SignalFilterBankLog (uint32 → int16): TFLM's `filter_bank_log.cc` over
//! [`signal::math::filter_bank_log`]: each channel's
//! fixed-point log, scaled by `output_scale` after `input_correction_bits`.

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes, Unsupported};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalFilterBankLog")];

/// A prepared SignalFilterBankLog.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterBankLogParams {
    /// `output_scale`.
    pub(crate) output_scale: i32,
    /// `input_correction_bits`.
    pub(crate) correction: i32,
}

/// Prepares SignalFilterBankLog.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.type_of(
        &x,
        Operand::Input(0),
        TensorType::UInt32,
        TensorTypes::UInt32,
    )?;
    if !x.data.is_empty() {
        return Err(cx.unsupported(Unsupported::Constant(Operand::Input(0))));
    }
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    if x.bytes / 4 != out.bytes / 2 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let m = signal::options(cx)?;
    let correction = signal::int(cx, &m, 0, "input_correction_bits")?;
    let output_scale = signal::int(cx, &m, 1, "output_scale")?;
    signal::param(cx, math::filter_bank_log_check(correction))?;
    Prepared::of::<FilterBankLog>(
        cx,
        FilterBankLogParams {
            output_scale,
            correction,
        },
    )
}

/// The SignalFilterBankLog kernel.
pub struct FilterBankLog;

impl Kernel for FilterBankLog {
    const NAME: &'static str = "SignalFilterBankLog";
    type Params = FilterBankLogParams;

    fn run(p: &FilterBankLogParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.u32s(0)?;
        math::filter_bank_log(x, p.output_scale, p.correction, io.out_i16()?)
            .map_err(|()| signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(FilterBankLogParams {
    output_scale: i32,
    correction: i32,
});
