//! FLOOR_DIV and FLOOR_MOD, float32 (the only type TFLM's kernels take): TFLM's
//! `micro/kernels/floor_div.cc` and `floor_mod.cc`, `reference_ops::FloorDiv` and `FloorMod`,
//! the operands broadcast as TFLM pairs them ([`Broadcast`]; inputs of different shapes at
//! most 4-D, `BroadcastBinaryFunction4DSlow`'s bound, refused above it at load).
//!
//! - FLOOR_DIV: `floor(double(x) / double(y))` rounded to float; TFLM first checks every
//!   denominator and fails the call on a zero (here: [`Unsupported::DivisionByZero`], nothing
//!   written; a constant denominator holding a zero is refused at load).
//! - FLOOR_MOD: `r = fmodf(x, y)` (exact: [`fmodf`]); `r + y` where `r ≠ 0` and its sign
//!   differs from `y`'s, else `r`. A zero divisor gives NaN (no check, as TFLM).
//!
//! No fused activation, no clamp. Either operand may be a constant; the output may overlap
//! one that has its shape (in place).

use synaptic_tflite::{code, TensorType};

use crate::contract::Contract;
use crate::error::{KernelError, LoadError, Operand, TensorTypes, Unsupported};
use crate::math::floor_f64;
use crate::ops::elementwise::binary::{prepare_pairing, Broadcast};
use crate::ops::float::{F32s, LeF32};
use crate::ops::in_place::{check, drive};
use crate::ops::{Geometry, InPlaceOperands, Kernel, Operands, Prep, Prepared};

/// The builtins this module prepares.
pub const BUILTINS: &[i32] = &[code::FLOOR_DIV, code::FLOOR_MOD];

/// x86-64's default NaN (an invalid operation's result).
const DEFAULT_NAN: f32 = f32::from_bits(0xFFC0_0000);

/// `fmodf(x, y)`: `x − n·y` with `n` the quotient truncated toward zero, exactly (the C
/// library's result: the remainder is always representable), by integer long division of the
/// significands (musl's algorithm). A zero or NaN `y` or an infinite or NaN `x` gives NaN.
pub fn fmodf(x: f32, y: f32) -> f32 {
    let (ux, uy) = (x.to_bits(), y.to_bits());
    let mut ex = ((ux >> 23) & 0xff) as i32;
    let mut ey = ((uy >> 23) & 0xff) as i32;
    let sx = ux & 0x8000_0000;
    if uy << 1 == 0 || y.is_nan() || ex == 0xff {
        if x.is_nan() {
            return f32::from_bits(ux | 0x0040_0000);
        }
        if y.is_nan() {
            return f32::from_bits(uy | 0x0040_0000);
        }
        return DEFAULT_NAN;
    }
    if ux << 1 <= uy << 1 {
        if ux << 1 == uy << 1 {
            return f32::from_bits(sx);
        }
        return x;
    }
    // The significands, normalized (subnormals shifted up).
    let mut mx = if ex == 0 {
        let mut i = ux << 9;
        while i >> 31 == 0 {
            ex -= 1;
            i <<= 1;
        }
        ux << (-ex + 1)
    } else {
        (ux & (u32::MAX >> 9)) | (1 << 23)
    };
    let my = if ey == 0 {
        let mut i = uy << 9;
        while i >> 31 == 0 {
            ey -= 1;
            i <<= 1;
        }
        uy << (-ey + 1)
    } else {
        (uy & (u32::MAX >> 9)) | (1 << 23)
    };
    while ex > ey {
        let i = mx.wrapping_sub(my);
        if i >> 31 == 0 {
            if i == 0 {
                return f32::from_bits(sx);
            }
            mx = i;
        }
        mx <<= 1;
        ex -= 1;
    }
    let i = mx.wrapping_sub(my);
    if i >> 31 == 0 {
        if i == 0 {
            return f32::from_bits(sx);
        }
        mx = i;
    }
    while mx >> 23 == 0 {
        mx <<= 1;
        ex -= 1;
    }
    if ex > 0 {
        mx -= 1 << 23;
        mx |= (ex as u32) << 23;
    } else {
        mx >>= -ex + 1;
    }
    f32::from_bits(mx | sx)
}

/// `reference_ops::FloorMod<float>`.
#[inline]
pub fn floor_mod_f32(x: f32, y: f32) -> f32 {
    let r = fmodf(x, y);
    if r != 0.0 && ((y < 0.0) != (r < 0.0)) {
        r + y
    } else {
        r
    }
}

/// `reference_ops::FloorDiv<float>`.
#[inline]
pub fn floor_div_f32(x: f32, y: f32) -> f32 {
    floor_f64(f64::from(x) / f64::from(y)) as f32
}

/// A prepared FLOOR_DIV or FLOOR_MOD.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FloorDivModParams {
    /// The element pairing.
    pub(crate) broadcast: Broadcast,
    /// FLOOR_MOD (else FLOOR_DIV).
    pub(crate) modulo: bool,
}

impl FloorDivModParams {
    /// The operator's name.
    fn name(&self) -> &'static str {
        if self.modulo {
            "FLOOR_MOD"
        } else {
            "FLOOR_DIV"
        }
    }

    /// One output.
    #[inline]
    fn value(&self, x: f32, y: f32) -> f32 {
        if self.modulo {
            floor_mod_f32(x, y)
        } else {
            floor_div_f32(x, y)
        }
    }

    /// FLOOR_DIV's check of every denominator (`y`: input 1's values).
    fn check_denominator(&self, y: &LeF32<'_>) -> Result<(), KernelError> {
        if !self.modulo && (0..y.count()).any(|i| y.at(i) == 0.0) {
            return Err(KernelError::unsupported(
                self.name(),
                Unsupported::DivisionByZero,
            ));
        }
        Ok(())
    }
}

/// The FLOOR_DIV and FLOOR_MOD kernel, float32.
pub struct FloorDivModF32;

impl Kernel for FloorDivModF32 {
    const NAME: &'static str = "FLOOR_DIV";
    const MAX_INPUTS: usize = 2;
    type Params = FloorDivModParams;
    const PAIR_INPUT: Option<usize> = None;

    fn run(p: &FloorDivModParams, io: &mut Operands<'_, '_, '_>) -> Result<(), KernelError> {
        let op = p.name();
        let (a, b) = (LeF32(io.bytes(0)), LeF32(io.bytes(1)));
        let [n1, n2, n] = p.broadcast.sizes();
        KernelError::check_len(op, Operand::Input(0), n1, a.count())?;
        KernelError::check_len(op, Operand::Input(1), n2, b.count())?;
        let out = io.out_f32()?;
        KernelError::check_len(op, Operand::Output, n, out.len())?;
        p.check_denominator(&b)?;
        p.broadcast
            .for_each_pair(|j, i1, i2| out[j] = p.value(a.at(i1), b.at(i2)));
        Ok(())
    }

    fn contract(p: &FloorDivModParams, k: usize, _out: Geometry) -> Option<Contract> {
        let bc = &p.broadcast;
        (k < 2 && bc.full(k)).then(|| Contract::elementwise(bc.sizes()[2], 4, 4))
    }

    fn run_in_place(
        p: &FloorDivModParams,
        io: &mut InPlaceOperands<'_, '_>,
    ) -> Result<usize, KernelError> {
        let (op, k, bc) = (p.name(), io.k, &p.broadcast);
        if k > 1 || !bc.full(k) {
            return Err(KernelError::unsupported(op, Unsupported::BroadcastOverlap));
        }
        let theirs = LeF32(io.bytes(1 - k));
        let [n1, n2, n] = bc.sizes();
        KernelError::check_len(
            op,
            Operand::Input(1 - k as u8),
            if k == 0 { n2 } else { n1 },
            theirs.count(),
        )?;
        let at = io.at;
        check(op, || Contract::elementwise(n, 4, 4), io.buf, &at)?;
        // The denominators first (none written on a zero), as TFLM.
        if k == 0 {
            p.check_denominator(&theirs)?;
        } else if !p.modulo {
            let mine = io.buf.get(at.input..at.input + 4 * n).unwrap_or(&[]);
            p.check_denominator(&LeF32(mine))?;
        }
        drive::<4>(io.buf, at.output, n, at.direction, |buf, j| {
            let mine = LeF32(&buf[at.input..]).at(j);
            let other = theirs.at(bc.index(1 - k, j));
            let v = if k == 0 {
                p.value(mine, other)
            } else {
                p.value(other, mine)
            };
            Ok(v.to_le_bytes())
        })?;
        Ok(4 * n)
    }
}

/// Prepares FLOOR_DIV or FLOOR_MOD: two float32 operands (either a constant) and a float32
/// output, broadcast at most 4-D.
pub(crate) fn prepare<'m>(cx: &Prep<'_, 'm>) -> Result<Prepared<'m>, LoadError> {
    if !crate::ops::float::BUILT {
        return Err(cx.unsupported(Unsupported::NotBuilt));
    }
    let ty = TensorType::Float32;
    let broadcast = prepare_pairing(cx, ty, TensorTypes::Float32, ty, Some(4))?;
    let p = FloorDivModParams {
        broadcast,
        modulo: cx.code() == code::FLOOR_MOD,
    };
    // A constant denominator with a zero: every FLOOR_DIV invocation would fail (as TFLM's
    // does), so it is refused here. (An activation's zero is known only at its invocation.)
    if !p.modulo {
        let d = cx.input(1)?;
        let values = LeF32(d.data);
        if (0..values.count().min(d.bytes / 4)).any(|i| values.at(i) == 0.0) {
            return Err(cx.unsupported(Unsupported::DivisionByZero));
        }
    }
    Prepared::of::<FloorDivModF32>(cx, p)
}

// The program's word codec of the parameters (`crate::format::codec`).
crate::format::codec::words!(FloorDivModParams {
    broadcast: Broadcast,
    modulo: bool,
});

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// `fmodf` equals the host's (glibc's) on a spread of finite pairs, subnormals included.
    #[test]
    fn fmodf_equals_the_host() {
        let mut x = 0x1234_5678u32;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            x
        };
        for _ in 0..200_000 {
            let (a, b) = (f32::from_bits(next()), f32::from_bits(next()));
            if !a.is_finite() || !b.is_finite() || b == 0.0 {
                continue;
            }
            assert_eq!(fmodf(a, b).to_bits(), (a % b).to_bits(), "{a:e} {b:e}");
        }
        for (a, b) in [
            (7.5f32, 2.0f32),
            (-7.5, 2.0),
            (1e-40, 3e-41),
            (5.0, 5.0),
            (-0.0, 1.0),
        ] {
            assert_eq!(fmodf(a, b).to_bits(), (a % b).to_bits(), "{a:e} {b:e}");
        }
        assert!(fmodf(1.0, 0.0).is_nan());
        assert_eq!(floor_mod_f32(-7.5, 2.0), 0.5);
        assert_eq!(floor_mod_f32(7.5, -2.0), -0.5);
        assert_eq!(floor_div_f32(-7.5, 2.0), -4.0);
    }
}
