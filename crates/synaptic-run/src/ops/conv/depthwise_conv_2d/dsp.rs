//! DEPTHWISE_CONV_2D's DSP-extension variant (`cfg(synaptic_dsp)`: Cortex-M4, M7, M33, M55):
//! its loops in assembly — the multiplier window's tap pairs ([`taps4_pairs`],
//! [`smlad_pairs4`]), the 3×3 row block ([`quad3x3_row`] over a [`Quad`], set up by
//! [`quad_steps`] and [`quad_taps`]; the gather of a group's input words is shared with the
//! Cortex-M3, in `thumb2.rs`).
//!
//! ## Guarantees
//!
//! Every function here is safe to call with any arguments: each checks the lengths its block
//! reads and writes against its slices first (a loop's accesses derived from those bounds in
//! its comment) and otherwise returns the portable result or `false`, writing nothing; no
//! block uses the stack. The arithmetic is the architecture's (signed 16-bit halfword lanes,
//! sums wrapping modulo 2^32, as the portable kernels' `wrapping_add`), so the results equal
//! the portable path's (the QEMU images check every model's outputs against the host's).

use super::{row_block_fits, row_block_steps};
use crate::dsp::{smlabb, smlabt, smlad, sxtb16, sxtb16_ror8};
use core::arch::asm;

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
