//! DEPTHWISE_CONV_2D's variant for the Thumb-2 cores without the DSP extension (Armv7-M: the
//! Cortex-M3; Armv8-M Mainline built without it): its loops written as `MLA` assembly where the compiler's own loop costs
//! a third more: `cfg(synaptic_mla)`, set by the build script (`src/isa_rule.rs` decides the
//! DSP extension; these cores are the Thumb-2 ones it leaves out).
//!
//! Guarantees: every function here is safe to call with any arguments. Each checks the
//! lengths its loop reads against its slices first and, where they fall short, returns the
//! portable sums of what the slices hold instead (never, for a kernel's own slices); the
//! assembly only reads, within those bounds, and touches no stack. The results equal the
//! portable kernels' (wrapping `i32` sums: the products' order does not change them).

use super::row_block_fits;
use crate::ops::common::Int8;
use core::arch::asm;

/// One tap of [`window4`]: its input byte at `{xp}` (advanced one) offset by `{off}`, times
/// its four weights at `{wp}` (advanced `{step}`) into `{a0}` .. `{a3}`: 11 instructions.
macro_rules! tap {
    () => {
        concat!(
            "ldrsb {v}, [{xp}], #1\n",
            "ldrsb {w}, [{wp}]\n",
            "add {v}, {v}, {off}\n",
            "mla {a0}, {v}, {w}, {a0}\n",
            "ldrsb {w}, [{wp}, #1]\n",
            "mla {a1}, {v}, {w}, {a1}\n",
            "ldrsb {w}, [{wp}, #2]\n",
            "mla {a2}, {v}, {w}, {a2}\n",
            "ldrsb {w}, [{wp}, #3]\n",
            "add {wp}, {wp}, {step}\n",
            "mla {a3}, {v}, {w}, {a3}\n",
        )
    };
}

/// The accumulators of four output channels over a window of an int8 input with one
/// channel, `rows` rows of `n` taps: `acc[j] + Σ_{r, t} (x[r · x_step + t] + offset) ·
/// w[r · w_step + t · step + j]`, wrapping (a depthwise convolution with a multiplier and
/// one input channel, micro_speech's: each tap's input read and offset where it lies, no
/// window gathered). One `LDRSB` and one `MLA` a product, two taps a step (an odd row enters
/// the step at its second tap): 24 instructions for eight multiply-accumulates, 12 a row
/// (the compiler's eight-output loop: some 34 a tap). Slices shorter than the window needs,
/// or `n` or `rows` 0: the portable sums of what they hold.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn window4<X: Int8, W: Int8>(
    acc: [i32; 4],
    x: &[X],
    offset: i32,
    w: &[W],
    step: usize,
    (n, rows): (usize, usize),
    (x_step, w_step): (usize, usize),
) -> [i32; 4] {
    // The last input byte and the last weight the window reads.
    let last = |len: usize, row: usize, tap: usize, width: usize| {
        let at = (rows.checked_sub(1)?.checked_mul(row)?)
            .checked_add(n.checked_sub(1)?.checked_mul(tap)?)?
            .checked_add(width)?;
        (at <= len).then_some(())
    };
    let bytes = core::mem::size_of::<X>() == 1 && core::mem::size_of::<W>() == 1;
    let fits = last(x.len(), x_step, 1, 1).is_some() && last(w.len(), w_step, step, 4).is_some();
    if !fits || !bytes || x_step < n || w_step < n.saturating_mul(step) || w_step == 0 {
        let mut acc = acc;
        for r in 0..rows {
            for t in 0..n {
                let xv = x.get(r * x_step + t).map_or(0, |x| x.value() + offset);
                for (j, a) in acc.iter_mut().enumerate() {
                    let wv = w.get(r * w_step + t * step + j).map_or(0, |w| w.value());
                    *a = a.wrapping_add(xv.wrapping_mul(wv));
                }
            }
        }
        return acc;
    }
    let [mut a0, mut a1, mut a2, mut a3] = acc;
    let xp = x.as_ptr().cast::<u8>();
    let wp = w.as_ptr().cast::<u8>();
    // Per row: the input's and the weights' steps from a row's end to the next row's start,
    // the taps, and where the weights stand after the last row.
    let prm: [usize; 4] = [
        x_step - n,
        w_step - n * step,
        n,
        (wp as usize).wrapping_add(rows * w_step),
    ];
    // SAFETY: reads only. Row `r < rows` reads bytes `r·x_step + t`, `t < n`, of `x` and
    // bytes `r·w_step + t·step + j`, `j < 4`, of `w` (`X` and `W` one byte, `Int8` being
    // sealed to `i8` and `u8`), the last of each within the slice (`fits`, checked above),
    // and the four words of `prm`. `xp` and `wp` step a byte and `step` a tap, and by
    // `prm[0]`, `prm[1]` (not negative: checked above) from a row's end to the next row's
    // start, so row `r` starts at byte `r·x_step` and `r·w_step`; `end` is the row's
    // `xp + n` (an odd `n` enters the two-tap step at its second tap, so `xp` meets it
    // exactly); the loop ends when `wp` reaches `prm[3]` (`wp` grows by `w_step > 0` a row,
    // wrapping as `prm[3]` was computed, so it meets it after row `rows − 1`, `rows ≥ 1`, and
    // not before). No stack, no memory written; the flags are clobbered.
    unsafe {
        asm!(
            // Row start: `end` = `xp + n`; an odd `n` enters at the second tap.
            "1:",
            "ldr {v}, [{prm}, #8]",
            "add {end}, {xp}, {v}",
            "tst {v}, #1",
            "bne 3f",
            "2:",
            tap!(),
            "3:",
            tap!(),
            "cmp {xp}, {end}",
            "bne 2b",
            // Row end: on to the next row's start, unless that was the last.
            "ldr {v}, [{prm}]",
            "add {xp}, {xp}, {v}",
            "ldr {v}, [{prm}, #4]",
            "add {wp}, {wp}, {v}",
            "ldr {v}, [{prm}, #12]",
            "cmp {wp}, {v}",
            "bne 1b",
            a0 = inout(reg) a0,
            a1 = inout(reg) a1,
            a2 = inout(reg) a2,
            a3 = inout(reg) a3,
            xp = inout(reg) xp => _,
            wp = inout(reg) wp => _,
            end = out(reg) _,
            step = in(reg) step,
            off = in(reg) offset,
            prm = in(reg) prm.as_ptr(),
            v = out(reg) _,
            w = out(reg) _,
            options(nostack, readonly),
        );
    }
    [a0, a1, a2, a3]
}

/// What [`quad3x3_row`] reads of one group of four output channels of a depthwise row
/// kernel (`repr(C)`, the byte offsets its loads name in the fields' comments).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Quad {
    /// Tap `(r, c)`'s four weights at `taps[3r + c]`, channel `j` at byte `j` (byte 0).
    pub(crate) taps: [[i8; 4]; 9],
    /// Each channel's accumulator before its products: its bias plus the input offset times
    /// its weights' sum (the window's bytes are then multiplied raw; byte 36).
    pub(crate) init: [i32; 4],
    /// Per channel, [`crate::math::RightRequantizer::parts`]: multiplier, `2^(right − 1)`,
    /// right shift (byte 52).
    pub(crate) rq: [[i32; 3]; 4],
    /// The output offset (byte 100).
    pub(crate) out_offset: i32,
    /// The activation's range (bytes 104, 108), within int8.
    pub(crate) act: [i32; 2],
    /// The steps (bytes 112, 116, 120): `row_block_steps`.
    pub(crate) steps: [u32; 3],
}

/// One tap of [`quad3x3_row`]: the window word at `{xp} + $x` times the tap's four weights
/// at `{qp} + $t ..` (channel `j`'s input byte, sign-extended, by its weight byte) into
/// `{a0}` .. `{a3}`: 13 instructions.
macro_rules! quad_tap {
    ($x:literal, $t0:literal, $t1:literal, $t2:literal, $t3:literal) => {
        concat!(
            "ldr {x}, [{xp}, #",
            $x,
            "]\n",
            "sxtb {t}, {x}\n",
            "ldrsb {w}, [{qp}, #",
            $t0,
            "]\n",
            "mla {a0}, {t}, {w}, {a0}\n",
            "sxtb {t}, {x}, ror #8\n",
            "ldrsb {w}, [{qp}, #",
            $t1,
            "]\n",
            "mla {a1}, {t}, {w}, {a1}\n",
            "sxtb {t}, {x}, ror #16\n",
            "ldrsb {w}, [{qp}, #",
            $t2,
            "]\n",
            "mla {a2}, {t}, {w}, {a2}\n",
            "asr {t}, {x}, #24\n",
            "ldrsb {w}, [{qp}, #",
            $t3,
            "]\n",
            "mla {a3}, {t}, {w}, {a3}\n",
        )
    };
}

/// `RightRequantizer::apply` of accumulator `$a` with the parts at `{qp} + $m` (multiplier),
/// `+ 4` (`2^(right − 1)`), `+ 8` (right): the doubled value's rounded high word of its
/// product with the multiplier (`SMULL`, plus `2^31`), then the rounding divide: 11
/// instructions.
macro_rules! quad_rq {
    ($a:literal, $m:literal, $h:literal, $r:literal) => {
        concat!(
            "lsl {",
            $a,
            "}, {",
            $a,
            "}, #1\n",
            "ldr {w}, [{qp}, #",
            $m,
            "]\n",
            "smull {t}, {",
            $a,
            "}, {",
            $a,
            "}, {w}\n",
            "adds {t}, {t}, #0x80000000\n",
            "adc {",
            $a,
            "}, {",
            $a,
            "}, #0\n",
            "add {",
            $a,
            "}, {",
            $a,
            "}, {",
            $a,
            "}, asr #31\n",
            "ldr {w}, [{qp}, #",
            $h,
            "]\n",
            "add {",
            $a,
            "}, {",
            $a,
            "}, {w}\n",
            "ldr {w}, [{qp}, #",
            $r,
            "]\n",
            "asr {",
            $a,
            "}, {",
            $a,
            "}, {w}\n",
        )
    };
}

/// Output channel `$a` of [`quad3x3_row`]: plus the output offset `{x}`, clamped to the
/// activation's range `{t}` ..= `{w}`, stored at byte `{op} + $o`: 8 instructions.
macro_rules! quad_out {
    ($a:literal, $o:literal) => {
        concat!(
            "add {",
            $a,
            "}, {",
            $a,
            "}, {x}\n",
            "cmp {",
            $a,
            "}, {t}\n",
            "it lt\n",
            "movlt {",
            $a,
            "}, {t}\n",
            "cmp {",
            $a,
            "}, {w}\n",
            "it gt\n",
            "movgt {",
            $a,
            "}, {w}\n",
            "strb {",
            $a,
            "}, [{op}, #",
            $o,
            "]\n",
        )
    };
}

/// The outputs of `n` pixels of one output row of a depthwise row kernel's group of four
/// channels (the Cortex-M3's [`super::dsp::quad3x3_row`]): pixel `i`'s 3×3 window of words
/// (each the four channels' input bytes at a tap, raw: `q.init` holds the input offset's
/// part) has row `r` at `win[i · sw + r · ncols ..][.. 3]`; its four output bytes go to
/// `out[i · c ..][.. 4]`, channel `j` at byte `j`. Each channel: `q.init` plus its nine
/// products, requantized as `RightRequantizer::apply`, plus the output offset, clamped to the
/// activation's range. One block for the row, the accumulators in registers: 206
/// instructions a pixel. `q`'s steps are `row_block_steps` of `sw`, `ncols` and `c`.
/// Returns `false`, writing nothing, when `win` or `out` is too short for the `n` pixels or
/// the steps are not these (`row_block_fits`; never, for the kernel's own slices).
#[inline(always)]
pub(crate) fn quad3x3_row(
    q: &Quad,
    win: &[u32],
    (n, sw, ncols): (usize, usize, usize),
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
    // to the next pixel's first: `4·sw` bytes on from the last pixel's first; checked), the
    // last at most `(n − 1)·sw + 2·ncols + 2 < win.len()`; and writes bytes `i·c .. i·c + 4`
    // of `out` (`op` advanced by `q.steps[2]` = `c` a pixel), the last at most `(n − 1)·c +
    // 3 < out.len()`: both checked above without overflow, `n ≥ 1` (the loop's count,
    // decremented to 0). It reads the 31 words of `q` (`repr(C)`: bytes 0 .. 124) and no
    // other memory, uses no stack; the condition flags are set.
    unsafe {
        asm!(
            "2:",
            "ldr {a0}, [{qp}, #36]",
            "ldr {a1}, [{qp}, #40]",
            "ldr {a2}, [{qp}, #44]",
            "ldr {a3}, [{qp}, #48]",
            quad_tap!("0", "0", "1", "2", "3"),
            quad_tap!("4", "4", "5", "6", "7"),
            quad_tap!("8", "8", "9", "10", "11"),
            "ldr {w}, [{qp}, #112]",
            "add {xp}, {xp}, {w}",
            quad_tap!("0", "12", "13", "14", "15"),
            quad_tap!("4", "16", "17", "18", "19"),
            quad_tap!("8", "20", "21", "22", "23"),
            "ldr {w}, [{qp}, #112]",
            "add {xp}, {xp}, {w}",
            quad_tap!("0", "24", "25", "26", "27"),
            quad_tap!("4", "28", "29", "30", "31"),
            quad_tap!("8", "32", "33", "34", "35"),
            "ldr {w}, [{qp}, #116]",
            "add {xp}, {xp}, {w}",
            quad_rq!("a0", "52", "56", "60"),
            quad_rq!("a1", "64", "68", "72"),
            quad_rq!("a2", "76", "80", "84"),
            quad_rq!("a3", "88", "92", "96"),
            "ldr {x}, [{qp}, #100]",
            "ldr {t}, [{qp}, #104]",
            "ldr {w}, [{qp}, #108]",
            quad_out!("a0", "0"),
            quad_out!("a1", "1"),
            quad_out!("a2", "2"),
            quad_out!("a3", "3"),
            "ldr {w}, [{qp}, #120]",
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
            x = out(reg) _,
            t = out(reg) _,
            w = out(reg) _,
            options(nostack),
        );
    }
    true
}

/// One tap of [`pair4`]: the pixel pair's two input bytes at `{vp}` (pixel `a`'s, then `b`'s;
/// advanced two) packed into `{p}` = `a + b · 2²³`, times the tap's four weights at `{wp}`
/// (advanced `{step}`) into the packed sums `{s0l}:{s0h}` .. `{s3l}:{s3h}`: 12 instructions
/// for eight products.
macro_rules! pair_tap {
    () => {
        concat!(
            "ldrsb {p}, [{vp}, #1]\n",
            "ldrsb {w}, [{vp}], #2\n",
            "add {p}, {w}, {p}, lsl #23\n",
            "ldrsb {w}, [{wp}]\n",
            "smlal {s0l}, {s0h}, {w}, {p}\n",
            "ldrsb {w}, [{wp}, #1]\n",
            "smlal {s1l}, {s1h}, {w}, {p}\n",
            "ldrsb {w}, [{wp}, #2]\n",
            "smlal {s2l}, {s2h}, {w}, {p}\n",
            "ldrsb {w}, [{wp}, #3]\n",
            "add {wp}, {wp}, {step}\n",
            "smlal {s3l}, {s3h}, {w}, {p}\n",
        )
    };
}

/// The sums of four output channels over the windows of two pixels, `a` and `b`, of a
/// depthwise convolution with one input channel: `(Σ_t a_t · w[t·step + j], Σ_t b_t ·
/// w[t·step + j])` for `j < 4`, `t < k`, each window's raw input bytes interleaved one tap a
/// half-word in `v` (`a_t` the low byte of `v[t]`, `b_t` the high), wrapping. Both pixels'
/// bytes packed one word a tap (`a + b · 2²³`), one `SMLAL` two products (the Cortex-M3 has
/// no `SMLAD`): 12 instructions for eight products, where [`window4`] takes 11 for four. The
/// packed sums stay exact for `k ≤ 255` (`|a · w| ≤ 2¹⁴`: each pixel's sum within ±2²²);
/// longer windows, or slices shorter than `k` taps need, get the portable sums.
#[inline(always)]
pub(crate) fn pair4<W: Int8>(v: &[i16], w: &[W], step: usize, k: usize) -> [(i32, i32); 4] {
    let need = k
        .checked_sub(1)
        .and_then(|t| t.checked_mul(step))
        .and_then(|t| t.checked_add(4));
    if k == 0 || k > 255 || v.len() < k || need.is_none_or(|n| n > w.len()) || size_of::<W>() != 1 {
        return core::array::from_fn(|j| {
            let taps = v
                .iter()
                .zip(w.get(j..).unwrap_or(&[]).iter().step_by(step.max(1)));
            taps.take(k).fold((0i32, 0i32), |(a, b), (&x, w)| {
                let (xa, xb) = (i32::from(x as i8), i32::from(x >> 8));
                let w = w.value();
                (a.wrapping_add(xa * w), b.wrapping_add(xb * w))
            })
        });
    }
    let mut s = [0u32; 8];
    let vp = v.as_ptr().cast::<u8>();
    let end = vp.wrapping_add(2 * k);
    // SAFETY: reads only: bytes `0 .. 2k` of `v` (`vp` advanced two a tap to `end` = `vp +
    // 2k`, `k ≤ v.len()` half-words) and bytes `t·step + j`, `t < k`, `j < 4`, of `w` (`wp`
    // advanced `step` a tap; the last byte `(k − 1)·step + 3 < w.len()`, checked above
    // without overflow; `W` is one byte, `Int8` being sealed to `i8` and `u8`). `k ≥ 1`: an
    // odd `k` enters the two-tap step at its second tap, so `vp` meets `end` exactly. The one
    // stack slot (`end`, eight bytes keeping the stack's alignment) is freed before the end;
    // no other memory is written. The flags are set (the tests).
    unsafe {
        asm!(
            "sub sp, sp, #8",
            "str {p}, [sp]",
            "sub {p}, {p}, {vp}",
            "tst {p}, #2",
            "bne 3f",
            "2:",
            pair_tap!(),
            "3:",
            pair_tap!(),
            "ldr {w}, [sp]",
            "cmp {vp}, {w}",
            "bne 2b",
            "add sp, sp, #8",
            s0l = inout(reg) s[0],
            s0h = inout(reg) s[1],
            s1l = inout(reg) s[2],
            s1h = inout(reg) s[3],
            s2l = inout(reg) s[4],
            s2h = inout(reg) s[5],
            s3l = inout(reg) s[6],
            s3h = inout(reg) s[7],
            p = inout(reg) end => _,
            vp = inout(reg) vp => _,
            wp = inout(reg) w.as_ptr() => _,
            step = in(reg) step,
            w = out(reg) _,
        );
    }
    core::array::from_fn(|j| {
        let sum = ((u64::from(s[2 * j + 1]) << 32) | u64::from(s[2 * j])) as i64;
        crate::ops::conv::unpack23(sum)
    })
}

/// Byte `lane` (0 or 1) of the half-words of `dst` set from `src`, `rows` rows of `n` bytes:
/// byte `lane` of `dst[r·d_step + t]` = `src[r·s_step + t]` for `r < rows`, `t < n` (one
/// pixel's window rows into [`pair4`]'s interleaved window). Four instructions a byte.
/// Returns `false`, writing nothing, when a slice is too short for that, a row longer than
/// its step, or `lane`, `rows` or `n` out of range.
#[inline(always)]
pub(crate) fn set_lane<X: Int8>(
    dst: &mut [i16],
    lane: usize,
    src: &[X],
    (rows, n): (usize, usize),
    (s_step, d_step): (usize, usize),
) -> bool {
    let last = |step: usize| {
        rows.checked_sub(1)
            .and_then(|r| r.checked_mul(step))
            .and_then(|r| r.checked_add(n))
    };
    let fits = |need: Option<usize>, len: usize| need.is_some_and(|k| k <= len);
    if lane > 1
        || rows == 0
        || n == 0
        || n > s_step
        || n > d_step
        || !fits(last(s_step), src.len())
        || !fits(last(d_step), dst.len())
        || size_of::<X>() != 1
    {
        return false;
    }
    let (s_skip, d_skip) = (s_step - n, 2 * (d_step - n));
    // SAFETY: row `r < rows` reads bytes `r·s_step + t`, `t < n`, of `src` (`sp` advanced one
    // a byte, then `s_skip` to the next row's start) and writes byte `lane` of half-words
    // `r·d_step + t` of `dst` (`dp` at byte `lane`, advanced two a byte, then `d_skip` bytes);
    // the last of each within its slice (checked above without overflow; `X` is one byte,
    // `Int8` being sealed to `i8` and `u8`, and every byte of an `i16` is a value). `n ≥ 1`:
    // each row's loop meets its end (`sp + n`) exactly; `rows ≥ 1` counted down to 0. No
    // stack; the flags are set.
    unsafe {
        asm!(
            "1:",
            "add {e}, {sp}, {n}",
            "2:",
            "ldrb {t}, [{sp}], #1",
            "strb {t}, [{dp}], #2",
            "cmp {sp}, {e}",
            "bne 2b",
            "add {sp}, {sp}, {s_skip}",
            "add {dp}, {dp}, {d_skip}",
            "subs {rows}, {rows}, #1",
            "bne 1b",
            sp = inout(reg) src.as_ptr().cast::<u8>() => _,
            dp = inout(reg) dst.as_mut_ptr().cast::<u8>().wrapping_add(lane) => _,
            rows = inout(reg) rows => _,
            n = in(reg) n,
            s_skip = in(reg) s_skip,
            d_skip = in(reg) d_skip,
            e = out(reg) _,
            t = out(reg) _,
            options(nostack),
        );
    }
    true
}
