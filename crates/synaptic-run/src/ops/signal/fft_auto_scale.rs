//! SignalFftAutoScale (int16): TFLM's `fft_auto_scale_kernel.cc` over
//! [`signal::math::fft_auto_scale_i16`]: the input
//! shifted left as far as its largest magnitude allows (output 0), and the shift (output 1,
//! an int32 scalar the filter bank's square root reads back).

use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, TensorTypes};
use crate::ops::signal::{self, math};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalFftAutoScale")];

/// A prepared SignalFftAutoScale: its element count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FftAutoScaleParams {
    /// Elements of the input and output.
    pub(crate) elems: usize,
}

/// Prepares SignalFftAutoScale.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out, scale) = (cx.input(0)?, cx.output()?, cx.output_at(1)?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    cx.type_of(
        &scale,
        Operand::Output,
        TensorType::Int32,
        TensorTypes::Int32,
    )?;
    if x.bytes != out.bytes || scale.bytes != 4 {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    Prepared::of::<FftAutoScale>(cx, FftAutoScaleParams { elems: x.bytes / 2 })
}

/// The SignalFftAutoScale kernel.
pub struct FftAutoScale;

impl Kernel for FftAutoScale {
    const NAME: &'static str = "SignalFftAutoScale";
    type Params = FftAutoScaleParams;
    const OUTPUTS: usize = 2;

    fn run(_p: &FftAutoScaleParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let x = io.i16(0)?;
        let scale =
            math::fft_auto_scale_i16(x, io.out_i16()?).map_err(|()| signal::failed(Self::NAME))?;
        let s = io
            .out2
            .as_deref_mut()
            .filter(|s| s.len() == 4)
            .ok_or(signal::failed(Self::NAME))?;
        s.copy_from_slice(&scale.to_ne_bytes());
        Ok(())
    }
}

crate::format::codec::words!(FftAutoScaleParams { elems: usize });
