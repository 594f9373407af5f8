//! SignalRfft (int16): TFLM's `rfft.cc` with kissfft's fixed-point real FFT
//! ([`signal::kissfft`]): each row of the input zero-padded to
//! `fft_length`, `fft_length / 2 + 1` complex bins out. The twiddle tables TFLM computes into a
//! persistent buffer at `Init` are computed once into the program's constants here (flash
//! when the program is); the work area and kissfft's buffer come from the scratch pool.

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal::{self, kissfft};
use crate::ops::tables::Constants;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalRfft")];

/// TFLite's tensor type code of int16 (the options' `T`).
const INT16: i32 = 7;

/// A prepared SignalRfft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RfftParams {
    /// `fft_length` (kissfft takes it: [`kissfft::rfft_supported`]).
    pub(crate) fft_length: usize,
    /// Samples per input row.
    pub(crate) input_length: usize,
}

/// Prepares SignalRfft.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Int16)?;
    cx.activation_of(&out, Operand::Output, TensorType::Int16)?;
    let m = signal::options(cx)?;
    // Only the int16 FFT is built (TFLM also has int32 and float32 ones).
    if signal::int(cx, &m, 0, "T")? != INT16 {
        return Err(cx.unsupported(Unsupported::SignalParams));
    }
    let n = signal::int(cx, &m, 1, "fft_length")?;
    let fft_length = usize::try_from(n).map_err(|_| cx.unsupported(Unsupported::SignalParams))?;
    signal::param(cx, kissfft::rfft_supported(fft_length))?;
    if x.rank == 0 || x.rank != out.rank {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let input_length = x.shape()[x.rank - 1];
    let output_length = out.shape()[out.rank - 1] / 2;
    let rows = (x.bytes / 2).checked_div(input_length).unwrap_or(0);
    if input_length == 0
        || input_length > fft_length
        || output_length != fft_length / 2 + 1
        || rows.checked_mul(4 * output_length) != Some(out.bytes)
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = RfftParams {
        fft_length,
        input_length,
    };
    let len = kissfft::rfft_table_words(fft_length).unwrap_or(0);
    let tables = Constants::Computed {
        len,
        word: |a, c| kissfft::rfft_table_word(a[0] as usize, c),
        arg: [fft_length as u32, 0, 0, 0],
    };
    Prepared::with::<Rfft>(cx, p, crate::ops::tables::Table::None, tables)
}

/// The SignalRfft kernel, int16.
pub struct Rfft;

impl Kernel for Rfft {
    const NAME: &'static str = "SignalRfft";
    type Params = RfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &RfftParams) -> usize {
        Scratch::span::<i16>(kissfft::rfft_scratch_elems(p.fft_length))
    }

    fn run(p: &RfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let n = kissfft::rfft_scratch_elems(p.fft_length);
        let work = io
            .scratch
            .take::<i16>(n)
            .ok_or(KernelError::unsupported(Self::NAME, Unsupported::Scratch))?;
        let tables = io.constants();
        let x = io.i16(0)?;
        kissfft::rfft_i16(p.fft_length, tables, p.input_length, x, io.out_i16()?, work)
            .map_err(|()| signal::failed(Self::NAME))
    }
}

crate::format::codec::words!(RfftParams {
    fft_length: usize,
    input_length: usize,
});
