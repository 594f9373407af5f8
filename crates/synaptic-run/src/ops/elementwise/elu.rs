//! ELU (int8, float32): TFLM's `micro/kernels/elu.cc`.
//!
//! - float32 (`reference_ops::Elu`): `x < 0 ? expm1(x) : x`, glibc's `expm1f` ([`expm1f`]).
//! - int8: a lookup table of 256 entries built when the program is compiled, as TFLM's
//!   `PopulateLookupTable` builds it at `Prepare` ([`elu_table_word`]): for each int8 `v`,
//!   `d = input_scale · (v − input_zero_point)`, `t = d < 0 ? exp(d) − 1 : d` (glibc's
//!   `expf`, [`expf`], then a float subtraction), `round(t · (1 / output_scale))` plus the
//!   output zero point, converted to `int32` as x86-64 converts it (a value outside `int32`
//!   becomes `INT32_MIN`), clamped to int8; all in single precision, in TFLM's order. The
//!   table is the record's constants (flash where the program is), 64 words of four entries
//!   each; the kernel looks each input up in it.
//!
//! Both kernels are element-wise: the output may overlap the dying input (in place). Zero
//! points outside int8 are refused at load.

use synaptic_tflite::code;

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault};
use crate::math::{int8_zero_point, round_f32};
use crate::ops::float::{expf, expm1f, F32s, LeF32};
use crate::ops::in_place::{check, drive, x8};
use crate::ops::operands::differs;
use crate::ops::tables::{Constants, Table};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::ELU];

const OP: &str = "ELU";

/// Words of the int8 lookup table (256 entries, four a word, entry `i` in byte `i % 4`).
pub const TABLE_WORDS: usize = 64;

/// `static_cast<int32_t>(x)` as x86-64 computes it (`cvttss2si`): toward zero, and
/// `INT32_MIN` for a NaN or a value outside `int32` (the wheel's behaviour where C++ leaves
/// it undefined).
#[inline]
pub(crate) fn f32_to_i32_x86(x: f32) -> i32 {
    if (-2_147_483_648.0..2_147_483_648.0).contains(&x) {
        x as i32
    } else {
        i32::MIN
    }
}

/// Word `c` of the int8 ELU lookup table for `arg` = `[input_scale bits, output_scale bits,
/// input_zero_point, output_zero_point]` (the zero points as `i32` bits): entries `4c..4c+4`
/// (entry `i` is the output of the int8 input whose byte is `i`), as TFLM's
/// `PopulateLookupTable` computes them; `None` past the end.
pub fn elu_table_word(arg: [u32; 4], c: usize) -> Option<u32> {
    if c >= TABLE_WORDS {
        return None;
    }
    let (input_scale, output_scale) = (f32::from_bits(arg[0]), f32::from_bits(arg[1]));
    let (input_zp, output_zp) = (arg[2] as i32, arg[3] as i32);
    let inverse_scale = 1.0 / output_scale;
    let mut w = 0u32;
    for j in 0..4 {
        let v = i32::from((4 * c + j) as u8 as i8);
        let dequantized = input_scale * (v.wrapping_sub(input_zp)) as f32;
        let transformed = if dequantized < 0.0 {
            expf(dequantized) - 1.0
        } else {
            dequantized
        };
        let rescaled = round_f32(transformed * inverse_scale);
        let q = f32_to_i32_x86(rescaled + output_zp as f32).clamp(-128, 127);
        w |= u32::from(q as u8) << (8 * j);
    }
    Some(w)
}

/// The int8 lookup table of a record's constants (exactly [`TABLE_WORDS`] words).
#[inline]
fn table(c: &[u32]) -> Result<&[u32; TABLE_WORDS], KernelError> {
    c.try_into().map_err(|_| differs(OP))
}

/// The table's entry for `x`.
#[inline(always)]
fn look_up(t: &[u32; TABLE_WORDS], x: i8) -> i8 {
    let b = x as u8;
    (t[usize::from(b >> 2)] >> (8 * (b & 3))) as u8 as i8
}

/// ELU int8 by its lookup table `t` (TFLM's `EvalUsingLookupTable`).
pub fn elu_i8(t: &[u32; TABLE_WORDS], input: &[i8], output: &mut [i8]) -> Result<(), KernelError> {
    KernelError::check_len(OP, Operand::Output, input.len(), output.len())?;
    for (&x, o) in input.iter().zip(output.iter_mut()) {
        *o = look_up(t, x);
    }
    Ok(())
}

/// The ELU kernel, int8 (its table: the record's constants).
pub struct Elu;

impl Kernel for Elu {
    const NAME: &'static str = OP;
    const MAX_INPUTS: usize = 1;
    type Params = ();

    fn run(_: &(), io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let t = table(io.constants())?;
        let x = io.i8(0)?;
        elu_i8(t, x, io.out_i8()?)
    }

    fn contract(_: &(), k: usize, out: Geometry) -> Option<Contract> {
        (k == 0).then(|| Contract::elementwise(out.elems, 1, 1))
    }

    fn run_in_place(_: &(), io: &mut InPlaceOperands<'_, '_>) -> Result<usize, KernelError> {
        let t = table(io.constants())?;
        let n = io.out()?.elems;
        let at = io.at;
        check(OP, || Contract::elementwise(n, 1, 1), io.buf, &at)?;
        drive::<1>(io.buf, at.output, n, at.direction, |buf, j| {
            Ok([look_up(t, x8(buf, at.input, j)) as u8])
        })?;
        Ok(n)
    }
}

/// One float32 ELU output (`reference_ops::Elu`).
#[inline]
pub fn elu_f32_value(x: f32) -> f32 {
    if x < 0.0 {
        expm1f(x)
    } else {
        x
    }
}

f32_unary_kernel!("ELU", EluF32, elu_f32_value);

/// Prepares ELU: input and output of one type (int8 or float32) and size; the int8 table's
/// parameters.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    let (x, out, float) = cx.unary_int8_or_f32()?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    if float {
        return Prepared::of::<EluF32>(cx, ());
    }
    cx.quantized(&[&x, &out])?;
    let input_zp = int8_zero_point(OP, x.q).map_err(|e| cx.err(e))?;
    let output_zp = int8_zero_point(OP, out.q).map_err(|e| cx.err(e))?;
    let constants = Constants::Computed {
        len: TABLE_WORDS,
        word: elu_table_word,
        arg: [
            x.q.scale.to_bits(),
            out.q.scale.to_bits(),
            input_zp as u32,
            output_zp as u32,
        ],
    };
    Prepared::with::<Elu>(cx, (), Table::None, constants)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// `expm1f` equals the host's (glibc's `expm1f`, what the wheel's float ELU calls) on
    /// every 61st negative float (every float that ELU passes to it is negative).
    /// Only on x86-64, the wheel's platform: 32-bit x86 glibc has its own `expm1f` (x87),
    /// which this port is not.
    #[test]
    #[cfg_attr(not(target_arch = "x86_64"), ignore)]
    fn expm1f_equals_the_host_on_negatives() {
        let mut b = 0x8000_0000u32;
        while b < 0xFF80_0000 {
            let x = f32::from_bits(b);
            assert_eq!(expm1f(x).to_bits(), x.exp_m1().to_bits(), "{x:e}");
            b += 61;
        }
    }

    /// The table's words hold one output an input byte, as the formula gives it; out-of-range
    /// conversions are `INT32_MIN`, so clamped to -128.
    #[test]
    fn table_entries() {
        let arg = [0.1f32.to_bits(), 0.05f32.to_bits(), 3u32, (-5i32) as u32];
        let words: std::vec::Vec<u32> = (0..TABLE_WORDS)
            .map(|c| elu_table_word(arg, c).unwrap())
            .collect();
        assert!(elu_table_word(arg, TABLE_WORDS).is_none());
        let t: &[u32; TABLE_WORDS] = words.as_slice().try_into().unwrap();
        // v = 3: zero in, the output zero point out; v = 13: 1.0 in, 20 - 5 out.
        assert_eq!(look_up(t, 3), -5);
        assert_eq!(look_up(t, 13), 15);
        // v = -128: exp(-13.1) - 1 ≈ -1 → round(-20) - 5.
        assert_eq!(look_up(t, -128), -25);
        assert_eq!(f32_to_i32_x86(3e9), i32::MIN);
        assert_eq!(f32_to_i32_x86(f32::NAN), i32::MIN);
        assert_eq!(f32_to_i32_x86(-2.5), -2);
    }
}
