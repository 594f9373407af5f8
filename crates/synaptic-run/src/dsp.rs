//! The Cortex-M DSP extension's SIMD multiply-accumulates (Armv7E-M: Cortex-M4, M7; Armv8-M
//! Mainline with DSP: M33, M55), as safe functions over registers. This module is compiled
//! only where `cfg(synaptic_dsp)` is set (build.rs: the `thumbv7em-*` targets, and
//! `thumbv8m.main-*` built for a core with the extension), and it is the only `unsafe` code in
//! the crate: every other target runs the kernels' portable paths, whose integer results are the
//! same (the QEMU Cortex-M4 images check the outputs of every model against the host's).
//!
//! ## Guarantees
//!
//! - Every block is one instruction on registers only: no memory access, no stack, no
//!   control flow (`options(pure, nomem, nostack)`); the only state it may change besides
//!   its output register is the sticky Q flag (saturation), which nothing here reads, so the
//!   condition flags are declared preserved only where the instruction leaves Q alone too.
//! - The exceptions are [`taps4_pairs`] and [`smlad_pairs4`], loops over two slices: each
//!   reads only within them (their bounds checked before the block, the reads it makes
//!   derived from those bounds in its comment), writes no memory and uses no stack.
//! - The arithmetic is the architecture's, fixed by the Arm ARM: halfword lanes are signed
//!   16-bit, sums wrap modulo 2^32 (exactly `i32::wrapping_add` of the products).

use core::arch::asm;

/// `SXTB16 rd, rm`: bytes 0 and 2 of `x`, sign-extended to the two halfwords.
#[inline(always)]
pub(crate) fn sxtb16(x: u32) -> u32 {
    let r: u32;
    // SAFETY: one register-to-register instruction of the DSP extension (this module exists
    // only where the target has it); no memory, stack or flags touched.
    unsafe {
        asm!("sxtb16 {r}, {x}", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTB16 rd, rm, ROR #8`: bytes 1 and 3 of `x`, sign-extended to the two halfwords.
#[inline(always)]
pub(crate) fn sxtb16_ror8(x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtb16 {r}, {x}, ror #8", r = lateout(reg) r, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTAB16 rd, rn, rm`: the halfwords of `a` plus bytes 0 and 2 of `x` sign-extended (each
/// lane modulo 2^16).
#[inline(always)]
pub(crate) fn sxtab16(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SXTAB16 rd, rn, rm, ROR #8`: the halfwords of `a` plus bytes 1 and 3 of `x`.
#[inline(always)]
pub(crate) fn sxtab16_ror8(a: u32, x: u32) -> u32 {
    let r: u32;
    // SAFETY: as `sxtb16`.
    unsafe {
        asm!("sxtab16 {r}, {a}, {x}, ror #8", r = lateout(reg) r, a = in(reg) a, x = in(reg) x,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// `SMLABB rd, rn, rm, ra`: `acc` plus the product of the bottom halfwords of `a` and `b`.
#[inline(always)]
pub(crate) fn smlabb(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: one register instruction of the DSP extension; it may set the sticky Q flag
    // (signed overflow of the sum, whose result wraps as `wrapping_add`), so flags are not
    // declared preserved; no memory or stack touched.
    unsafe {
        asm!("smlabb {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLABT rd, rn, rm, ra`: `acc` plus the product of the bottom halfword of `a` and the top
/// halfword of `b`.
#[inline(always)]
pub(crate) fn smlabt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlabt {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLATT rd, rn, rm, ra`: `acc` plus the product of the top halfwords of `a` and `b`.
#[inline(always)]
pub(crate) fn smlatt(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlatt {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMLAD rd, rn, rm, ra`: `acc` plus the products of the bottom halfwords and of the top
/// halfwords of `a` and `b` (two multiply-accumulates).
#[inline(always)]
pub(crate) fn smlad(a: u32, b: u32, acc: i32) -> i32 {
    let r: i32;
    // SAFETY: as `smlabb`.
    unsafe {
        asm!("smlad {r}, {a}, {b}, {c}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             c = in(reg) acc, options(pure, nomem, nostack));
    }
    r
}

/// `SMMULR rd, rn, rm`: the high word of the product of `a` and `b`, rounded:
/// `(a · b + 2^31) >> 32` (arithmetic, exact in 64 bits).
#[inline(always)]
pub(crate) fn smmulr(a: i32, b: i32) -> i32 {
    let r: i32;
    // SAFETY: one register-to-register instruction of the DSP extension; no memory, stack
    // or flags touched (it never saturates).
    unsafe {
        asm!("smmulr {r}, {a}, {b}", r = lateout(reg) r, a = in(reg) a, b = in(reg) b,
             options(pure, nomem, nostack, preserves_flags));
    }
    r
}

/// The accumulators of four output channels over a window's taps whose values (offset, within
/// ±255) are `v`, the four weights of tap `t` at `w[t · step ..]`: `acc[j] + Σ_t v[t] ·
/// w[t · step + j]`, wrapping (the depthwise convolution with a multiplier, micro_speech's).
/// Two taps a step: their values one word (`v[2k]` the bottom halfword, `v[2k + 1]` the top;
/// an unaligned word where the slice is, which every core with this extension loads), each
/// tap's four weights one word split into even and odd lanes (`SXTB16`), one `SMLAxy` a
/// product: 18 instructions for eight multiply-accumulates, in registers throughout (the
/// compiler's own loop spilled its accumulators: 27). The odd last tap after the loop.
/// `w` shorter than the taps need: the portable sums (never, for a kernel's own slices).
#[inline(always)]
pub(crate) fn taps4_pairs<W: crate::ops::common::Int8>(
    acc: [i32; 4],
    v: &[i16],
    w: &[W],
    step: usize,
) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let pairs = v.len() / 2;
    // The last weight any tap reads: tap `v.len() - 1`'s fourth.
    let need = v
        .len()
        .checked_sub(1)
        .and_then(|t| t.checked_mul(step)?.checked_add(4));
    if need.is_none_or(|n| n > w.len()) || core::mem::size_of::<W>() != 1 {
        let mut acc = [a0, a1, a2, a3];
        for (t, &x) in v.iter().enumerate() {
            for (j, a) in acc.iter_mut().enumerate() {
                let wv = w.get(t * step + j).map_or(0, |w| w.value());
                *a = a.wrapping_add(i32::from(x).wrapping_mul(wv));
            }
        }
        return acc;
    }
    if pairs > 0 {
        let xp = v.as_ptr();
        // One past the last pair's word.
        let end = xp.wrapping_add(2 * pairs);
        let wp = w.as_ptr().cast::<u8>();
        // SAFETY: reads only. Pair `k < pairs` reads the word of `v[2k]` and `v[2k + 1]`
        // (within `v`: 2·pairs ≤ v.len()) and the words at byte `2k·step` and `(2k + 1)·step`
        // of `w`, whose last byte is at most `(2·pairs − 1)·step + 3 ≤ (v.len() − 1)·step + 3
        // < w.len()` (checked above; `W` is one byte, `Int8` being sealed to `i8` and `u8`).
        // The loop runs `pairs ≥ 1` times (`xp` advances a word a step to `end`). No stack,
        // no memory written; the flags are clobbered (the loop's compare), the Q flag may be
        // set (unread).
        unsafe {
            asm!(
                "2:",
                "ldr {x}, [{xp}], #4",
                "ldr {w}, [{wp}]",
                "sxtb16 {o}, {w}, ror #8",
                "sxtb16 {w}, {w}",
                "smlabb {a0}, {x}, {w}, {a0}",
                "smlabb {a1}, {x}, {o}, {a1}",
                "smlabt {a2}, {x}, {w}, {a2}",
                "smlabt {a3}, {x}, {o}, {a3}",
                "ldr {w}, [{wp}, {step}]",
                "sxtb16 {o}, {w}, ror #8",
                "sxtb16 {w}, {w}",
                "smlatb {a0}, {x}, {w}, {a0}",
                "smlatb {a1}, {x}, {o}, {a1}",
                "smlatt {a2}, {x}, {w}, {a2}",
                "smlatt {a3}, {x}, {o}, {a3}",
                "add {wp}, {wp}, {step}, lsl #1",
                "cmp {xp}, {end}",
                "bne 2b",
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                xp = inout(reg) xp => _,
                wp = inout(reg) wp => _,
                step = in(reg) step,
                end = in(reg) end,
                x = out(reg) _,
                w = out(reg) _,
                o = out(reg) _,
                options(nostack, readonly),
            );
        }
    }
    if v.len() % 2 == 1 {
        let t = v.len() - 1;
        let x = u32::from(v[t] as u16);
        let ww = u32::from_le_bytes([0, 1, 2, 3].map(|j| w[t * step + j].byte()));
        let (e, o) = (sxtb16(ww), sxtb16_ror8(ww));
        a0 = smlabb(x, e, a0);
        a1 = smlabb(x, o, a1);
        a2 = smlabt(x, e, a2);
        a3 = smlabt(x, o, a3);
    }
    [a0, a1, a2, a3]
}

/// The accumulators of four output channels over a window's taps whose values (offset, within
/// ±255) are `v`, the weights in tap pairs `w` (the program's, `ops::depthwise_conv_2d::
/// tap_pair_word`: word `4k + j` holds channel `j`'s weights of taps `2k` and `2k + 1` as
/// signed halfwords): `acc[j] + Σ_k v[2k] · lo(w[4k + j]) + v[2k + 1] · hi(w[4k + j])`,
/// wrapping. One `SMLAD` a channel and pair of taps: 9 instructions for eight
/// multiply-accumulates. `w` shorter than `4 · ⌈v.len() / 2⌉` words: the portable sums of
/// what it holds (never, for a kernel's own slices).
#[inline(always)]
pub(crate) fn smlad_pairs4(acc: [i32; 4], v: &[i16], w: &[u32]) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let pairs = v.len() / 2;
    if w.len() < 4 * v.len().div_ceil(2) {
        let mut acc = [a0, a1, a2, a3];
        for (t, &x) in v.iter().enumerate() {
            for (j, a) in acc.iter_mut().enumerate() {
                let word = w.get(4 * (t / 2) + j).copied().unwrap_or(0);
                let wv = (word >> (16 * (t % 2))) as u16 as i16;
                *a = a.wrapping_add(i32::from(x).wrapping_mul(i32::from(wv)));
            }
        }
        return acc;
    }
    if pairs > 0 {
        let xp = v.as_ptr();
        let end = xp.wrapping_add(2 * pairs);
        let wp = w.as_ptr();
        // SAFETY: reads only. Pair `k < pairs` reads the word of `v[2k]` and `v[2k + 1]`
        // (within `v`: 2·pairs ≤ v.len()) and words `4k .. 4k + 4` of `w` (two `LDRD`s of a
        // word-aligned `&[u32]`; 4·pairs ≤ w.len(), checked above). The loop runs `pairs ≥ 1`
        // times (`xp` advances a word a step to `end`). No stack, no memory written; the
        // flags are clobbered (the loop's compare), the Q flag may be set (unread).
        unsafe {
            asm!(
                "2:",
                "ldr {x}, [{xp}], #4",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a0}, {x}, {w0}, {a0}",
                "smlad {a1}, {x}, {w1}, {a1}",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a2}, {x}, {w0}, {a2}",
                "smlad {a3}, {x}, {w1}, {a3}",
                "cmp {xp}, {end}",
                "bne 2b",
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                xp = inout(reg) xp => _,
                wp = inout(reg) wp => _,
                end = in(reg) end,
                x = out(reg) _,
                w0 = out(reg) _,
                w1 = out(reg) _,
                options(nostack, readonly),
            );
        }
    }
    if v.len() % 2 == 1 {
        // The odd last tap: its value alone in the bottom halfword (the top weight is 0).
        let x = u32::from(v[v.len() - 1] as u16);
        let k = 4 * pairs;
        a0 = smlad(x, w[k], a0);
        a1 = smlad(x, w[k + 1], a1);
        a2 = smlad(x, w[k + 2], a2);
        a3 = smlad(x, w[k + 3], a3);
    }
    [a0, a1, a2, a3]
}
