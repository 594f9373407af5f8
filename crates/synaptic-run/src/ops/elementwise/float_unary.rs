//! NEG, FLOOR, CEIL, SQUARE, SQRT, ROUND, EXP, SIN, COS and LOG, float32 (TFLM runs them on
//! float32 only): `reference_ops::Negate` (`-x`), `Floor` (`std::floor`), `Ceil`
//! (`std::ceil`), `elementwise.cc`'s `SquareEval` (`x * x`) and `SqrtEval` (`std::sqrt`,
//! correctly rounded: [`sqrtf`]), `reference_ops::Round` (`RoundToNearest`: halves to the even
//! neighbour), `exp.cc` (`std::exp`: glibc's `expf`, [`expf`]) and `elementwise.cc`'s
//! `SinEval`, `CosEval`, `LogEval` (`std::sin`, `std::cos`, `std::log`: glibc's `sinf`,
//! `cosf`, `logf`, ported in [`sinf`], [`cosf`], [`logf`] and tested against the host's C
//! library) — the same bits as TFLM's in the wheel on every target (FLOOR and CEIL written
//! here, `core` having neither: −0 and a NaN kept, halves going the C library's way).
//! Element-wise: in place where the plan overlaps them.
use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, ShapeFault};
use crate::ops::float::{cosf, expf, logf, sinf, sqrtf, F32s, LeF32};
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[
    code::NEG,
    code::FLOOR,
    code::CEIL,
    code::SQUARE,
    code::SQRT,
    code::ROUND,
    code::EXP,
    code::SIN,
    code::COS,
    code::LOG,
];

/// `x` with its fraction dropped, toward zero, its sign kept (−0.5 → −0); a NaN, an
/// infinity and every value of magnitude 2^23 or more (already integral) as they are.
#[inline]
fn trunc(x: f32) -> f32 {
    const SIGN: u32 = 0x8000_0000;
    let bits = x.to_bits();
    // Magnitude below 2^23 (a NaN compares false): `i32` holds it exactly.
    if f32::from_bits(bits & !SIGN) < 8_388_608.0 {
        let t = (x as i32) as f32;
        f32::from_bits(t.to_bits() | (bits & SIGN))
    } else {
        x
    }
}

/// `std::floor`: the largest integral value not above `x` (−0 stays −0).
#[inline]
pub fn floor_f32(x: f32) -> f32 {
    let t = trunc(x);
    if t > x {
        t - 1.0
    } else {
        t
    }
}

/// `std::ceil`: the smallest integral value not below `x` (−0.5 → −0).
#[inline]
pub fn ceil_f32(x: f32) -> f32 {
    let t = trunc(x);
    if t < x {
        t + 1.0
    } else {
        t
    }
}

/// `-x` (`reference_ops::Negate`).
#[inline]
pub fn neg_f32(x: f32) -> f32 {
    -x
}

/// `x * x` (`SquareEval`).
#[inline]
pub fn square_f32(x: f32) -> f32 {
    x * x
}

/// `reference_ops::Round` (`RoundToNearest`): the floor, or the next integer above when the
/// fraction is above one half or exactly one half with an odd floor (a NaN or an infinity
/// takes the second way, as in C: `floor + 1`).
#[inline]
pub fn round_f32(x: f32) -> f32 {
    let f = floor_f32(x);
    let diff = x - f;
    // `static_cast<int>(floor_val) % 2`: only reached for |x| < 2^23 (a fraction of one half).
    if diff < 0.5 || (diff == 0.5 && (f as i32) % 2 == 0) {
        f
    } else {
        f + 1.0
    }
}

/// Prepares NEG, FLOOR, CEIL, SQUARE, SQRT, ROUND, EXP, SIN, COS or LOG: float32 input and output of one
/// size.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    cx.inputs(1, 1)?;
    let (x, out) = (cx.input(0)?, cx.output()?);
    cx.activation_of(&x, Operand::Input(0), TensorType::Float32)?;
    cx.activation_of(&out, Operand::Output, TensorType::Float32)?;
    if x.bytes != out.bytes {
        return Err(cx.shape(ShapeFault::SizeDiffers));
    }
    match cx.code() {
        code::NEG => Prepared::of::<NegF32>(cx, ()),
        code::FLOOR => Prepared::of::<FloorF32>(cx, ()),
        code::CEIL => Prepared::of::<CeilF32>(cx, ()),
        code::SQRT => Prepared::of::<SqrtF32>(cx, ()),
        code::ROUND => Prepared::of::<RoundF32>(cx, ()),
        code::EXP => Prepared::of::<ExpF32>(cx, ()),
        code::SIN => Prepared::of::<SinF32>(cx, ()),
        code::COS => Prepared::of::<CosF32>(cx, ()),
        code::LOG => Prepared::of::<LogF32>(cx, ()),
        _ => Prepared::of::<SquareF32>(cx, ()),
    }
}

f32_unary_kernel!("NEG", NegF32, neg_f32);
f32_unary_kernel!("FLOOR", FloorF32, floor_f32);
f32_unary_kernel!("CEIL", CeilF32, ceil_f32);
f32_unary_kernel!("SQUARE", SquareF32, square_f32);
f32_unary_kernel!("SQRT", SqrtF32, sqrtf);
f32_unary_kernel!("ROUND", RoundF32, round_f32);
f32_unary_kernel!("EXP", ExpF32, expf);
f32_unary_kernel!("SIN", SinF32, sinf);
f32_unary_kernel!("COS", CosF32, cosf);
f32_unary_kernel!("LOG", LogF32, logf);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// FLOOR and CEIL equal the C library's (`std`'s) on the edges and on a sweep of bit
    /// patterns: signed zeros, halves, large values, infinities, NaNs.
    #[test]
    fn floor_and_ceil_are_the_c_library_s() {
        let mut x = 0x1234_5678u32;
        let mut values: std::vec::Vec<f32> = [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1.5,
            -1.5,
            2.5,
            -2.5,
            8_388_607.5,
            -8_388_607.5,
            8_388_608.0,
            1e30,
            -1e30,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            0.999_999_94,
            -0.999_999_94,
        ]
        .to_vec();
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            values.push(f32::from_bits(x));
        }
        for v in values {
            let (f, c) = (floor_f32(v), ceil_f32(v));
            if v.is_nan() {
                assert!(f.is_nan() && c.is_nan());
                continue;
            }
            assert_eq!(f.to_bits(), v.floor().to_bits(), "floor {v:e}");
            assert_eq!(c.to_bits(), v.ceil().to_bits(), "ceil {v:e}");
        }
    }

    /// ROUND sends halves to the even neighbour and keeps −0, NaN and infinities.
    #[test]
    fn round_is_tflm_s() {
        let cases = [
            (0.5, 0.0),
            (1.5, 2.0),
            (2.5, 2.0),
            (-0.5, 0.0),
            (-1.5, -2.0),
            (-2.5, -2.0),
            (0.49, 0.0),
            (-3.7, -4.0),
            (8_388_607.5, 8_388_608.0),
            (1e30, 1e30),
        ];
        for (x, want) in cases {
            assert_eq!(round_f32(x).to_bits(), f32::to_bits(want), "{x}");
        }
        assert!(round_f32(f32::NAN).is_nan());
        assert_eq!(round_f32(f32::INFINITY), f32::INFINITY);
    }
}
