//! CONV_2D's DSP-extension variant (`cfg(synaptic_dsp)`: Cortex-M4, M7, M33, M55): its loops in
//! assembly — the staging copies ([`copy_words`]), the 1×1 window of a pixel pair
//! ([`pair_quads`]) and the dot products of two filters by two pixels ([`dot2x2_quads`]) or
//! four filters by one ([`dot4_quads`]).
//!
//! ## Guarantees
//!
//! Every function here is safe to call with any arguments: each checks the lengths its loop
//! reads and writes against its slices first (the accesses derived from those bounds in its
//! comment) and otherwise returns the portable result or `false`, writing nothing; no loop
//! uses the stack. The arithmetic is the architecture's (signed 16-bit halfword lanes, sums
//! wrapping modulo 2^32), so the results equal the portable path's.

use core::arch::asm;

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
