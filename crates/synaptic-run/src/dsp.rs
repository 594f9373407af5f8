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
//! - The exceptions are [`taps4_pairs`], [`smlad_pairs4`], [`dot2x2_quads`] and
//!   [`dot4_quads`], loops over slices;
//!   [`quad3x3_row`], a loop that reads a slice and a `repr(C)` struct and writes a slice;
//!   [`quad_taps`], a fixed block that reads a slice and writes an array; and
//!   [`gather_words`], [`copy_words`] and [`pair_quads`], loops that read slices and write
//!   a slice. Each reads and writes only within them (their bounds checked before the block,
//!   the accesses it makes derived from those bounds in its comment; only the last five
//!   write memory) and uses no stack.
//! - The arithmetic is the architecture's, fixed by the Arm ARM: halfword lanes are signed
//!   16-bit, sums wrap modulo 2^32 (exactly `i32::wrapping_add` of the products).

use crate::ops::conv::depthwise_conv_2d::{row_block_fits, row_block_steps};
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
/// ±255) are `v`, the weights in tap pairs `w` (the program's, `ops::conv::depthwise_conv_2d::
/// tap_pair_word`: word `4k + j` holds channel `j`'s weights of taps `2k` and `2k + 1` as
/// signed halfwords): `acc[j] + Σ_k v[2k] · lo(w[4k + j]) + v[2k + 1] · hi(w[4k + j])`,
/// wrapping. One `SMLAD` a channel and pair of taps, two pairs a step: 15 instructions for
/// sixteen multiply-accumulates (measured, M4 micro_speech_quantized, 80 taps: a pair a step,
/// 9 instructions for eight, 1,103,031 instructions an inference; two, 1,060,851). `w` shorter than
/// `4 · ⌈v.len() / 2⌉` words or `v` not word-aligned (`LDRD` faults on it): the portable sums
/// (never, for a kernel's own slices: the window is a 16-byte aligned scratch block).
#[inline(always)]
pub(crate) fn smlad_pairs4(acc: [i32; 4], v: &[i16], w: &[u32]) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let pairs = v.len() / 2;
    if w.len() < 4 * v.len().div_ceil(2) || !v.as_ptr().cast::<u32>().is_aligned() {
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
    let pair = |k: usize| u32::from(v[2 * k] as u16) | (u32::from(v[2 * k + 1] as u16) << 16);
    if pairs % 2 == 1 {
        // The odd first pair alone, then two a step.
        let x = pair(0);
        a0 = smlad(x, w[0], a0);
        a1 = smlad(x, w[1], a1);
        a2 = smlad(x, w[2], a2);
        a3 = smlad(x, w[3], a3);
    }
    let first = pairs % 2;
    if pairs > 1 {
        let xp = v.as_ptr().wrapping_add(2 * first);
        let end = v.as_ptr().wrapping_add(2 * pairs);
        let wp = w.as_ptr().wrapping_add(4 * first);
        // SAFETY: reads only. A step reads the two words of `v[2k .. 2k + 4]` (`LDRD`: `v`
        // is word-aligned, checked above, and `2k` even) and words `4k .. 4k + 8` of `w`
        // (four `LDRD`s of a word-aligned `&[u32]`), for the pairs `k = first, first + 2, ..`
        // below `pairs`: within `v` (2·pairs ≤ v.len()) and `w` (4·pairs ≤ w.len(), checked
        // above). `pairs − first` is even and ≥ 2, so the loop runs (`xp` advances two
        // words a step to `end`). No stack, no memory written; the flags are clobbered (the
        // loop's compare), the Q flag may be set (unread).
        unsafe {
            asm!(
                "2:",
                "ldrd {x0}, {x1}, [{xp}], #8",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a0}, {x0}, {w0}, {a0}",
                "smlad {a1}, {x0}, {w1}, {a1}",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a2}, {x0}, {w0}, {a2}",
                "smlad {a3}, {x0}, {w1}, {a3}",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a0}, {x1}, {w0}, {a0}",
                "smlad {a1}, {x1}, {w1}, {a1}",
                "ldrd {w0}, {w1}, [{wp}], #8",
                "smlad {a2}, {x1}, {w0}, {a2}",
                "smlad {a3}, {x1}, {w1}, {a3}",
                "cmp {xp}, {end}",
                "bne 2b",
                a0 = inout(reg) a0,
                a1 = inout(reg) a1,
                a2 = inout(reg) a2,
                a3 = inout(reg) a3,
                xp = inout(reg) xp => _,
                wp = inout(reg) wp => _,
                end = in(reg) end,
                x0 = out(reg) _,
                x1 = out(reg) _,
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

/// What [`quad3x3_row`] reads of one group of four output channels of a depthwise row
/// kernel, laid out for its block (`repr(C)`, every field 4-byte integers: the byte offsets
/// its loads name are in the fields' comments).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quad {
    /// Tap `(r, c)`'s four weights at `taps[3r + c]`, split into even and odd lanes
    /// (`SXTB16`; byte 0).
    pub(crate) taps: [[u32; 2]; 9],
    /// The channels' biases (byte 72).
    pub(crate) bias: [i32; 4],
    /// Per channel, [`crate::math::RightRequantizer::parts`]: multiplier, `2^(right − 1)`,
    /// right shift (byte 88).
    pub(crate) rq: [[i32; 3]; 4],
    /// The output offset (byte 136).
    pub(crate) offset: i32,
    /// The activation's minimum in each byte (byte 140).
    pub(crate) lo: u32,
    /// The activation's maximum in each byte (byte 144).
    pub(crate) hi: u32,
    /// Set by [`quad3x3_row`]: the bytes from one window row to the next (148), from the
    /// third row of a window to the first of the next (152), and from one pixel's outputs
    /// to the next's (156).
    pub(crate) steps: [u32; 3],
}

/// One tap of [`quad3x3_row`]'s block: the window word at byte `$x` of the row pointer,
/// the tap's even and odd weight words at bytes `$t` and `$t4` of the [`Quad`].
macro_rules! quad_tap {
    ($x:literal, $t:literal, $t4:literal) => {
        concat!(
            "ldr {x}, [{xp}, #",
            $x,
            "]\n",
            "sxtab16 {xe}, {pair}, {x}\n",
            "sxtab16 {x}, {pair}, {x}, ror #8\n",
            "ldr {w}, [{qp}, #",
            $t,
            "]\n",
            "smlabb {a0}, {xe}, {w}, {a0}\n",
            "smlatt {a2}, {xe}, {w}, {a2}\n",
            "ldr {w}, [{qp}, #",
            $t4,
            "]\n",
            "smlabb {a1}, {x}, {w}, {a1}\n",
            "smlatt {a3}, {x}, {w}, {a3}\n",
        )
    };
}

/// One channel's requantization in [`quad3x3_row`]'s block: `RightRequantizer::apply` of
/// `$a` with the parts at byte `$m` of the [`Quad`] (multiplier and half) and `$r` (shift).
macro_rules! quad_rq {
    ($a:literal, $m:literal, $r:literal) => {
        concat!(
            "ldrd {x}, {xe}, [{qp}, #",
            $m,
            "]\n",
            "lsl {",
            $a,
            "}, {",
            $a,
            "}, #1\n",
            "smmulr {",
            $a,
            "}, {",
            $a,
            "}, {x}\n",
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
            "}, {xe}\n",
            "ldr {x}, [{qp}, #",
            $r,
            "]\n",
            "asr {",
            $a,
            "}, {",
            $a,
            "}, {x}\n",
        )
    };
}

/// The outputs of `n` pixels of one output row of a depthwise row kernel's group of four
/// channels: pixel `i`'s 3×3 window of words (each the four channels' input bytes at a tap)
/// has row `r` at `win[i · sw + r · ncols ..][.. 3]`; its four output bytes go to
/// `out[i · c ..][.. 4]`, channel `j` at byte `j`. Each channel: its bias plus its nine
/// products (`SXTAB16` adding the input offset `pair`, in both halfwords, then one `SMLAxy` a
/// product: the row kernel's `mac_word`), requantized as `RightRequantizer::apply`, plus the output offset, saturated to
/// int8 (`SSAT`), packed, clamped to the activation's range a byte lane at a time (`SSUB8` +
/// `SEL`) and stored as one word. One block for the row, the accumulators in registers (the
/// compiler's loop spilled them and reloaded each requantizer): 142 instructions a pixel.
/// `q`'s steps are [`quad_steps`]'s for `sw`, `ncols` and `c`. Returns `false`, writing
/// nothing, when `win` or `out` is too short for the `n` pixels or the steps are not these
/// (never, for the kernel's own slices).
#[inline(always)]
pub(crate) fn quad3x3_row(
    q: &Quad,
    win: &[u32],
    (n, sw, ncols): (usize, usize, usize),
    pair: u32,
    out: &mut [i8],
    c: usize,
) -> bool {
    if !row_block_fits((win.len(), out.len()), (n, sw, ncols), c, &q.steps) {
        return false;
    }
    let xp = win.as_ptr();
    let op = out.as_mut_ptr();
    let qp: *const Quad = q;
    // SAFETY: pixel `i < n` reads words `i·sw + r·ncols .. i·sw + r·ncols + 3` of `win` for
    // `r < 3` (`xp` advanced by `q.steps[0]` = `4·ncols` bytes a row, then by `q.steps[1]`
    // to the next pixel's first: `4·sw` bytes on from the last pixel's first; checked), the last at most
    // `(n − 1)·sw + 2·ncols + 2 < win.len()`; and writes bytes `i·c .. i·c + 4` of `out`
    // (`op` advanced by `q.steps[2]` = `c` a pixel; an unaligned word store, which every core with this
    // extension makes), the last at most `(n − 1)·c + 3 < out.len()`: both checked above
    // without overflow, `n ≥ 1` (the loop's count, decremented to 0). It reads the 40 words
    // of `q` (`repr(C)`, 4-byte fields: bytes 0 .. 160) and no other memory, uses no stack;
    // the GE flags (`SSUB8`) and the condition flags (the count) are set and the Q flag may
    // be, so the flags are not declared preserved.
    unsafe {
        asm!(
            "2:",
            "ldrd {a0}, {a1}, [{qp}, #72]",
            "ldrd {a2}, {a3}, [{qp}, #80]",
            quad_tap!("0", "0", "4"),
            quad_tap!("4", "8", "12"),
            quad_tap!("8", "16", "20"),
            "ldr {w}, [{qp}, #148]",
            "add {xp}, {xp}, {w}",
            quad_tap!("0", "24", "28"),
            quad_tap!("4", "32", "36"),
            quad_tap!("8", "40", "44"),
            "ldr {w}, [{qp}, #148]",
            "add {xp}, {xp}, {w}",
            quad_tap!("0", "48", "52"),
            quad_tap!("4", "56", "60"),
            quad_tap!("8", "64", "68"),
            "ldr {w}, [{qp}, #152]",
            "add {xp}, {xp}, {w}",
            quad_rq!("a0", "88", "96"),
            quad_rq!("a1", "100", "108"),
            quad_rq!("a2", "112", "120"),
            quad_rq!("a3", "124", "132"),
            "ldr {x}, [{qp}, #136]",
            "add {a0}, {a0}, {x}",
            "add {a1}, {a1}, {x}",
            "add {a2}, {a2}, {x}",
            "add {a3}, {a3}, {x}",
            "ssat {a0}, #8, {a0}",
            "ssat {a1}, #8, {a1}",
            "ssat {a2}, #8, {a2}",
            "ssat {a3}, #8, {a3}",
            "bfi {a0}, {a1}, #8, #8",
            "bfi {a0}, {a2}, #16, #8",
            "bfi {a0}, {a3}, #24, #8",
            "ldr {x}, [{qp}, #140]",
            "ssub8 {w}, {a0}, {x}",
            "sel {a0}, {a0}, {x}",
            "ldr {x}, [{qp}, #144]",
            "ssub8 {w}, {x}, {a0}",
            "sel {a0}, {a0}, {x}",
            "str {a0}, [{op}]",
            "ldr {w}, [{qp}, #156]",
            "add {op}, {op}, {w}",
            "subs {n}, {n}, #1",
            "bne 2b",
            a0 = out(reg) _,
            a1 = out(reg) _,
            a2 = out(reg) _,
            a3 = out(reg) _,
            xp = inout(reg) xp => _,
            op = inout(reg) op => _,
            n = inout(reg) n => _,
            qp = in(reg) qp,
            pair = in(reg) pair,
            x = out(reg) _,
            xe = out(reg) _,
            w = out(reg) _,
            options(nostack),
        );
    }
    true
}

/// Sets `q`'s steps for [`quad3x3_row`] over windows `sw` words apart in rows of `ncols` words
/// and outputs `c` bytes apart; `false` (the row kernel's own path then) when they do not fit
/// 32 bits.
#[inline(always)]
pub(crate) fn quad_steps(q: &mut Quad, (sw, ncols): (usize, usize), c: usize) -> bool {
    match row_block_steps(sw, ncols, c) {
        Some(s) => {
            q.steps = s;
            true
        }
        None => false,
    }
}

/// One tap of [`quad_taps`]: the word at the filter pointer, on by `c` bytes, split into
/// even and odd lanes and stored at byte `$t` of the taps.
macro_rules! split_tap {
    ($t:literal) => {
        concat!(
            "ldr {v}, [{wp}]\n",
            "add {wp}, {wp}, {c}\n",
            "sxtb16 {e}, {v}\n",
            "sxtb16 {o}, {v}, ror #8\n",
            "strd {e}, {o}, [{tp}, #",
            $t,
            "]\n",
        )
    };
}

/// Sets `q.taps` to a 3×3 depthwise filter's taps for four channels: tap `t`'s four weights
/// are bytes `t·c .. t·c + 4` of `w` (the filter from the group's first channel, `c` channels
/// a tap), split into even and odd lanes (`SXTB16`), as [`quad3x3_row`] multiplies them. 45
/// instructions (the compiler's loop: 25 a tap). Returns `false`, setting nothing, when `w`
/// is shorter than `8·c + 4` bytes (never, for the kernel's own filter).
#[inline(always)]
pub(crate) fn quad_taps<W: crate::ops::common::Int8>(q: &mut Quad, w: &[W], c: usize) -> bool {
    let need = c.checked_mul(8).and_then(|n| n.checked_add(4));
    if need.is_none_or(|n| n > w.len()) || core::mem::size_of::<W>() != 1 {
        return false;
    }
    let wp = w.as_ptr().cast::<u8>();
    let tp = q.taps.as_mut_ptr();
    // SAFETY: reads the words at bytes `t·c` of `w` for `t < 9` (`wp` advanced by `c` a
    // tap; an unaligned load, which every core with this extension makes), the last byte at
    // `8·c + 3 < w.len()` (checked above without overflow; `W` is one byte, `Int8` being
    // sealed to `i8` and `u8`); writes the 18 words of `q.taps` (an array of `[u32; 2]`:
    // bytes 0 .. 72, word-aligned as `STRD` needs). No other memory, no stack, no flags.
    unsafe {
        asm!(
            split_tap!("0"),
            split_tap!("8"),
            split_tap!("16"),
            split_tap!("24"),
            split_tap!("32"),
            split_tap!("40"),
            split_tap!("48"),
            split_tap!("56"),
            split_tap!("64"),
            wp = inout(reg) wp => _,
            c = in(reg) c,
            tp = in(reg) tp,
            v = out(reg) _,
            e = out(reg) _,
            o = out(reg) _,
            options(nostack, preserves_flags),
        );
    }
    true
}

/// `dst[j]` = the word at byte `j·c` of `src` (little-endian, as `common::word`), for every
/// `j`: a depthwise row kernel's gather of one group's four channels along an input row.
/// Five instructions a word (the compiler's loop: about ten). Returns `false`, writing
/// nothing, when `src` is shorter than `(dst.len() − 1)·c + 4` bytes or `dst` is empty.
#[inline(always)]
pub(crate) fn gather_words<X: crate::ops::common::Int8>(
    dst: &mut [u32],
    src: &[X],
    c: usize,
) -> bool {
    let n = dst.len();
    let need = n
        .checked_sub(1)
        .and_then(|k| k.checked_mul(c))
        .and_then(|k| k.checked_add(4));
    if need.is_none_or(|k| k > src.len()) || core::mem::size_of::<X>() != 1 {
        return false;
    }
    let sp = src.as_ptr().cast::<u8>();
    let dp = dst.as_mut_ptr();
    // SAFETY: word `j < n` of `dst` is written (`dp` advanced a word a step; `dst` is a
    // `&mut [u32]`, word-aligned) from the 4 bytes at `j·c` of `src` (`sp` advanced by `c`;
    // an unaligned load, which every core with this extension makes), the last at most
    // `(n − 1)·c + 3 < src.len()` (checked above without overflow; `X` is one byte, `Int8`
    // being sealed to `i8` and `u8`). The loop runs `n ≥ 1` times. No other memory, no
    // stack; the condition flags are set (the count).
    unsafe {
        asm!(
            "2:",
            "ldr {v}, [{sp}]",
            "add {sp}, {sp}, {c}",
            "str {v}, [{dp}], #4",
            "subs {n}, {n}, #1",
            "bne 2b",
            sp = inout(reg) sp => _,
            dp = inout(reg) dp => _,
            n = inout(reg) n => _,
            c = in(reg) c,
            v = out(reg) _,
            options(nostack),
        );
    }
    true
}

/// Copies the first `4·n` bytes of `src` to `dst` a word at a time, `n` the whole words of
/// the shorter; returns `4·n`. A kernel's chunk of output values to its output (16 to 64
/// bytes: the compiler's loop was a call to `memcpy`, some 70 instructions for 16 bytes;
/// this 4 a word), a convolution's window rows to its staging bytes.
#[inline(always)]
pub(crate) fn copy_words<O: crate::ops::common::Int8Out, X: crate::ops::common::Int8>(
    dst: &mut [O],
    src: &[X],
) -> usize {
    let n = dst.len().min(src.len()) / 4;
    if n == 0 || core::mem::size_of::<O>() != 1 || core::mem::size_of::<X>() != 1 {
        return 0;
    }
    let sp = src.as_ptr().cast::<u8>();
    let dp = dst.as_mut_ptr().cast::<u8>();
    // SAFETY: reads bytes `0 .. 4n` of `src` and writes bytes `0 .. 4n` of `dst` (both at
    // least `4n` long: `n` is the shorter's whole words; `O` and `X` are one byte, `Int8Out`
    // and `Int8` being sealed to `i8` and `u8`, for which every byte is a value and
    // `from_i8` the byte itself), a word a step (unaligned loads and stores, which every core with this
    // extension makes); the slices do not overlap (`&mut` and `&`). The loop runs `n ≥ 1`
    // times. No stack; the condition flags are set (the count).
    unsafe {
        asm!(
            "2:",
            "ldr {v}, [{sp}], #4",
            "str {v}, [{dp}], #4",
            "subs {n}, {n}, #1",
            "bne 2b",
            sp = inout(reg) sp => _,
            dp = inout(reg) dp => _,
            n = inout(reg) n => _,
            v = out(reg) _,
            options(nostack),
        );
    }
    4 * n
}

/// The window of a pair of pixels of a 1×1 convolution, `conv_2d::Gathered`'s layout: per
/// four input values of `xa` and of `xb` (offset by `pair`'s halfword, `SXTAB16`) the words
/// `(a0, a2)`, `(a1, a3)`, `(b0, b2)`, `(b1, b3)` in `dst`. Ten instructions a quad (the
/// compiler's loop with its per-value path: some 25). Returns `false`, writing nothing,
/// unless `xa` and `xb` are one length, a non-zero multiple of four, and `dst` holds their
/// words.
#[inline(always)]
pub(crate) fn pair_quads<X: crate::ops::common::Int8>(
    dst: &mut [u32],
    xa: &[X],
    xb: &[X],
    pair: u32,
) -> bool {
    let k = xa.len();
    let n = k / 4;
    if k != xb.len() || k % 4 != 0 || n == 0 || dst.len() < k || core::mem::size_of::<X>() != 1 {
        return false;
    }
    let (ap, bp) = (xa.as_ptr().cast::<u8>(), xb.as_ptr().cast::<u8>());
    let dp = dst.as_mut_ptr();
    // SAFETY: quad `j < n` reads bytes `4j .. 4j + 4` of `xa` and of `xb` (`4n = k` = both
    // lengths, checked; `X` is one byte, `Int8` being sealed; unaligned loads, which every
    // core with this extension makes) and writes words `4j .. 4j + 4` of `dst` (`4n = k ≤
    // dst.len()`, checked; a `&mut [u32]`, word-aligned as `STRD` needs). The loop runs
    // `n ≥ 1` times. No other memory, no stack; the condition flags are set (the count).
    unsafe {
        asm!(
            "2:",
            "ldr {wa}, [{ap}], #4",
            "ldr {wb}, [{bp}], #4",
            "sxtab16 {d0}, {pair}, {wa}",
            "sxtab16 {d1}, {pair}, {wa}, ror #8",
            "strd {d0}, {d1}, [{dp}], #8",
            "sxtab16 {d0}, {pair}, {wb}",
            "sxtab16 {d1}, {pair}, {wb}, ror #8",
            "strd {d0}, {d1}, [{dp}], #8",
            "subs {n}, {n}, #1",
            "bne 2b",
            ap = inout(reg) ap => _,
            bp = inout(reg) bp => _,
            dp = inout(reg) dp => _,
            n = inout(reg) n => _,
            pair = in(reg) pair,
            wa = out(reg) _,
            wb = out(reg) _,
            d0 = out(reg) _,
            d1 = out(reg) _,
            options(nostack),
        );
    }
    true
}

/// One quad of [`dot2x2_quads`]'s block: the four window words at `xp` (advanced 16 bytes)
/// against filter 0's weight word at `wp` and filter 1's at `wp + kd` (`wp` advanced 4).
macro_rules! dot_quad {
    () => {
        concat!(
            "ldr {u}, [{wp}]\n",
            "sxtb16 {ue}, {u}\n",
            "sxtb16 {u}, {u}, ror #8\n",
            "ldrd {t0}, {t1}, [{xp}]\n",
            "smlad {a0}, {t0}, {ue}, {a0}\n",
            "smlad {a0}, {t1}, {u}, {a0}\n",
            "ldrd {t0}, {t1}, [{xp}, #8]\n",
            "smlad {b0}, {t0}, {ue}, {b0}\n",
            "smlad {b0}, {t1}, {u}, {b0}\n",
            "ldr {u}, [{wp}, {kd}]\n",
            "sxtb16 {ue}, {u}\n",
            "sxtb16 {u}, {u}, ror #8\n",
            "smlad {b1}, {t0}, {ue}, {b1}\n",
            "smlad {b1}, {t1}, {u}, {b1}\n",
            "ldrd {t0}, {t1}, [{xp}], #16\n",
            "smlad {a1}, {t0}, {ue}, {a1}\n",
            "smlad {a1}, {t1}, {u}, {a1}\n",
            "add {wp}, {wp}, #4\n",
        )
    };
}

/// Two filters over a pair of windows (`conv_2d::Gathered`'s layout: per four values the
/// words `(a0, a2)`, `(a1, a3)`, `(b0, b2)`, `(b1, b3)` in `x`), four values a step:
/// `[a0, b0, a1, b1]` = `acc` plus, for each quad `q`, window `a`'s and `b`'s values against
/// the four weights at bytes `4q ..` of `w0` (filter 0) and of `w1` (filter 1), each word of
/// weights split by `SXTB16`, two `SMLAD`s a window and filter: 19 instructions for 16
/// multiply-accumulates, two quads a pass (the compiler's loop: 22 a quad). `n` quads, `n` at
/// most what `x`, `w0` and `w1` hold; fewer: the sums of those (never, for the kernel's own
/// slices).
#[inline(always)]
pub(crate) fn dot2x2_quads<W: crate::ops::common::Int8>(
    acc: [i32; 4],
    x: &[u32],
    w0: &[W],
    w1: &[W],
    n: usize,
) -> [i32; 4] {
    let [mut a0, mut b0, mut a1, mut b1] = acc;
    let n = n.min(x.len() / 4).min(w0.len() / 4).min(w1.len() / 4);
    if n == 0 || core::mem::size_of::<W>() != 1 {
        return acc;
    }
    let xp = x.as_ptr();
    let wp = w0.as_ptr().cast::<u8>();
    let end = wp.wrapping_add(4 * n);
    // Filter 1's bytes from filter 0's: an offset the load adds (wrapping: either order).
    let kd = (w1.as_ptr() as usize).wrapping_sub(w0.as_ptr() as usize);
    // SAFETY: reads only. Quad `q < n` reads words `4q .. 4q + 4` of `x` (`xp` advanced 16
    // bytes a quad; `4n ≤ x.len()`; a `&[u32]`, word-aligned as `LDRD` needs) and the words
    // at bytes `4q` of `w0` (`wp`, advanced 4 a quad to `end` = byte `4n`) and of `w1`
    // (`wp + kd`, the same byte of `w1`): within both, `4n ≤` their lengths (`W` is one
    // byte, `Int8` being sealed; unaligned loads, which every core with this extension
    // makes). `n ≥ 1` quads: an odd count's first alone, then two a pass until `wp` is
    // `end` (`4n` bytes on: reached exactly, the rest being even). No stack, no memory
    // written; the flags are set (the tests and compares) and the Q flag may be.
    unsafe {
        asm!(
            // An odd count: one quad first, then two a pass.
            "tst {n}, #1",
            "beq 3f",
            dot_quad!(),
            "cmp {wp}, {end}",
            "beq 4f",
            "3:",
            dot_quad!(),
            dot_quad!(),
            "cmp {wp}, {end}",
            "bne 3b",
            "4:",
            a0 = inout(reg) a0,
            b0 = inout(reg) b0,
            a1 = inout(reg) a1,
            b1 = inout(reg) b1,
            xp = inout(reg) xp => _,
            wp = inout(reg) wp => _,
            end = in(reg) end,
            kd = in(reg) kd,
            n = in(reg) n,
            u = out(reg) _,
            ue = out(reg) _,
            t0 = out(reg) _,
            t1 = out(reg) _,
            options(nostack, readonly),
        );
    }
    [a0, b0, a1, b1]
}

/// One filter's word of [`dot4_quads`]: the weights at address `$at` split by `SXTB16`
/// against the window's words `{t0}` (values 0, 2) and `{t1}` (1, 3) into accumulator `$acc`.
macro_rules! filter_word {
    ($at:literal, $acc:literal) => {
        concat!(
            "ldr {u}, ",
            $at,
            "\n",
            "sxtb16 {ue}, {u}\n",
            "sxtb16 {u}, {u}, ror #8\n",
            "smlad ",
            $acc,
            ", {t0}, {ue}, ",
            $acc,
            "\n",
            "smlad ",
            $acc,
            ", {t1}, {u}, ",
            $acc,
            "\n",
        )
    };
}

/// Four filters over one window (`conv_2d::Gathered`'s one-window layout: per four values
/// the words `(v0, v2)`, `(v1, v3)` in `x`), four values a step: `acc` plus, for each quad
/// `q`, the window's values against the four weights at bytes `4q ..` of filter `j`, the
/// filters `kd` bytes apart from `w` (filter `j` at byte `j·kd`), each word of weights split
/// by `SXTB16`, two `SMLAD`s a filter: 23 instructions for 16 multiply-accumulates (the
/// compiler's two passes of two filters over the input: some 30). `n` quads, at most what `x`
/// holds and with `3·kd + 4n ≤ w.len()`; otherwise (never, for the kernel's own slices) `acc`.
#[inline(always)]
pub(crate) fn dot4_quads<W: crate::ops::common::Int8>(
    acc: [i32; 4],
    x: &[u32],
    w: &[W],
    kd: usize,
    n: usize,
) -> [i32; 4] {
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let fits = kd
        .checked_mul(3)
        .and_then(|b| b.checked_add(n.checked_mul(4)?))
        .is_some_and(|end| end <= w.len());
    if n == 0 || n > x.len() / 2 || !fits || kd < 4 || core::mem::size_of::<W>() != 1 {
        return acc;
    }
    let xp = x.as_ptr();
    let end = xp.wrapping_add(2 * n);
    let wp = w.as_ptr().cast::<u8>();
    let wq = wp.wrapping_add(2 * kd);
    // The second filter of each pointer's two, from the first's byte after its post-increment.
    let kd4 = kd - 4;
    // SAFETY: reads only. Quad `q < n` reads words `2q`, `2q + 1` of `x` (`xp` advanced 8
    // bytes a quad to `end` = word `2n ≤ x.len()`; a `&[u32]`, word-aligned as `LDRD`
    // needs) and the word at byte `4q` of filters 0 and 1 (`wp`, `wp + kd`) and 2 and 3 (`wq`
    // = `wp + 2kd`, `wq + kd`), each pointer advanced 4 a quad (its second filter's word at
    // `kd − 4` past the advanced pointer): the last ends at byte `3kd + 4n ≤ w.len()`,
    // checked (`W` is one byte, `Int8` being sealed; unaligned loads, which every core with
    // this extension makes). `n ≥ 1`: the loop runs until `xp` is `end`, reached exactly.
    // No stack, no memory written; the flags are set (the compare) and the Q flag may be.
    unsafe {
        asm!(
            "2:",
            "ldrd {t0}, {t1}, [{xp}], #8",
            filter_word!("[{wp}], #4", "{a0}"),
            filter_word!("[{wp}, {kd}]", "{a1}"),
            filter_word!("[{wq}], #4", "{a2}"),
            filter_word!("[{wq}, {kd}]", "{a3}"),
            "cmp {xp}, {end}",
            "bne 2b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            xp = inout(reg) xp => _,
            wp = inout(reg) wp => _,
            wq = inout(reg) wq => _,
            kd = in(reg) kd4,
            end = in(reg) end,
            u = out(reg) _,
            ue = out(reg) _,
            t0 = out(reg) _,
            t1 = out(reg) _,
            options(nostack, readonly),
        );
    }
    [a0, a1, a2, a3]
}
