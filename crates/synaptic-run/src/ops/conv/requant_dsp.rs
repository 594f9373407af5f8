//! The convolutions' requantization of the whole int8 range in assembly on the DSP extension
//! (`cfg(synaptic_dsp)`): `RightRequantizer::apply` by `SMMULR`, plus the output offset,
//! saturated by `SSAT` — one output ([`requant1`]) or a channel's pixel pair
//! ([`requant2`]). The Cortex-M3's twin is `requant_mla.rs` (the same names).
//!
//! Guarantees: registers only, no memory and no stack; any arguments give some value, never a
//! fault; for a requantizer `RightRequantizer::new` takes (shift within `-31 ..= -1`), the
//! portable kernels' values exactly.

use core::arch::asm;

/// `2^(right − 1)` into `{h}` and the right shift into `{s}` (from the shift, within
/// `-31 ..= -1`): 4 instructions.
macro_rules! half {
    () => {
        concat!(
            "rsb {s}, {s}, #0\n",
            "mov {h}, #1\n",
            "lsl {h}, {h}, {s}\n",
            "lsr {h}, {h}, #1\n",
        )
    };
}

/// Output `{$a}`: doubled, its rounded high word of the product with `{m}`, the rounding
/// divide by [`half`]'s parts, plus `{zp}`, saturated to int8.
macro_rules! apply {
    ($a:literal) => {
        concat!(
            "lsl {",
            $a,
            "}, {",
            $a,
            "}, #1\n",
            "smmulr {",
            $a,
            "}, {",
            $a,
            "}, {m}\n",
            "add {",
            $a,
            "}, {",
            $a,
            "}, {",
            $a,
            "}, asr #31\n",
            "add {",
            $a,
            "}, {",
            $a,
            "}, {h}\n",
            "asr {",
            $a,
            "}, {",
            $a,
            "}, {s}\n",
            "add {",
            $a,
            "}, {",
            $a,
            "}, {zp}\n",
            "ssat {",
            $a,
            "}, #8, {",
            $a,
            "}\n",
        )
    };
}

/// One channel's two outputs (a pixel pair's accumulators `a` and `b`, bias added) by its
/// right-shift requantizer (multiplier `m`, shift `s` within `-31 ..= -1`: what
/// `RightRequantizer::new` takes, the caller's tables all did) plus the output offset `zp`,
/// saturated to int8: `RightRequantizer::apply` (the doubled value's rounded high word of its
/// product with `m`, `SMMULR`, then the rounding divide) with the clamp of the whole int8
/// range (`SSAT`). 20 instructions for the two, `2^(right − 1)` made once for both.
#[inline(always)]
pub(crate) fn requant2(a: i32, b: i32, m: i32, s: i32, zp: i32) -> (i32, i32) {
    let (mut a, mut b) = (a, b);
    // SAFETY: registers only (no memory, no stack); a shift by a register takes its low
    // byte, so any `s` gives some value, never a fault; the Q flag may be set (`SSAT`), the
    // condition flags are kept.
    unsafe {
        asm!(
            half!(),
            apply!("a"),
            apply!("b"),
            a = inout(reg) a,
            b = inout(reg) b,
            m = in(reg) m,
            s = inout(reg) s => _,
            zp = in(reg) zp,
            h = out(reg) _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    (a, b)
}

/// [`requant2`] of one output: 12 instructions.
#[inline(always)]
pub(crate) fn requant1(a: i32, m: i32, s: i32, zp: i32) -> i32 {
    let mut a = a;
    // SAFETY: as [`requant2`]'s: registers only.
    unsafe {
        asm!(
            half!(),
            apply!("a"),
            a = inout(reg) a,
            m = in(reg) m,
            s = inout(reg) s => _,
            zp = in(reg) zp,
            h = out(reg) _,
            options(pure, nomem, nostack, preserves_flags),
        );
    }
    a
}
