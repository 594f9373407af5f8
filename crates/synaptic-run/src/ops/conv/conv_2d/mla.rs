//! CONV_2D's variant for the Thumb-2 cores without the DSP extension (Armv7-M: the Cortex-M3;
//! Armv8-M Mainline built without it): the packed pair windows' dot products ([`Gathered`]) as
//! `SMLAL` assembly where the compiler's loop costs half as much again: `cfg(synaptic_mla)`,
//! set by the build script.
//!
//! Guarantees: every function here is safe to call with any arguments. Each checks the lengths
//! its loop reads against its slices first and reads only within them (where they fall short
//! it does less, and says how much it did); the assembly only reads and touches no stack. The
//! results equal the portable loop's (wrapping `i64` sums: the products' order does not change
//! them).
//!
//! [`Gathered`]: super::gathered::Gathered

use crate::ops::common::Int8;
use core::arch::asm;

/// Two taps of [`pair_quads`]: two packed words at `{vp}` (advanced eight bytes), each times one
/// weight of each filter (`{w0}`, `{w1}`, advanced one each) into the packed sums `{s0l}:{s0h}`
/// and `{s1l}:{s1h}`: 10 instructions for 8 products.
macro_rules! two_taps {
    () => {
        concat!(
            "ldrd {x0}, {x1}, [{vp}], #8\n",
            "ldrsb {t}, [{w0}], #1\n",
            "smlal {s0l}, {s0h}, {t}, {x0}\n",
            "ldrsb {t}, [{w1}], #1\n",
            "smlal {s1l}, {s1h}, {t}, {x0}\n",
            "ldrsb {t}, [{w0}], #1\n",
            "smlal {s0l}, {s0h}, {t}, {x1}\n",
            "ldrsb {t}, [{w1}], #1\n",
            "smlal {s1l}, {s1h}, {t}, {x1}\n",
        )
    };
}

/// The packed sums `(s0 + Σ v[i]·w0[i], s1 + Σ v[i]·w1[i], n)` over the first `n` taps, `n` the
/// common length of `v`, `w0` and `w1` rounded down to a multiple of four (wrapping `i64`, as
/// the portable loop): one `LDRD` a pair of packed words, one `LDRSB` and one `SMLAL` a weight
/// (four taps, sixteen products, in 20 instructions where the compiler's loop took 29). `n` is
/// 0 (nothing done) when it would be, or for weights wider than a byte.
#[inline(always)]
pub(super) fn pair_quads<W: Int8>(
    v: &[i32],
    w0: &[W],
    w1: &[W],
    (s0, s1): (i64, i64),
) -> (i64, i64, usize) {
    let n = v.len().min(w0.len()).min(w1.len()) / 4 * 4;
    if n == 0 || core::mem::size_of::<W>() != 1 {
        return (s0, s1, 0);
    }
    let (mut s0l, mut s0h) = (s0 as u32, (s0 >> 32) as u32);
    let (mut s1l, mut s1h) = (s1 as u32, (s1 >> 32) as u32);
    let vp = v.as_ptr();
    let end = vp.wrapping_add(n);
    // SAFETY: reads only: words `0 .. n` of `v` (`vp` advanced two a half-step to `end` = `vp +
    // n`, `n ≤ v.len()`; `v` is `i32`s, so every `LDRD` is word-aligned) and bytes `0 .. n` of
    // `w0` and `w1` (advanced one a weight, `n` each: `n ≤` both lengths); `W` is one byte
    // (checked; `Int8` is sealed to `i8` and `u8`, read as two's complement). `n ≥ 4`, a
    // multiple of four: the loop runs until `vp` is `end`, reached exactly. No stack, no
    // memory written; the flags are set (the compare).
    unsafe {
        asm!(
            "2:",
            two_taps!(),
            two_taps!(),
            "cmp {vp}, {end}",
            "bne 2b",
            s0l = inout(reg) s0l,
            s0h = inout(reg) s0h,
            s1l = inout(reg) s1l,
            s1h = inout(reg) s1h,
            vp = inout(reg) vp => _,
            w0 = inout(reg) w0.as_ptr() => _,
            w1 = inout(reg) w1.as_ptr() => _,
            end = in(reg) end,
            x0 = out(reg) _,
            x1 = out(reg) _,
            t = out(reg) _,
            options(nostack, readonly),
        );
    }
    let join = |l: u32, h: u32| ((u64::from(h) << 32) | u64::from(l)) as i64;
    (join(s0l, s0h), join(s1l, s1h), n)
}
