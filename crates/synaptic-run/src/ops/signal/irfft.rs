//! SignalIrfft (int16, int32, float32): TFLM's `signal/micro/kernels/irfft.cc` with kissfft's
//! inverse real FFT of the options' type `T` (`signal/src/irfft_int16.cc`, `irfft_int32.cc`,
//! `irfft_float.cc`; [`signal::kissfft`]): each row of `fft_length / 2 + 1` complex values
//! (re, im interleaved) in, `fft_length` samples out — the integer types' scaled by
//! `1 / fft_length` (kissfft's fixed point), float's divided by `fft_length` after kissfft's
//! unscaled inverse, as `IrfftFloatApply` does. The twiddle tables (the inverse's) are
//! computed once into the program's constants, kissfft's buffer comes from the scratch pool.
//!
//! Refused at load (TFLM only asserts, or reads and writes past its buffers): a `T` other
//! than int16, int32 or float32, tensors of another type, an unsupported `fft_length`
//! ([`kissfft::rfft_supported`]), an input row of an odd count of values or of fewer than
//! `fft_length / 2 + 1` complex values (TFLM would read the next row's; more are ignored as
//! TFLM ignores them), an output row other than `fft_length` samples (TFLM writes that many
//! per row: a shorter row overlaps the next, a longer one stays unwritten), rows of input and
//! output in different numbers.

use synaptic_mem::Scratch;
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal::rfft::{fft_options, fft_tables, Sample};
use crate::ops::signal::{self, kissfft};
use crate::ops::tables::Table;
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalIrfft")];

/// A prepared SignalIrfft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IrfftParams {
    /// `fft_length` (kissfft takes it: [`kissfft::rfft_supported`]).
    pub(crate) fft_length: usize,
    /// Complex values per input row (at least `fft_length / 2 + 1`).
    pub(crate) input_length: usize,
    /// int32 samples ([`Irfft`]; int16 otherwise).
    pub(crate) int32: bool,
}

/// Prepares SignalIrfft.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (ty, fft_length) = fft_options(cx)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), ty)?;
    cx.activation_of(&out, Operand::Output, ty)?;
    if x.rank == 0 || x.rank != out.rank {
        return Err(cx.unsupported(Unsupported::Rank));
    }
    let size = match ty {
        TensorType::Int16 => 2,
        _ => 4,
    };
    let row = x.shape()[x.rank - 1];
    let rows = (x.bytes / size).checked_div(row).unwrap_or(0);
    if row % 2 != 0
        || row / 2 < fft_length / 2 + 1
        || out.shape()[out.rank - 1] != fft_length
        || rows.checked_mul(fft_length * size) != Some(out.bytes)
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = IrfftParams {
        fft_length,
        input_length: row / 2,
        int32: ty == TensorType::Int32,
    };
    let tables = fft_tables(ty, fft_length, true);
    match ty {
        TensorType::Float32 => Prepared::with::<IrfftF32>(cx, p, Table::None, tables),
        _ => Prepared::with::<Irfft>(cx, p, Table::None, tables),
    }
}

/// Scratch bytes of the inverse RFFT of `S`.
fn scratch_bytes<S: Sample>(p: &IrfftParams) -> usize {
    Scratch::span::<S>(kissfft::irfft_scratch_elems(p.fft_length))
}

/// The inverse RFFT of `S`: kissfft's buffer from the scratch pool, the tables from the
/// record's constants.
fn run<S: Sample>(
    name: &'static str,
    p: &IrfftParams,
    io: &mut Operands<'_, '_, '_>,
) -> Result<(), KernelError> {
    let n = kissfft::irfft_scratch_elems(p.fft_length);
    let tmpbuf = io
        .scratch
        .take::<S>(n)
        .ok_or(KernelError::unsupported(name, Unsupported::Scratch))?;
    let tables = io.constants();
    let x = S::input(io, 0)?;
    kissfft::irfft(
        p.fft_length,
        tables,
        p.input_length,
        x,
        S::output(io)?,
        tmpbuf,
    )
    .map_err(|()| signal::failed(name))
}

/// The SignalIrfft kernel, int16 and int32 (kissfft's `FIXED_POINT=16` and `=32`).
pub struct Irfft;

impl Kernel for Irfft {
    const NAME: &'static str = "SignalIrfft";
    type Params = IrfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &IrfftParams) -> usize {
        if p.int32 {
            scratch_bytes::<i32>(p)
        } else {
            scratch_bytes::<i16>(p)
        }
    }

    fn run(p: &IrfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        if p.int32 {
            run::<i32>(Self::NAME, p, io)
        } else {
            run::<i16>(Self::NAME, p, io)
        }
    }
}

/// The SignalIrfft kernel, float32 (kissfft's float build, then TFLM's division by
/// `fft_length`).
pub struct IrfftF32;

impl Kernel for IrfftF32 {
    const NAME: &'static str = "SignalIrfft";
    type Params = IrfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &IrfftParams) -> usize {
        scratch_bytes::<f32>(p)
    }

    fn run(p: &IrfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<f32>(Self::NAME, p, io)
    }
}

crate::format::codec::words!(IrfftParams {
    fft_length: usize,
    input_length: usize,
    int32: bool,
});
