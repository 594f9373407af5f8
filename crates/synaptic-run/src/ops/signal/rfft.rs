//! SignalRfft (int16, int32, float32): TFLM's `signal/micro/kernels/rfft.cc` with kissfft's
//! real FFT of the options' type `T` (`signal/src/rfft_int16.cc`, `rfft_int32.cc`,
//! `rfft_float.cc`; [`signal::kissfft`]): each row of the input zero-padded to
//! `fft_length`, `fft_length / 2 + 1` complex bins out (the integer types' scaled by
//! `1 / fft_length`, kissfft's fixed point; float's not). The twiddle tables TFLM computes
//! into a persistent buffer at `Init` are computed once into the program's constants here
//! (flash when the program is); the work area and kissfft's buffer come from the scratch
//! pool.
//!
//! Refused at load (TFLM only asserts, or reads past its buffers): a `T` other than int16,
//! int32 or float32 (TFLM's `Init` returns no state), tensors of another type, an
//! unsupported `fft_length` ([`kissfft::rfft_supported`]), an input row longer than
//! `fft_length`, an output row other than `fft_length / 2 + 1` complex values (TFLM writes
//! that many, leaving the rest unwritten), rows of input and output in different numbers.

use synaptic_mem::{Element, Scratch};
use synaptic_tflite::TensorType;

use crate::error::{KernelError, LoadError, Operand, ShapeFault, Unsupported};
use crate::ops::signal::{self, kissfft};
use crate::ops::tables::{Constants, Table};
use crate::ops::{custom_code, Kernel, Operands, Prep, Prepared};

/// The custom operator this module prepares.
pub const BUILTINS: &[i32] = &[custom_code("SignalRfft")];

/// TFLite's tensor type code of float32 (the options' `T`).
const FLOAT32: i32 = 0;
/// TFLite's tensor type code of int32.
const INT32: i32 = 2;
/// TFLite's tensor type code of int16.
const INT16: i32 = 7;

/// A prepared SignalRfft.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RfftParams {
    /// `fft_length` (kissfft takes it: [`kissfft::rfft_supported`]).
    pub(crate) fft_length: usize,
    /// Samples per input row.
    pub(crate) input_length: usize,
}

/// A sample type of the signal library's FFTs: kissfft's arithmetic of it
/// ([`kissfft::Scalar`]) and the operands of its type.
pub(crate) trait Sample: kissfft::Scalar + Element {
    /// Input `k` of this type.
    fn input<'x>(io: &Operands<'x, '_, '_>, k: usize) -> Result<&'x [Self], KernelError>;
    /// The output of this type.
    fn output<'a>(io: &'a mut Operands<'_, '_, '_>) -> Result<&'a mut [Self], KernelError>;
}

impl Sample for i16 {
    fn input<'x>(io: &Operands<'x, '_, '_>, k: usize) -> Result<&'x [i16], KernelError> {
        io.i16(k)
    }
    fn output<'a>(io: &'a mut Operands<'_, '_, '_>) -> Result<&'a mut [i16], KernelError> {
        io.out_i16()
    }
}

impl Sample for i32 {
    fn input<'x>(io: &Operands<'x, '_, '_>, k: usize) -> Result<&'x [i32], KernelError> {
        io.i32s(k)
    }
    fn output<'a>(io: &'a mut Operands<'_, '_, '_>) -> Result<&'a mut [i32], KernelError> {
        io.out_i32()
    }
}

impl Sample for f32 {
    fn input<'x>(io: &Operands<'x, '_, '_>, k: usize) -> Result<&'x [f32], KernelError> {
        io.f32(k)
    }
    fn output<'a>(io: &'a mut Operands<'_, '_, '_>) -> Result<&'a mut [f32], KernelError> {
        io.out_f32()
    }
}

/// The options of SignalRfft and SignalIrfft (`T` and `fft_length`, by position as TFLM's
/// `Init` reads them): the sample type (float32 only in a build with float kernels) and a
/// supported `fft_length`.
pub(crate) fn fft_options(cx: &Prep<'_, '_>) -> Result<(TensorType, usize), LoadError> {
    let m = signal::options(cx)?;
    let ty = match signal::int(cx, &m, 0, "T")? {
        INT16 => TensorType::Int16,
        INT32 => TensorType::Int32,
        FLOAT32 if crate::ops::float::BUILT => TensorType::Float32,
        FLOAT32 => return Err(cx.unsupported(Unsupported::NotBuilt)),
        _ => return Err(cx.unsupported(Unsupported::SignalParams)),
    };
    let fft_length = signal::count(cx, &m, 1, "fft_length")?;
    signal::param(cx, kissfft::rfft_supported(fft_length))?;
    Ok((ty, fft_length))
}

/// A [`Constants::Computed`] word function.
type TableWord = fn([u32; 4], usize) -> Option<u32>;

/// The kissfft tables of `ty` for `fft_length` (the inverse's if `inverse`), computed into
/// the program's constants.
pub(crate) fn fft_tables(ty: TensorType, fft_length: usize, inverse: bool) -> Constants<'static> {
    let arg = [fft_length as u32, u32::from(inverse), 0, 0];
    let (len, word): (_, TableWord) = match ty {
        TensorType::Int32 => (kissfft::table_words::<i32>(fft_length), |a, c| {
            kissfft::table_word::<i32>(a[0] as usize, a[1] != 0, c)
        }),
        TensorType::Float32 => (kissfft::table_words::<f32>(fft_length), |a, c| {
            kissfft::table_word::<f32>(a[0] as usize, a[1] != 0, c)
        }),
        _ => (kissfft::table_words::<i16>(fft_length), |a, c| {
            kissfft::table_word::<i16>(a[0] as usize, a[1] != 0, c)
        }),
    };
    Constants::Computed {
        len: len.unwrap_or(0),
        word,
        arg,
    }
}

/// Prepares SignalRfft.
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
    let input_length = x.shape()[x.rank - 1];
    let output_length = out.shape()[out.rank - 1] / 2;
    let rows = (x.bytes / size).checked_div(input_length).unwrap_or(0);
    if input_length == 0
        || input_length > fft_length
        || output_length != fft_length / 2 + 1
        || rows.checked_mul(2 * size * output_length) != Some(out.bytes)
    {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    let p = RfftParams {
        fft_length,
        input_length,
    };
    let tables = fft_tables(ty, fft_length, false);
    match ty {
        TensorType::Int32 => Prepared::with::<RfftI32>(cx, p, Table::None, tables),
        TensorType::Float32 => Prepared::with::<RfftF32>(cx, p, Table::None, tables),
        _ => Prepared::with::<Rfft>(cx, p, Table::None, tables),
    }
}

/// Scratch bytes of the RFFT of `S`.
fn scratch_bytes<S: Sample>(p: &RfftParams) -> usize {
    Scratch::span::<S>(kissfft::rfft_scratch_elems(p.fft_length))
}

/// The RFFT of `S`: the work area and kissfft's buffer from the scratch pool, the tables
/// from the record's constants.
fn run<S: Sample>(
    name: &'static str,
    p: &RfftParams,
    io: &mut Operands<'_, '_, '_>,
) -> Result<(), KernelError> {
    let n = kissfft::rfft_scratch_elems(p.fft_length);
    let work = io
        .scratch
        .take::<S>(n)
        .ok_or(KernelError::unsupported(name, Unsupported::Scratch))?;
    let tables = io.constants();
    let x = S::input(io, 0)?;
    kissfft::rfft(
        p.fft_length,
        tables,
        p.input_length,
        x,
        S::output(io)?,
        work,
    )
    .map_err(|()| signal::failed(name))
}

/// The SignalRfft kernel, int16.
pub struct Rfft;

impl Kernel for Rfft {
    const NAME: &'static str = "SignalRfft";
    type Params = RfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &RfftParams) -> usize {
        scratch_bytes::<i16>(p)
    }

    fn run(p: &RfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<i16>(Self::NAME, p, io)
    }
}

/// The SignalRfft kernel, int32 (kissfft's `FIXED_POINT=32`).
pub struct RfftI32;

impl Kernel for RfftI32 {
    const NAME: &'static str = "SignalRfft";
    type Params = RfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &RfftParams) -> usize {
        scratch_bytes::<i32>(p)
    }

    fn run(p: &RfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<i32>(Self::NAME, p, io)
    }
}

/// The SignalRfft kernel, float32 (kissfft's float build).
pub struct RfftF32;

impl Kernel for RfftF32 {
    const NAME: &'static str = "SignalRfft";
    type Params = RfftParams;
    const SCRATCH: bool = true;

    fn scratch_bytes(p: &RfftParams) -> usize {
        scratch_bytes::<f32>(p)
    }

    fn run(p: &RfftParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        run::<f32>(Self::NAME, p, io)
    }
}

crate::format::codec::words!(RfftParams {
    fft_length: usize,
    input_length: usize,
});
