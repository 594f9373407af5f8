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
